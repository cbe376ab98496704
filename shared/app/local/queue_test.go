package local

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestQueue: at most the cap runs at once, a failing message is delivered again, one that
// always fails ends in the dead letters after MaxReceives.
func TestQueue(t *testing.T) {
	var running, peak atomic.Int64
	var mu sync.Mutex
	seen := map[string]int{}
	q := NewQueue(func(_ context.Context, b []byte) error {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		seen[string(b)]++
		if string(b) == "poison" || (string(b) == "flaky" && seen["flaky"] < 3) {
			return errors.New("failed")
		}
		return nil
	}, 3, nil)
	q.Backoff = time.Millisecond
	defer q.Close()
	var bodies [][]byte
	for range 20 {
		bodies = append(bodies, []byte("ok"))
	}
	bodies = append(bodies, []byte("flaky"), []byte("poison"))
	if err := q.Send(t.Context(), bodies); err != nil {
		t.Fatal(err)
	}
	q.Wait()
	if peak.Load() > 3 || seen["ok"] != 20 || seen["flaky"] != 3 || seen["poison"] != 5 || len(q.DeadLetters()) != 1 {
		t.Errorf("peak %d, deliveries %v, dead %d", peak.Load(), seen, len(q.DeadLetters()))
	}
}
