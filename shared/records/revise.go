package records

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/store"
)

// Revising a stored trace (a PATCH, or a deletion): the trace's item changes on the
// condition that it is still what was read, and in the same transaction its roll-ups and
// the run summary lose its old contribution and gain its new one (counts and sums exactly,
// with negative ADDs). Minima and maxima cannot be subtracted: where the old value may have
// been a bucket's extreme, the extremes of that bucket are recomputed from its traces,
// written on the condition that no trace came, went or was revised meanwhile (the bucket's
// count and its revisions). That recompute follows the transaction; the transaction's
// repair marker (repair.go) makes sure it happens even when a failure cuts it off.

// ErrTooLarge answers a Revision that would move more roll-up rows than one transaction
// holds (each of a trace's tags, old and new, has a row per level): nothing is written.
var ErrTooLarge = errors.New("the change moves more roll-up rows than one transaction holds")

// ErrRevised answers a Revision that lost every race to other writers of the trace.
var ErrRevised = errors.New("the trace kept changing; retry")

// Revision is one change of a trace: after is nil for a deletion.
type Revision struct {
	RunID       string
	Before      *store.Trace
	BeforeItem  store.Item
	After       *store.Trace
	Now         time.Time
	ExtraOps    []store.Op // more actions of the same transaction (a deletion's claim, spans' markers)
	SpansChange int64      // spans added (positive) or removed (negative) with this change
}

// Apply commits the Revision and then repairs the extremes it may have invalidated: those
// of the buckets where a value left that may have been their min or max, and those where a
// new value may extend them. When that repair fails, the transaction's marker stays and the
// stream consumer completes it (Repairer).
func (rv Revision) Apply(ctx context.Context, t store.Table) error {
	ops, touched, repair, err := rv.ops()
	if err != nil {
		return err
	}
	var cur map[store.Key]store.Item
	if len(touched) > 0 { // the extremes as they stand, read before the write
		if cur, err = rollupItems(ctx, t, rv.RunID, touched); err != nil {
			return err
		}
	}
	if err := t.Transact(ctx, ops); err != nil {
		if errors.Is(err, store.ErrConditionFailed) {
			return fmt.Errorf("%w: %w", ErrRevised, err) // the cause says which action failed
		}
		return fmt.Errorf("revise trace %s: %w", rv.Before.ID, err)
	}
	// A value that came extends the extremes by a compare-and-set, as an ingestion does; a
	// value that left and was an extreme makes the bucket's extremes be recomputed.
	came := map[store.Key][]store.Extreme{}
	var order []store.Key
	for _, r := range touched {
		if r.left {
			continue
		}
		k := store.RollupKey(rv.RunID, r.level, r.group, r.minute, r.value)
		if came[k] == nil {
			order = append(order, k)
		}
		mn, mx := store.ExtremeAttrs(r.metric)
		came[k] = append(came[k], store.Extreme{Attr: mn, Value: r.moved, Min: true}, store.Extreme{Attr: mx, Value: r.moved})
	}
	for _, k := range order {
		if err := store.SetExtremes(ctx, t, k, cur[k], came[k]); err != nil {
			return err
		}
	}
	// The run summary's min and max take the new values too (operation 12's statistics need
	// both); a value that left is not recomputed there, so a summary's extremes may be wider
	// than its traces after a deletion or a lowered score.
	if rv.After != nil {
		if exs := cameExtremes(rv.RunID, rv.Before, rv.After); len(exs) > 0 {
			sk := store.RunSummaryKey(rv.RunID)
			cur, err := t.Get(ctx, sk, true)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("revise trace %s: %w", rv.Before.ID, err)
			}
			if err := store.SetExtremes(ctx, t, sk, cur, exs); err != nil {
				return err
			}
		}
	}
	if err := recomputeExtremes(ctx, t, rv.RunID, needRecompute(rv.RunID, touched, cur)); err != nil {
		return err
	}
	if repair != nil {
		// The repair is done. A marker that stays (this delete failed) only makes the
		// stream consumer do it again, idempotently: no reason to fail the revision.
		_ = t.Delete(ctx, *repair)
	}
	return nil
}

