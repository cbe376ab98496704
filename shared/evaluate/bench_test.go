package evaluate

import (
	"context"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

// benchEnv is a log stream with n dispatched traces and their messages.
func benchEnv(b *testing.B, n int) (*env, []queue.Message) {
	b.Helper()
	e := newEnv(b, embeddedTable(b), n, nil)
	msgs := e.dispatchAll()
	if len(msgs) != n {
		b.Fatalf("%d messages for %d traces", len(msgs), n)
	}
	return e, msgs
}

// BenchmarkEvaluatorJudgment is the evaluator's cost per judgment with an instant judge on the
// in-memory embedded store: decoding the message, the reads, the value's transaction with
// its roll-ups and claim. The store's own CPU is included (an upper bound of the worker's);
// no network. It reports the store calls per judgment and their sequential depth.
func BenchmarkEvaluatorJudgment(b *testing.B) {
	const n = 2000
	e, msgs := benchEnv(b, n)
	counted := storecount.New(e.tbl)
	ev := NewEvaluator(counted, nil, newFakeJudge(), EvaluatorOptions{Parallel: 1})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if i == n { // every trace judged: start again on fresh ones
			b.StopTimer()
			e, msgs = benchEnv(b, n)
			counted = storecount.New(e.tbl)
			ev = NewEvaluator(counted, nil, newFakeJudge(), EvaluatorOptions{Parallel: 1})
			i = 0
			b.StartTimer()
		}
		if failed := ev.Handle(ctx, msgs[i:i+1]); len(failed) != 0 {
			b.Fatal("evaluation failed")
		}
		i++
	}
	c := counted.Snapshot()
	if i > 0 {
		b.ReportMetric(float64(c.Total)/float64(i), "storecalls/op")
		b.ReportMetric(float64(c.Depth)/float64(i), "depth/op")
		b.ReportMetric(float64(c.Calls["Transact"]+c.Calls["Update"]+c.Calls["Put"])/float64(i), "writes/op")
	}
}

// BenchmarkDispatchTrace is the dispatcher's cost per trace (one LLM scorer): reading the
// run's settings (once per batch of 100), the pending mark's transaction and the message.
func BenchmarkDispatchTrace(b *testing.B) {
	e := newEnv(b, embeddedTable(b), 100, nil)
	recs := e.records()
	d := NewDispatcher(e.tbl, &captured{}, 0, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		// The marks exist after the first round: later rounds measure the decision and the
		// send, and the read that finds the mark in place.
		if failed := d.Handle(ctx, recs); len(failed) != 0 {
			b.Fatal("dispatch failed")
		}
	}
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "traces/s")
}

// slowJudge answers after a provider's latency.
type slowJudge struct {
	*fakeJudge
	latency time.Duration
}

func (j slowJudge) Judge(ctx context.Context, t Task) Verdict {
	time.Sleep(j.latency)
	return j.fakeJudge.Judge(ctx, t)
}

// BenchmarkThroughput is judgments per second through the in-process queue at 50 judgments
// in flight (5 consumers of batches of 10, each judged in parallel), the judge answering in
// 200 ms (num_judges 1), on the in-memory store.
func BenchmarkThroughput(b *testing.B) {
	const n = 1000
	for b.Loop() {
		b.StopTimer()
		e, msgs := benchEnv(b, n)
		q := queue.NewLocal(queue.Options{MaxConcurrency: 5, BatchSize: 10})
		q.Start(NewEvaluator(e.tbl, nil, slowJudge{newFakeJudge(), 200 * time.Millisecond}, EvaluatorOptions{Parallel: 10}).Handle)
		bodies := make([][]byte, len(msgs))
		for i, m := range msgs {
			bodies[i] = m.Body
		}
		b.StartTimer()
		start := time.Now()
		if err := q.Send(context.Background(), bodies, 0); err != nil {
			b.Fatal(err)
		}
		if err := q.Wait(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "judgments/s")
		q.Close()
	}
}
