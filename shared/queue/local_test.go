package queue

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func bodies(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(strconv.Itoa(i))
	}
	return out
}

func waitEmpty(t *testing.T, q *Local) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := q.Wait(ctx); err != nil {
		t.Fatalf("queue not drained: %v (%d left)", err, q.Len())
	}
}

// TestPartialFailuresRedeliverThenDeadLetter: a message its handler reports failed comes
// back after the visibility timeout with a higher receive count, the others of its batch are
// deleted, and after MaxReceiveCount deliveries it moves to the dead-letter list.
func TestPartialFailuresRedeliverThenDeadLetter(t *testing.T) {
	q := NewLocal(Options{VisibilityTimeout: 20 * time.Millisecond, MaxReceiveCount: 3, MaxConcurrency: 1})
	var mu sync.Mutex
	seen := map[string][]int{}
	q.Start(func(_ context.Context, msgs []Message) []string {
		mu.Lock()
		defer mu.Unlock()
		var failed []string
		for _, m := range msgs {
			seen[string(m.Body)] = append(seen[string(m.Body)], m.ReceiveCount)
			if string(m.Body) == "3" || (string(m.Body) == "5" && m.ReceiveCount < 2) {
				failed = append(failed, m.ID)
			}
		}
		return failed
	})
	defer q.Close()
	if err := q.Send(context.Background(), bodies(8), 0); err != nil {
		t.Fatal(err)
	}
	waitEmpty(t, q)
	mu.Lock()
	defer mu.Unlock()
	for i := range 8 {
		b := strconv.Itoa(i)
		want := 1
		switch b {
		case "3":
			want = 3
		case "5":
			want = 2
		}
		if got := seen[b]; len(got) != want || got[len(got)-1] != want {
			t.Errorf("message %s: receive counts %v, want 1..%d", b, got, want)
		}
	}
	dead := q.Dead()
	if len(dead) != 1 || string(dead[0].Body) != "3" || dead[0].ReceiveCount != 3 {
		t.Errorf("dead letters %+v, want message 3 after 3 receives", dead)
	}
}

// TestConcurrencyCap: never more handler calls at once than MaxConcurrency, and batches hold
// at most BatchSize messages.
func TestConcurrencyCap(t *testing.T) {
	q := NewLocal(Options{MaxConcurrency: 3, BatchSize: 4})
	var running, peak, biggest atomic.Int64
	q.Start(func(_ context.Context, msgs []Message) []string {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if int64(len(msgs)) > biggest.Load() {
			biggest.Store(int64(len(msgs)))
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
		return nil
	})
	defer q.Close()
	if err := q.Send(context.Background(), bodies(200), 0); err != nil {
		t.Fatal(err)
	}
	waitEmpty(t, q)
	if peak.Load() > 3 || q.PeakConcurrency() > 3 {
		t.Errorf("peak concurrency %d (queue says %d), cap 3", peak.Load(), q.PeakConcurrency())
	}
	if biggest.Load() > 4 {
		t.Errorf("a batch of %d messages, batch size 4", biggest.Load())
	}
}

// TestDelayAndPanic: a delayed message is not delivered before its delay; a handler that
// panics fails its whole batch, which is delivered again.
func TestDelayAndPanic(t *testing.T) {
	q := NewLocal(Options{VisibilityTimeout: 10 * time.Millisecond, MaxConcurrency: 1})
	var calls atomic.Int64
	sent := time.Now()
	var firstAt atomic.Int64
	q.Start(func(_ context.Context, msgs []Message) []string {
		if calls.Add(1) == 1 {
			firstAt.Store(int64(time.Since(sent)))
			panic("boom")
		}
		return nil
	})
	defer q.Close()
	if err := q.Send(context.Background(), bodies(2), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	waitEmpty(t, q)
	if time.Duration(firstAt.Load()) < 50*time.Millisecond {
		t.Errorf("delivered %v after the send, delay 50ms", time.Duration(firstAt.Load()))
	}
	if calls.Load() < 2 || len(q.Dead()) != 0 {
		t.Errorf("calls %d, dead %d: the panicked batch should be delivered again", calls.Load(), len(q.Dead()))
	}
}

// TestIdleConsumersWait: consumers of an empty queue wait for a send instead of waking one
// another (each used to broadcast on finding nothing, which kept a core busy while idle).
func TestIdleConsumersWait(t *testing.T) {
	q := NewLocal(Options{MaxConcurrency: 4})
	q.Start(func(context.Context, []Message) []string { return nil })
	defer q.Close()
	passes := func() int {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.passes
	}
	for passes() < 4 { // each consumer has looked once
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if n := passes(); n != 4 {
		t.Errorf("4 idle consumers made %d passes over the empty queue, want 4 (one each, then wait)", n)
	}
	// And a send still wakes them.
	if err := q.Send(context.Background(), bodies(3), 0); err != nil {
		t.Fatal(err)
	}
	waitEmpty(t, q)
}
