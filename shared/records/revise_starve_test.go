package records_test

import (
	"context"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// updateHook runs race before every Update: what other writers do between a recompute's
// reads and its conditional writes.
type updateHook struct {
	store.Table
	n    int
	race func(i int)
}

func (u *updateHook) Update(ctx context.Context, up store.Update) (store.Item, error) {
	u.n++
	u.race(u.n)
	return u.Table.Update(ctx, up)
}

// TestRevisionsMovingNoValueLeaveRecomputesAlone: while a deletion recomputes its buckets'
// extremes, another trace of the same minute is revised at every write in a way that moves
// no value (is_complete toggled). Such a revision is no revision of the buckets, so the
// recompute completes, leaves no marker and exact extremes. Before, every revision counted
// one on every bucket of its trace, and the recompute gave up after its rounds.
func TestRevisionsMovingNoValueLeaveRecomputesAlone(t *testing.T) {
	f := newFixture(t)
	del := f.revision(t, 0, nil)
	busy := &updateHook{Table: f.db, race: func(i int) {
		rv := f.revision(t, 2, func(tr *store.Trace) { tr.IsComplete = i%2 == 0 })
		if err := rv.Apply(t.Context(), f.db); err != nil {
			t.Error(err)
		}
	}}
	if err := del.Apply(t.Context(), busy); err != nil {
		t.Fatalf("the deletion under revisions that move no value: %v", err)
	}
	if busy.n == 0 {
		t.Fatal("the deletion recomputed nothing: the fixture no longer exercises the race")
	}
	if failed := stream.NewConsumer(nil, records.NewRepairer(f.db, nil)).Handle(t.Context(), f.stream()); len(failed) > 0 {
		t.Errorf("the repairer failed %d records", len(failed))
	}
	if m := f.markers(t); len(m) > 0 {
		t.Errorf("%d repair markers left", len(m))
	}
	if bad := f.inexact(t); len(bad) > 0 {
		t.Errorf("extremes:\n%s", strings.Join(bad, "\n"))
	}
}
