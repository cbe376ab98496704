package records_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/store/storefault"
	"github.com/evalobs/evalapi/shared/stream"
)

var start = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

// fixture is a run of four traces in one minute, on an embedded store whose commits are
// kept as the table's stream would deliver them.
type fixture struct {
	db     *embedded.DB
	run    store.Run
	traces []store.Trace

	mu      sync.Mutex
	changes []embedded.Change
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{run: store.Run{ID: "run-1", ProjectID: "project-1", OrgID: "org-1", Name: "ls"}}
	db, err := embedded.Open(filepath.Join(t.TempDir(), "db"), embedded.Options{OnCommit: func(cs []embedded.Change) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.changes = append(f.changes, cs...)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.db = db
	for i, v := range []float64{10, 20, 30, 40} {
		score := 1 - v/100
		f.traces = append(f.traces, store.Trace{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), RunID: f.run.ID,
			ProjectID: f.run.ProjectID, OrgID: f.run.OrgID, Type: "trace", Name: "chat",
			CreatedAt: start.Add(time.Duration(i) * time.Second), Usage: store.Usage{LatencyMs: &v},
			Metrics: map[string]store.MetricValue{"score": {Number: &score}}})
	}
	if _, err := records.Ingest(t.Context(), db, f.run, f.traces, start); err != nil {
		t.Fatal(err)
	}
	f.stream() // the ingestion's records: none is the repairer's
	return f
}

// stream hands the consumer the changes committed since its last call, as the table's
// stream does, and reports the records some handler could not finish.
func (f *fixture) stream() []stream.Record {
	f.mu.Lock()
	cs := f.changes
	f.changes = nil
	f.mu.Unlock()
	var records []stream.Record
	for i, c := range cs {
		records = append(records, stream.Record{ID: fmt.Sprint(i), Old: c.Old, New: c.New})
	}
	return records
}

// revision is the change of trace i of f that change makes (nil change: a deletion).
func (f *fixture) revision(t *testing.T, i int, change func(tr *store.Trace)) records.Revision {
	t.Helper()
	tr := f.traces[i]
	it, err := f.db.Get(t.Context(), store.TraceKey(tr.RunID, tr.CreatedAt, tr.ID), true)
	if err != nil {
		t.Fatal(err)
	}
	var before store.Trace
	if err := store.DecodeTrace(it, &before); err != nil {
		t.Fatal(err)
	}
	rv := records.Revision{RunID: f.run.ID, Before: &before, BeforeItem: it, Now: start.Add(time.Hour), SpansChange: -before.NumSpans}
	if change != nil {
		after := before
		after.Metrics = map[string]store.MetricValue{}
		for k, v := range before.Metrics {
			after.Metrics[k] = v
		}
		change(&after)
		rv.After, rv.SpansChange = &after, 0
	}
	return rv
}

// inexact lists the roll-ups of f's period whose min or max differ from a recomputation
// from the traces stored now.
func (f *fixture) inexact(t *testing.T) []string {
	t.Helper()
	ctx := t.Context()
	var now []store.Trace
	err := store.ScanTraces(ctx, f.db, f.run.ID, start, start.Add(time.Hour), store.ScanOptions{}, func(tr *store.Trace) error {
		now = append(now, *tr)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[store.Key]store.Rollup{}
	for _, r := range records.Rollups(now) {
		want[store.RollupKey(f.run.ID, r.Level, r.Group, r.Minute, r.Value)] = r
	}
	var out []string
	for _, r := range records.Rollups(f.traces) { // every bucket the run ever had
		k := store.RollupKey(f.run.ID, r.Level, r.Group, r.Minute, r.Value)
		it, err := f.db.Get(ctx, k, true)
		if err != nil {
			t.Fatal(err)
		}
		got, err := store.ParseRollup(it)
		if err != nil {
			t.Fatal(err)
		}
		for name := range r.Metrics {
			var g, w store.RollupMetric
			if m := got.Metrics[name]; m != nil {
				g = *m
			}
			if m := want[k].Metrics[name]; m != nil {
				w = *m
			}
			if !same(g.Min, w.Min) || !same(g.Max, w.Max) {
				out = append(out, fmt.Sprintf("%v %s: %s..%s, traces %s..%s", k, name, text(g.Min), text(g.Max), text(w.Min), text(w.Max)))
			}
		}
	}
	return out
}

// markers lists the repair markers of f's run.
func (f *fixture) markers(t *testing.T) []store.Item {
	t.Helper()
	p := store.ExtremesRepairKey(f.run.ID, "")
	page, err := f.db.Query(t.Context(), store.Query{PK: p.PK, SKOp: store.SKPrefix, From: p.SK, Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	return page.Items
}

func same(a, b *fixed.Value) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Cmp(*b) == 0
}

func text(v *fixed.Value) string {
	if v == nil {
		return "none"
	}
	return v.String()
}

func isMarker(k store.Key, runID string) bool {
	p := store.ExtremesRepairKey(runID, "")
	return k.PK == p.PK && strings.HasPrefix(k.SK, p.SK)
}

// revisions are the kinds of Revision that move a value: each may leave extremes to repair.
var revisions = []struct {
	name   string
	change func(tr *store.Trace) // nil: the trace is deleted
}{
	{"deletion", nil},
	{"value lowered", func(tr *store.Trace) { v := 1.0; tr.LatencyMs = &v }},
	{"value raised", func(tr *store.Trace) { s := 2.0; tr.Metrics["score"] = store.MetricValue{Number: &s} }},
	{"value removed", func(tr *store.Trace) { delete(tr.Metrics, "score") }},
}

// TestRevisionWritesRepairMarker: the transaction of a Revision that moves a value creates a
// repair marker with its other actions, and Apply deletes it once its own repair is done;
// a Revision that moves no value writes none.
func TestRevisionWritesRepairMarker(t *testing.T) {
	cases := append(revisions[:len(revisions):len(revisions)], struct {
		name   string
		change func(tr *store.Trace)
	}{"no value moves", func(tr *store.Trace) { tr.IsComplete = true }})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			ft := storefault.New(f.db)
			if err := f.revision(t, 3, tc.change).Apply(t.Context(), ft); err != nil {
				t.Fatal(err)
			}
			var inTx, deleted bool
			for _, c := range ft.Calls() {
				for _, k := range c.Keys {
					if isMarker(k, f.run.ID) {
						inTx = inTx || c.Op == storefault.OpTransact
						deleted = deleted || c.Op == storefault.OpDelete
					}
				}
			}
			if want := tc.name != "no value moves"; inTx != want || deleted != want {
				t.Errorf("marker in the transaction: %v, deleted after: %v; want %v", inTx, deleted, want)
			}
			if m := f.markers(t); len(m) > 0 {
				t.Errorf("%d markers left after a revision that finished", len(m))
			}
			if bad := f.inexact(t); len(bad) > 0 {
				t.Errorf("extremes not exact:\n%s", strings.Join(bad, "\n"))
			}
			// The marker's creation reaches the stream; the repairer finds it gone.
			if failed := stream.NewConsumer(nil, records.NewRepairer(f.db, nil)).Handle(t.Context(), f.stream()); len(failed) > 0 {
				t.Errorf("repairer failed on %v", failed)
			}
		})
	}
}

// TestFaultAfterTransactionRepairedByStream cuts a Revision at every store call after its
// transaction (and at the transaction itself, applied with its answer lost): the marker
// stays, and once the stream's records have gone through the consumer the minima and
// maxima equal a recomputation from the remaining traces and no marker is left.
func TestFaultAfterTransactionRepairedByStream(t *testing.T) {
	for _, tc := range revisions {
		t.Run(tc.name, func(t *testing.T) {
			healthy := newFixture(t)
			ft := storefault.New(healthy.db)
			if err := healthy.revision(t, 3, tc.change).Apply(t.Context(), ft); err != nil {
				t.Fatal(err)
			}
			calls := ft.Calls()
			tx := -1
			for i, c := range calls {
				if c.Op == storefault.OpTransact {
					tx = i + 1
				}
			}
			if tx < 0 {
				t.Fatal("no transaction")
			}
			for at := tx; at <= len(calls); at++ {
				t.Run(fmt.Sprintf("call %d %s", at, calls[at-1].Op), func(t *testing.T) {
					f := newFixture(t)
					fault := storefault.Fault{At: at, Err: storefault.ErrInjected, Applied: at == tx}
					err := f.revision(t, 3, tc.change).Apply(t.Context(), storefault.New(f.db, fault))
					last := at == len(calls) // the marker's delete: the revision stands
					if last != (err == nil) {
						t.Fatalf("Apply: %v", err)
					}
					if len(f.markers(t)) != 1 {
						t.Fatalf("%d markers after the fault, want 1", len(f.markers(t)))
					}
					c := stream.NewConsumer(nil, records.NewRepairer(f.db, nil))
					if failed := c.Handle(t.Context(), f.stream()); len(failed) > 0 {
						t.Fatalf("repairer failed on %v", failed)
					}
					if bad := f.inexact(t); len(bad) > 0 {
						t.Errorf("extremes after the stream:\n%s", strings.Join(bad, "\n"))
					}
					if m := f.markers(t); len(m) > 0 {
						t.Errorf("%d markers left after the stream", len(m))
					}
				})
			}
		})
	}
}

// TestRepairRedelivered: a marker's record delivered again (the stream is at least once)
// finds the repair done and writes nothing; a repair that fails is reported for
// redelivery and the marker stays.
func TestRepairRedelivered(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	// The recompute's scan fails: the transaction stands, its repair is left to the stream.
	cut := storefault.New(f.db, storefault.Fault{Op: storefault.OpQuery, Err: storefault.ErrInjected, Sticky: true})
	if err := f.revision(t, 3, nil).Apply(ctx, cut); err == nil {
		t.Fatal("Apply succeeded without its scan")
	}
	records := f.stream()

	broken := storefault.New(f.db, storefault.Fault{Op: storefault.OpQuery, Err: storefault.ErrInjected})
	if failed := stream.NewConsumer(nil, newRepairer(broken)).Handle(ctx, records); len(failed) != 1 {
		t.Fatalf("a failing repair reported %v, want its record", failed)
	}
	if len(f.markers(t)) != 1 {
		t.Fatal("the marker went with a failed repair")
	}

	for round := 1; round <= 2; round++ {
		ft := storefault.New(f.db)
		if failed := stream.NewConsumer(nil, newRepairer(ft)).Handle(ctx, records); len(failed) > 0 {
			t.Fatalf("delivery %d: failed on %v", round, failed)
		}
		writes := 0
		for _, c := range ft.Calls() {
			if c.Op.Writes() {
				writes++
			}
		}
		if round == 2 && writes > 0 {
			t.Errorf("delivery %d wrote %d times, want nothing", round, writes)
		}
		if bad := f.inexact(t); len(bad) > 0 {
			t.Errorf("delivery %d: extremes:\n%s", round, strings.Join(bad, "\n"))
		}
		if len(f.markers(t)) > 0 {
			t.Errorf("delivery %d: marker left", round)
		}
	}
}

func newRepairer(t store.Table) *records.Repairer { return records.NewRepairer(t, nil) }

// TestRepairExtremesAbsentMarker: a marker already gone is a finished repair.
func TestRepairExtremesAbsentMarker(t *testing.T) {
	f := newFixture(t)
	if err := records.RepairExtremes(t.Context(), f.db, store.ExtremesRepairKey(f.run.ID, "gone")); err != nil {
		t.Fatal(err)
	}
}