// rollupItems reads the roll-up items refs name, in one batch.
func rollupItems(ctx context.Context, t store.Table, runID string, refs []rollupRef) (map[store.Key]store.Item, error) {
	seen := map[store.Key]bool{}
	var keys []store.Key
	for _, r := range refs {
		k := store.RollupKey(runID, r.level, r.group, r.minute, r.value)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	items, err := t.BatchGet(ctx, keys, true)
	if err != nil {
		return nil, fmt.Errorf("revise: read roll-ups: %w", err)
	}
	out := make(map[store.Key]store.Item, len(items))
	for _, it := range items {
		out[it.Key()] = it
	}
	return out, nil
}

// needRecompute keeps the refs whose bucket must have its extremes recomputed: a value that
// left equals the bucket's min or max (or the bucket has none recorded), or a value that
// came lies on or outside them.
func needRecompute(runID string, refs []rollupRef, cur map[store.Key]store.Item) []rollupRef {
	var out []rollupRef
	for _, r := range refs {
		if !r.left {
			continue
		}
		it := cur[store.RollupKey(runID, r.level, r.group, r.minute, r.value)]
		if it == nil {
			out = append(out, r)
			continue
		}
		p, err := store.ParseRollup(it)
		m := p.Metrics[r.metric]
		if err != nil || m == nil || m.Min == nil || m.Max == nil ||
			r.moved.Cmp(*m.Min) <= 0 || r.moved.Cmp(*m.Max) >= 0 {
			out = append(out, r)
		}
	}
	return out
}

// ops builds the transaction: the trace's put (or delete) on its read doc, the net roll-up
// and summary deltas, and the repair marker. It returns the roll-up keys whose extremes must
// be recomputed and the marker's key (nil when there is none).
func (rv Revision) ops() ([]store.Op, []rollupRef, *store.Key, error) {
	doc, _ := rv.BeforeItem["doc"].(string)
	k := rv.BeforeItem.Key()
	var ops []store.Op
	if rv.After != nil {
		it, err := store.TraceItem(*rv.After)
		if err != nil {
			return nil, nil, nil, err
		}
		if it.Key() == k {
			ops = append(ops, store.PutOp(it, store.Equals("doc", doc)))
		} else {
			// A new creation time moves the trace (an OTLP placeholder its root arrived
			// for): the old item goes, the new one comes, and the id's claim names it.
			ops = append(ops, store.DeleteOp(k, store.Equals("doc", doc)), store.PutOp(it, store.NotExists()),
				store.PutOp(store.TraceClaim(rv.After.RunID, rv.After.ID, it.Key().SK)))
		}
	} else {
		ops = append(ops, store.DeleteOp(k, store.Equals("doc", doc)))
	}
	ops = append(ops, rv.ExtraOps...)

	net := map[bucket]*store.Rollup{}
	var order []bucket
	var touched []rollupRef
	newDeltas := map[bucket]store.Rollup{}
	if rv.After != nil {
		for _, d := range rollupDeltas([]store.Trace{*rv.After}) {
			newDeltas[bucketOf(d)] = d
		}
	}
	oldDeltas := map[bucket]store.Rollup{}
	for _, d := range rollupDeltas([]store.Trace{*rv.Before}) {
		oldDeltas[bucketOf(d)] = d
	}
	// A metric value that leaves a bucket, or comes to one, unless it is the same value.
	changed := func(from, to map[bucket]store.Rollup, left bool) {
		for kk, d := range from {
			for name, m := range d.Metrics {
				if m.N == 0 || m.Min == nil {
					continue
				}
				if o, ok := to[kk]; ok {
					if om := o.Metrics[name]; om != nil && om.Min != nil && om.Min.Cmp(*m.Min) == 0 {
						continue
					}
				}
				touched = append(touched, rollupRef{level: d.Level, group: d.Group, value: d.Value, minute: d.Minute,
					metric: name, moved: *m.Min, left: left})
			}
		}
	}
	changed(oldDeltas, newDeltas, true)
	changed(newDeltas, oldDeltas, false)
	add := func(d store.Rollup, old bool) {
		kk := bucketOf(d)
		if old {
			d = d.Negated()
		}
		if net[kk] == nil {
			net[kk] = &store.Rollup{Level: d.Level, Minute: d.Minute, Group: d.Group, Value: d.Value}
			order = append(order, kk)
		}
		net[kk].Plus(d)
	}
	for _, d := range rollupDeltas([]store.Trace{*rv.Before}) {
		add(d, true)
	}
	if rv.After != nil {
		for _, d := range rollupDeltas([]store.Trace{*rv.After}) {
			add(d, false)
		}
	}
	moved := map[bucket]bool{}
	for _, r := range touched {
		moved[bucket{r.level, r.group, r.value, r.minute}] = true
	}
	for _, kk := range order {
		d := net[kk]
		// The new values' extremes go in with the recompute below: a plain ADD here.
		for _, m := range d.Metrics {
			m.Min, m.Max = nil, nil
		}
		if !moved[kk] {
			// Counts and sums only; no revision of the item: a recompute under way cannot be
			// wrong for a value that neither was nor becomes an extreme of it, and counting
			// every revision of a busy hour would starve its recomputes.
			if !d.IsZero() {
				ops = append(ops, store.UpdateOp(store.RollupUpdate(rv.RunID, *d)))
			}
			continue
		}
		// One more revision of the item, which a recompute under way then sees.
		ops = append(ops, store.UpdateOp(store.RevisedRollupUpdate(rv.RunID, *d)))
	}
	sum := summaryDelta(rv.RunID, []store.Trace{*rv.Before}, 0).Negated()
	if rv.After != nil {
		sum.Plus(summaryDelta(rv.RunID, []store.Trace{*rv.After}, 0))
	}
	sum.NumSpans += rv.SpansChange
	ops = append(ops, store.UpdateOp(store.RunSummaryUpdate(rv.RunID, sum, rv.Now)))
	// The marker goes last: callers read the cancellation reasons of the actions before it.
	marker, err := rv.repairMarker(touched)
	if err != nil {
		return nil, nil, nil, err
	}
	var repair *store.Key
	if marker != nil {
		ops = append(ops, store.PutOp(marker, store.NotExists()))
		mk := marker.Key()
		repair = &mk
	}
	if len(ops) > store.MaxTransactItems {
		return nil, nil, nil, fmt.Errorf("%w: revise trace %s: %d actions, at most %d", ErrTooLarge, rv.Before.ID, len(ops), store.MaxTransactItems)
	}
	return ops, touched, repair, nil
}

// rollupRef names one metric of one roll-up item, with the value a Revision moves.
type rollupRef struct {
	level        store.RollupLevel
	group, value string
	minute       time.Time
	metric       string
	moved        fixed.Value
	left         bool // the value left the bucket (else it came)
}

// cameExtremes are the run summary's extremes of the values after holds that before did not
// (a metric that changed or came): only those can move the summary's min or max.
func cameExtremes(runID string, before, after *store.Trace) []store.Extreme {
	old := summaryDelta(runID, []store.Trace{*before}, 0)
	var out []store.Extreme
	for _, e := range store.RunSummaryExtremes(summaryDelta(runID, []store.Trace{*after}, 0)) {
		same := false
		for _, o := range store.RunSummaryExtremes(old) {
			if o.Attr == e.Attr && o.Value.Cmp(e.Value) == 0 {
				same = true
			}
		}
		if !same {
			out = append(out, e)
		}
	}
	return out
}
