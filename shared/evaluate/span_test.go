package evaluate

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// TestSpanScoresRollUpToTheTrace: an llm-span scorer judges each llm span when it is
// written (the tool span is not its type); the trace gets the average of its spans' values;
// a span appended later re-opens the trace for that scorer only, and the trace's value
// follows; redelivery changes nothing; the run's roll-ups hold the trace's value once.
func TestSpanScoresRollUpToTheTrace(t *testing.T) {
	ctx := context.Background()
	tbl := embeddedTable(t)
	e := newEnv(t, tbl, 1, nil)
	// A span scorer beside the trace scorer.
	name, typ, strat := "span_ok", "llm", "avg"
	ls, err := store.GetLogStream(ctx, tbl, orgID, projectID, runID)
	if err != nil {
		t.Fatal(err)
	}
	scorers := append(ls.Scorers, store.ScorerConfig{ID: "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b", Name: &name, ScorerType: &typ,
		ScoreableNodeTypes: []string{"llm"}, RollUpStrategy: &strat, ScorerVersion: &store.ScorerVersionRecord{Version: 2}})
	if _, err := store.SetMetricSettings(ctx, tbl, ls, &scorers, nil, base); err != nil {
		t.Fatal(err)
	}
	tr := e.traces[0]
	span := func(i int, typ string) store.Span {
		return store.Span{ID: fmt.Sprintf("a1b2c3d4-0000-4000-8000-%012d", i), TraceID: tr.ID, ParentID: tr.ID, RunID: runID,
			ProjectID: projectID, OrgID: orgID, Depth: 1, Type: typ, Name: "call", CreatedAt: tr.CreatedAt.Add(time.Duration(i) * time.Millisecond),
			IsComplete: true, RecordContent: store.RecordContent{Input: store.Content(`"in"`), Output: store.Content(`"out"`)}}
	}
	c := &captured{}
	d := NewDispatcher(tbl, c, 0, nil)
	j := newFakeJudge()
	ev := NewEvaluator(tbl, nil, j, EvaluatorOptions{})
	write := func(spans ...store.Span) {
		var recs []stream.Record
		for _, sp := range spans {
			it, err := store.SpanItem(sp)
			if err != nil {
				t.Fatal(err)
			}
			if err := tbl.Put(ctx, it); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, stream.Record{ID: sp.ID, New: it})
		}
		before := len(c.bodies)
		if f := d.Handle(ctx, recs); len(f) != 0 {
			t.Fatal("dispatch failed")
		}
		msgs := c.messages()[before:]
		for range 2 { // delivered twice
			if f := ev.Handle(ctx, msgs); len(f) != 0 {
				t.Fatal("evaluation failed")
			}
		}
	}
	wantAvg := func(spans ...store.Span) float64 {
		n := 0.0
		for _, sp := range spans {
			if sp.Type == "llm" && expected(sp.ID) {
				n++
			}
		}
		return n / float64(len(spans)-1) // the tool span is not judged
	}
	check := func(want float64) {
		t.Helper()
		got := readTrace(t, tbl, tr).Metrics[name]
		if got.Number == nil || math.Abs(*got.Number-want) > 1e-9 {
			t.Fatalf("trace value %+v, want %v", got, want)
		}
		var count int64
		err := store.ScanRollups(ctx, tbl, runID, store.RollupMinute, store.RollupAll, base.Add(-time.Hour), base.Add(time.Hour), func(r store.Rollup) error {
			if m := r.Metrics[name]; m != nil {
				count += m.N
				if math.Abs(m.Sum.Float64()-want) > 1e-9 {
					t.Errorf("roll-up sum %v, want %v", m.Sum.Float64(), want)
				}
			}
			return nil
		})
		if err != nil || count != 1 {
			t.Errorf("roll-ups count %d values of the trace, want 1 (%v)", count, err)
		}
	}
	s1, s2, tool, s3 := span(1, "llm"), span(2, "llm"), span(3, "tool"), span(4, "llm")
	write(s1, s2, tool)
	if len(c.bodies) != 2 {
		t.Fatalf("%d messages for two llm spans", len(c.bodies))
	}
	check(wantAvg(s1, s2, tool))
	write(s3) // appended later
	check(wantAvg(s1, s2, tool, s3))
	if j.total() != 3 {
		t.Errorf("judge called %d times, want 3 (one per llm span, the trace-level scorer not again)", j.total())
	}
}
