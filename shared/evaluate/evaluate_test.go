package evaluate

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/store"
)

func readTrace(t *testing.T, tbl store.Table, tr store.Trace) store.Trace {
	t.Helper()
	it, err := tbl.Get(context.Background(), store.TraceKey(runID, tr.CreatedAt, tr.ID), true)
	if err != nil {
		t.Fatal(err)
	}
	var got store.Trace
	if err := store.DecodeTrace(it, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestPipelineScoresEachTraceOnce: dispatch marks every trace pending and sends one
// message per trace; the evaluator writes the judged value with its explanation; delivering
// every message again (a redelivery) and the dispatch again (a stream retry) change nothing.
func TestPipelineScoresEachTraceOnce(t *testing.T) {
	testenv.EachTable(t, pipelineScoresEachTraceOnce)
}

func pipelineScoresEachTraceOnce(t *testing.T, tbl store.Table) {
	const n = 8
	e := newEnv(t, tbl, n, nil)
	msgs := e.dispatchAll()
	if len(msgs) != n {
		t.Fatalf("%d messages, want %d", len(msgs), n)
	}
	for _, m := range msgs {
		var raw map[string]any
		if err := json.Unmarshal(m.Body, &raw); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(m.Body), `"q`) {
			t.Fatalf("a message carries content: %s", m.Body)
		}
	}
	if got := readTrace(t, tbl, e.traces[0]).Metrics[metric]; got.State != store.MetricPending {
		t.Fatalf("after dispatch the metric is %+v, want pending", got)
	}
	j := newFakeJudge()
	ev := NewEvaluator(tbl, nil, j, EvaluatorOptions{})
	if failed := ev.Handle(context.Background(), msgs); len(failed) != 0 {
		t.Fatalf("failed: %v", failed)
	}
	for range 2 { // redelivery of every message, and a second dispatch
		if failed := ev.Handle(context.Background(), msgs); len(failed) != 0 {
			t.Fatalf("failed: %v", failed)
		}
		if again := e.dispatchAll(); len(again) != n {
			t.Fatalf("second dispatch sent %d", len(again))
		}
	}
	if j.total() != n {
		t.Errorf("judge called %d times, want %d (a judged version is not judged again)", j.total(), n)
	}
	recs, rolls, sum := e.counted()
	if recs != n || rolls != n || sum != n {
		t.Errorf("counted on records %d, roll-ups %d, summary %d; want %d each", recs, rolls, sum, n)
	}
	if got, in := e.usage(); got != n || in != 10*n {
		t.Errorf("usage: %d judgments, %d input tokens; want %d, %d", got, in, n, 10*n)
	}
	got := readTrace(t, tbl, e.traces[3]).Metrics[metric]
	if got.Bool == nil || *got.Bool != expected(e.traces[3].ID) || got.Explanation != `because "q3"` {
		t.Errorf("value %+v", got)
	}
}

// TestConcurrentEvaluatorsOneMessage: two workers given the same message at once (SQS may
// deliver a message twice) count it once.
func TestConcurrentEvaluatorsOneMessage(t *testing.T) {
	testenv.EachTable(t, concurrentEvaluatorsOneMessage)
}

func concurrentEvaluatorsOneMessage(t *testing.T, tbl store.Table) {
	e := newEnv(t, tbl, 5, nil)
	msgs := e.dispatchAll()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			ev := NewEvaluator(tbl, nil, newFakeJudge(), EvaluatorOptions{Parallel: 1 + w})
			for {
				if failed := ev.Handle(context.Background(), msgs); len(failed) == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	recs, rolls, sum := e.counted()
	if recs != 5 || rolls != 5 || sum != 5 {
		t.Errorf("counted on records %d, roll-ups %d, summary %d; want 5 each", recs, rolls, sum)
	}
}

// TestVerdictErrors: a retryable verdict returns the message until its last allowed
// delivery, which writes the error type; a non-retryable verdict is written at once.
func TestVerdictErrors(t *testing.T) {
	tbl := embeddedTable(t)
	e := newEnv(t, tbl, 3, nil)
	msgs := e.dispatchAll()
	j := newFakeJudge()
	j.fail = func(id string, _ int) *Verdict {
		switch id {
		case e.traces[0].ID:
			return &Verdict{ErrorType: ErrRateLimit, Retryable: true, ErrorMessage: "provider answered 429"}
		case e.traces[1].ID:
			return &Verdict{ErrorType: ErrCredentials, ErrorMessage: "provider answered 401"}
		}
		return nil
	}
	ev := NewEvaluator(tbl, nil, j, EvaluatorOptions{MaxReceiveCount: 3})
	q := queue.NewLocal(queue.Options{VisibilityTimeout: 1, MaxReceiveCount: 3, MaxConcurrency: 2})
	q.Start(ev.Handle)
	defer q.Close()
	var bodies [][]byte
	for _, m := range msgs {
		bodies = append(bodies, m.Body)
	}
	if err := q.Send(context.Background(), bodies, 0); err != nil {
		t.Fatal(err)
	}
	if err := q.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(q.Dead()) != 0 {
		t.Errorf("%d dead letters: the last delivery writes the error instead", len(q.Dead()))
	}
	for i, want := range []string{ErrRateLimit, ErrCredentials, ""} {
		v := readTrace(t, tbl, e.traces[i]).Metrics[metric]
		switch {
		case want == "" && (v.Bool == nil || v.Error != nil):
			t.Errorf("trace %d: %+v, want a value", i, v)
		case want != "" && (v.Error == nil || v.Error.ErrorType != want):
			t.Errorf("trace %d: %+v, want error %s", i, v, want)
		}
	}
	if j.calls[e.traces[0].ID] != 3 || j.calls[e.traces[1].ID] != 1 {
		t.Errorf("judge calls %v: 3 for the rate-limited trace, 1 for the refused credentials", j.calls)
	}
	recs, rolls, _ := e.counted()
	if recs != 3 || rolls != 3 {
		t.Errorf("counted on records %d, in roll-ups %d (values and errors); want 3", recs, rolls)
	}
}

// TestSampling: 10,000 traces at rate 0.25 select within 3σ of 2,500, the identical set on
// a second run; rate 0 selects none, an experiment's traces are scored in full, and a segment
// that applies only to LLM scorers leaves a code scorer at rate 1.
func TestSampling(t *testing.T) {
	name, llm, code := "m", "llm", "code"
	sc := store.ScorerConfig{ID: scorerID, Name: &name, ScorerType: &llm}
	run := &store.Run{ID: runID, Kind: store.RunLogStream, MetricSettings: store.MetricSettings{Scorers: []store.ScorerConfig{sc},
		SegmentFilters: []store.SegmentFilter{{SampleRate: 0.25}}}}
	pick := func(run *store.Run) map[string]bool {
		out := map[string]bool{}
		for i := range 10000 {
			tr := store.Trace{ID: traceID(i), Name: "chat"}
			if len(Plan(run, &tr).Selected) == 1 {
				out[tr.ID] = true
			}
		}
		return out
	}
	first, second := pick(run), pick(run)
	const sigma = 43.30127 // sqrt(10000 * 0.25 * 0.75)
	if n := float64(len(first)); n < 2500-3*sigma || n > 2500+3*sigma {
		t.Errorf("%v traces sampled at 0.25, want 2500 ± %.0f", n, 3*sigma)
	}
	if len(first) != len(second) {
		t.Fatalf("second run sampled %d, first %d", len(second), len(first))
	}
	for id := range first {
		if !second[id] {
			t.Fatalf("trace %s sampled on the first run only", id)
		}
	}
	for _, tc := range []struct {
		name     string
		segments []store.SegmentFilter
		kind     string
		scorer   *string
		want     int
	}{
		{"rate 0", []store.SegmentFilter{{SampleRate: 0}}, store.RunLogStream, &llm, 0},
		{"experiment in full", []store.SegmentFilter{{SampleRate: 0}}, store.RunExperiment, &llm, 10000},
		{"llm-only segment, code scorer", []store.SegmentFilter{{SampleRate: 0, LLMScorers: true}}, store.RunLogStream, &code, 10000},
		{"first applicable segment decides", []store.SegmentFilter{
			{SampleRate: 1, Filter: &store.ScorerFilter{Name: store.FilterNodeName, Operator: "eq", Value: store.FilterValue{Values: []string{"other"}}}},
			{SampleRate: 0}}, store.RunLogStream, &llm, 0},
		{"no segments", nil, store.RunLogStream, &llm, 10000},
	} {
		s := sc
		s.ScorerType = tc.scorer
		r := &store.Run{ID: runID, Kind: tc.kind, MetricSettings: store.MetricSettings{Scorers: []store.ScorerConfig{s}, SegmentFilters: tc.segments}}
		if got := len(pick(r)); got != tc.want {
			t.Errorf("%s: %d sampled, want %d", tc.name, got, tc.want)
		}
	}
}
