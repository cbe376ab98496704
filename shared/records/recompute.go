package records

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// Recomputing a bucket's extremes from its traces: what a Revision does after its
// transaction for the buckets a removed value may have bounded, and what the stream's
// Repairer does for every bucket a marker names.

// maxExtremeRounds bounds the recomputes of one bucket that lose a race to a writer.
const maxExtremeRounds = 8

// recomputeExtremes sets the min and max of each referenced metric and item from the traces
// of its period: the minimum and maximum of the values the bucket's traces hold now. Each
// item's write is conditioned on its trace count being what the scan saw and on its
// revisions being what they were before the scan (a value revised in place leaves the count
// as it was), and redone when either moved.
func recomputeExtremes(ctx context.Context, t store.Table, runID string, refs []rollupRef) error {
	type period struct {
		level  store.RollupLevel
		minute time.Time
	}
	byPeriod := map[period][]rollupRef{}
	for _, r := range refs {
		p := period{r.level, r.minute}
		byPeriod[p] = append(byPeriod[p], r)
	}
	for p, rs := range byPeriod {
		if err := recomputePeriod(ctx, t, runID, p.level, p.minute, rs); err != nil {
			return err
		}
	}
	return nil
}

func recomputePeriod(ctx context.Context, t store.Table, runID string, level store.RollupLevel, minute time.Time, refs []rollupRef) error {
	for round := 0; round < maxExtremeRounds; round++ {
		revs, err := rollupRevisions(ctx, t, runID, refs)
		if err != nil {
			return err
		}
		var traces []store.Trace
		err = store.ScanTraces(ctx, t, runID, minute, minute.Add(level.Period()), store.ScanOptions{}, func(tr *store.Trace) error {
			traces = append(traces, *tr)
			return nil
		})
		if err != nil {
			return fmt.Errorf("recompute extremes: %w", err)
		}
		fresh := map[store.Key]store.Rollup{}
		for _, d := range rollupDeltas(traces) {
			if d.Level == level {
				fresh[store.RollupKey(runID, d.Level, d.Group, d.Minute, d.Value)] = d
			}
		}
		raced := false
		done := map[store.Key]bool{}
		for _, r := range refs {
			k := store.RollupKey(runID, r.level, r.group, r.minute, r.value)
			if done[k] {
				continue
			}
			done[k] = true
			d := fresh[k]
			u := store.Update{Key: k, Set: map[string]any{}, Conds: []store.Cond{store.Equals("n", d.Count)}}
			if d.Count == 0 {
				u.Conds = []store.Cond{store.Exists()}
			}
			if v, ok := revs[k]; ok {
				u.Conds = append(u.Conds, store.Equals(store.RollupRevisions, v))
			} else {
				u.Conds = append(u.Conds, store.AttrAbsent(store.RollupRevisions))
			}
			for _, rr := range refs {
				if store.RollupKey(runID, rr.level, rr.group, rr.minute, rr.value) != k {
					continue
				}
				mn, mx := store.ExtremeAttrs(rr.metric)
				if m := d.Metrics[rr.metric]; m != nil && m.Min != nil {
					u.Set[mn], u.Set[mx] = m.Min.String(), m.Max.String()
				} else if !containsAttr(u.Remove, mn) {
					u.Remove = append(u.Remove, mn, mx)
				}
			}
			if len(u.Set) == 0 {
				u.Set = nil
			}
			if _, err := t.Update(ctx, u); err != nil {
				if errors.Is(err, store.ErrConditionFailed) {
					raced = true
					continue
				}
				return fmt.Errorf("recompute extremes of %v: %w", k, err)
			}
		}
		if !raced {
			return nil
		}
	}
	return fmt.Errorf("recompute extremes: %w", store.ErrConflict)
}

// rollupRevisions reads the revision counts of the items refs name, strongly: what a
// recompute's writes are conditioned on. Items without one are left out.
func rollupRevisions(ctx context.Context, t store.Table, runID string, refs []rollupRef) (map[store.Key]any, error) {
	items, err := rollupItems(ctx, t, runID, refs)
	if err != nil {
		return nil, err
	}
	revs := make(map[store.Key]any, len(items))
	for k, it := range items {
		if v, ok := it[store.RollupRevisions]; ok {
			revs[k] = v
		}
	}
	return revs, nil
}

func containsAttr(list []string, a string) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}
