package purge_test

import (
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/purge"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// TestMovedTraceKeepsItsSpans: a trace moved to a new creation time (an OTLP placeholder
// its root arrived for) is removed and put again in one transaction that points its claim
// at the new key; the removal's stream record purges nothing. A trace deleted for real,
// whose claim still names the removed key, loses its spans.
func TestMovedTraceKeepsItsSpans(t *testing.T) {
	backends(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		at := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
		mk := func(id string, created time.Time) (store.Item, store.Trace) {
			tr := store.Trace{ID: id, RunID: "run-1", ProjectID: "p", OrgID: "o", CreatedAt: created, Type: "trace"}
			it, err := store.TraceItem(tr)
			if err != nil {
				t.Fatal(err)
			}
			return it, tr
		}
		spans := func(traceID string) int {
			sp, err := store.TraceSpansConsistent(ctx, tbl, traceID, false)
			if err != nil {
				t.Fatal(err)
			}
			return len(sp)
		}
		for _, id := range []string{"moved", "deleted"} {
			old, tr := mk(id, at.Add(time.Second))
			ops, _ := store.TracePutOps(tr)
			if err := tbl.Transact(ctx, ops); err != nil {
				t.Fatal(err)
			}
			if err := store.PutSpans(ctx, tbl, []store.Span{{ID: id + "-span", TraceID: id, ParentID: id, RunID: "run-1", CreatedAt: at}}); err != nil {
				t.Fatal(err)
			}
			if id == "moved" {
				moved, _ := mk(id, at)
				err := tbl.Transact(ctx, []store.Op{store.DeleteOp(old.Key()), store.PutOp(moved),
					store.PutOp(store.TraceClaim("run-1", id, moved.Key().SK))})
				if err != nil {
					t.Fatal(err)
				}
			} else if err := tbl.Delete(ctx, old.Key()); err != nil {
				t.Fatal(err)
			}
			if failed := purge.New(tbl, nil).Handle(ctx, []stream.Record{{ID: id, Old: old}}); len(failed) != 0 {
				t.Fatalf("%s: failed %v", id, failed)
			}
		}
		if n := spans("moved"); n != 1 {
			t.Errorf("the moved trace has %d spans, want 1", n)
		}
		if n := spans("deleted"); n != 0 {
			t.Errorf("the deleted trace has %d spans left", n)
		}
	})
}
