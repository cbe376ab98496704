package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/store"
)

func TestGetRunFindsEitherKind(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		ls := store.Item{store.AttrPK: "PROJECT#p1", store.AttrSK: "LOGSTREAM#ls1", "id": "ls1", "project_id": "p1", "org_id": "o1", "name": "prod"}
		ex := store.Item{store.AttrPK: "PROJECT#p1", store.AttrSK: "EXPERIMENT#ex1", "id": "ex1", "project_id": "p1", "org_id": "o1", "name": "exp",
			"scorers": []any{map[string]any{"id": "s1", "name": "correctness"}}}
		for _, it := range []store.Item{ls, ex} {
			if err := tbl.Put(ctx, it); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			id, kind string
			scorers  int
		}{{"ls1", store.RunLogStream, 0}, {"ex1", store.RunExperiment, 1}} {
			run, err := store.GetRun(ctx, tbl, "o1", "p1", c.id)
			if err != nil {
				t.Fatalf("GetRun(%s): %v", c.id, err)
			}
			if run.Kind != c.kind || run.ID != c.id || len(run.Scorers) != c.scorers {
				t.Errorf("GetRun(%s) = %+v, want kind %s with %d scorers", c.id, run, c.kind, c.scorers)
			}
		}
		for _, c := range []struct{ org, project, id string }{{"o2", "p1", "ls1"}, {"o1", "p2", "ex1"}, {"o1", "p1", "nope"}} {
			if _, err := store.GetRun(ctx, tbl, c.org, c.project, c.id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("GetRun(%v) error = %v, want ErrNotFound", c, err)
			}
		}
	})
}

func TestAddToRunSummaryLosesNoUpdate(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		const writers = 10
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for i := range writers {
			wg.Go(func() {
				d := store.RunSummary{NumTraces: 2, NumSpans: 5, NumSessions: 1, Metrics: map[string]store.MetricStats{}}
				lat := store.MetricStats{}
				lat.Observe(fixed.FromInt(int64(i)))
				d.Metrics["latency_ms"] = lat
				cat := store.MetricStats{}
				cat.ObserveCategory("yes")
				d.Metrics["tone"] = cat
				errs <- store.AddToRunSummary(ctx, tbl, "run1", d, time.Now())
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got, err := store.GetRunSummaries(ctx, tbl, []string{"run1", "run-without-traces"})
		if err != nil {
			t.Fatal(err)
		}
		s, ok := got["run1"]
		if !ok || len(got) != 1 {
			t.Fatalf("summaries = %+v, want only run1", got)
		}
		if s.NumTraces != 2*writers || s.NumSpans != 5*writers || s.NumSessions != writers {
			t.Errorf("counts = %d/%d/%d, want %d/%d/%d", s.NumTraces, s.NumSpans, s.NumSessions, 2*writers, 5*writers, writers)
		}
		lat := s.Metrics["latency_ms"]
		if lat.Count != writers || lat.Sum != fx(45) || *lat.Min != fx(0) || *lat.Max != fx(9) {
			t.Errorf("latency stats = %+v (min %v max %v), want count 10 sum 45 min 0 max 9", lat, *lat.Min, *lat.Max)
		}
		if n := s.Metrics["tone"].Categories["yes"]; n != writers {
			t.Errorf("tone yes = %d, want %d", n, writers)
		}
	})
}

// TestRunSummaryUpdateInTransaction folds deltas into a summary as actions of transactions
// (how trace ingestion writes it): counts and scaled sums add up, min and max move only under
// their compare-and-set conditions, and names holding '#' or '%' read back intact.
func TestRunSummaryUpdateInTransaction(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		delta := func(vals ...float64) store.RunSummary {
			d := store.RunSummary{NumTraces: int64(len(vals)), NumSpans: 1, Metrics: map[string]store.MetricStats{}}
			m, c := store.MetricStats{}, store.MetricStats{}
			for _, v := range vals {
				m.Observe(fx(v))
				c.ObserveCategory("a#b %")
			}
			d.Metrics["score#1"], d.Metrics["tone"] = m, c
			return d
		}
		write := func(d store.RunSummary, cur store.Item) error {
			u := store.WithExtremes(store.RunSummaryUpdate("run2", d, now), cur, store.RunSummaryExtremes(d))
			return tbl.Transact(ctx, []store.Op{store.UpdateOp(u),
				store.PutOp(store.Item{store.AttrPK: "X", store.AttrSK: fmt.Sprint(d.NumTraces, cur == nil)}, store.NotExists())})
		}
		if err := write(delta(0.5, 2.25), nil); err != nil {
			t.Fatal(err)
		}
		// a writer that read before the first write: its min condition fails, nothing applies
		err := write(delta(0.25), nil)
		if !errors.Is(err, store.ErrConditionFailed) {
			t.Fatalf("stale write: %v, want a failed condition", err)
		}
		cur, err := tbl.Get(ctx, store.RunSummaryKey("run2"), true)
		if err != nil {
			t.Fatal(err)
		}
		if err := write(delta(0.25), cur); err != nil {
			t.Fatal(err)
		}
		got, err := store.GetRunSummaries(ctx, tbl, []string{"run2"})
		if err != nil {
			t.Fatal(err)
		}
		s := got["run2"]
		m := s.Metrics["score#1"]
		if s.NumTraces != 3 || s.NumSpans != 2 || m.Count != 3 || m.Sum != fx(3) || *m.Min != fx(0.25) || *m.Max != fx(2.25) ||
			s.Metrics["tone"].Categories["a#b %"] != 3 || s.Metrics["tone"].Count != 3 || !s.UpdatedAt.Equal(now) {
			t.Errorf("summary = %+v, score#1 = %+v (min %v max %v)", s, m, *m.Min, *m.Max)
		}
	})
}

// fx is f as a fixed-point value.
func fx(f float64) fixed.Value {
	v, err := fixed.FromFloat(f)
	if err != nil {
		panic(err)
	}
	return v
}
