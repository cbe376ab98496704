package records_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// raceTable runs race once, just before the first update reaches the table: a writer that
// commits between a recompute's scan and its write.
type raceTable struct {
	store.Table
	once sync.Once
	race func()
}

func (r *raceTable) Update(ctx context.Context, u store.Update) (store.Item, error) {
	r.once.Do(r.race)
	return r.Table.Update(ctx, u)
}

// TestRecomputeSeesRevisionInPlace: a deletion's recompute scans the bucket, then another
// trace's value is revised in place (the bucket's count stays) before the recompute
// writes. The write must not stand on its stale scan: the extremes end equal to the traces.
func TestRecomputeSeesRevisionInPlace(t *testing.T) {
	f := newFixture(t)
	raise := f.revision(t, 2, func(tr *store.Trace) { v := 50.0; tr.LatencyMs = &v })
	rt := &raceTable{Table: f.db, race: func() {
		if err := raise.Apply(t.Context(), f.db); err != nil {
			t.Error(err)
		}
	}}
	if err := f.revision(t, 3, nil).Apply(t.Context(), rt); err != nil {
		t.Fatal(err)
	}
	if bad := f.inexact(t); len(bad) > 0 {
		t.Errorf("extremes:\n%s", strings.Join(bad, "\n"))
	}
}
