package records

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// The extremes of a Revision are exact once the stream has run. Its transaction creates a
// repair marker (store.ExtremesRepair) naming every bucket a value left or came to and the
// run summary's new extremes: the part of the work that only follows the transaction. Apply
// does that work at once and deletes the marker; a failure in between leaves the marker,
// and the table's stream consumer, which sees its creation, does the work again from the
// traces (Repairer) and deletes it. Between the two a read sees extremes that may be wider
// than the traces (a removed value still a bucket's min or max) or narrower (a new value
// not yet in them) for the stream's delay, seconds; counts and sums are exact throughout.

// repairMarker is the marker of the repair rv's transaction may leave undone, or nil when
// no value left or came (counts and sums are exact after the transaction alone). It names
// every touched bucket, not only those whose extremes the values read before suggest: the
// consumer recomputes from the traces whatever happened since.
func (rv Revision) repairMarker(touched []rollupRef) (store.Item, error) {
	var summary []store.Extreme
	if rv.After != nil {
		summary = cameExtremes(rv.RunID, rv.Before, rv.After)
	}
	if len(touched) == 0 && len(summary) == 0 {
		return nil, nil
	}
	m := store.ExtremesRepair{RunID: rv.RunID, ID: uuid.NewString(), OrgID: rv.Before.OrgID, Summary: summary, CreatedAt: rv.Now}
	at := map[store.Key]int{}
	for _, r := range touched {
		k := store.RollupKey(rv.RunID, r.level, r.group, r.minute, r.value)
		i, ok := at[k]
		if !ok {
			i = len(m.Buckets)
			at[k] = i
			m.Buckets = append(m.Buckets, store.RepairBucket{Level: r.level, Minute: r.minute, Group: r.group, Value: r.value})
		}
		if b := &m.Buckets[i]; !slices.Contains(b.Metrics, r.metric) {
			b.Metrics = append(b.Metrics, r.metric)
		}
	}
	return store.ExtremesRepairItem(m)
}

// RepairExtremes completes the repair the marker at k asks for and deletes the marker: the
// extremes of its buckets recomputed from their traces (on the condition that none came,
// went or was revised meanwhile), the summary's extremes set where they improve it. It is
// idempotent: a marker already gone (repaired by its revision, or by an earlier delivery)
// is done, and a repair done twice writes the same values.
func RepairExtremes(ctx context.Context, t store.Table, k store.Key) error {
	it, err := t.Get(ctx, k, true)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("repair extremes %v: %w", k, err)
	}
	m, err := store.ParseExtremesRepair(it)
	if err != nil {
		return err
	}
	var refs []rollupRef
	for _, b := range m.Buckets {
		for _, metric := range b.Metrics {
			refs = append(refs, rollupRef{level: b.Level, group: b.Group, value: b.Value, minute: b.Minute, metric: metric})
		}
	}
	if err := recomputeExtremes(ctx, t, m.RunID, refs); err != nil {
		return fmt.Errorf("repair extremes %v: %w", k, err)
	}
	if len(m.Summary) > 0 {
		sk := store.RunSummaryKey(m.RunID)
		cur, err := t.Get(ctx, sk, true)
		switch {
		case errors.Is(err, store.ErrNotFound):
			// The run was purged meanwhile: an update would create a summary of nothing.
		case err != nil:
			return fmt.Errorf("repair extremes %v: %w", k, err)
		default:
			if err := store.SetExtremes(ctx, t, sk, cur, m.Summary); err != nil {
				return fmt.Errorf("repair extremes %v: %w", k, err)
			}
		}
	}
	if err := t.Delete(ctx, k); err != nil {
		return fmt.Errorf("repair extremes %v: delete the marker: %w", k, err)
	}
	return nil
}

// Repairer is the stream handler that completes the repairs Revisions left: it takes the
// creation of each marker. Most markers are gone when it reads them (their revision
// finished the repair itself), which costs one read.
type Repairer struct {
	table store.Table
	log   *slog.Logger
}

// NewRepairer returns a handler repairing on table that logs to log (discarded when nil).
func NewRepairer(table store.Table, log *slog.Logger) *Repairer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Repairer{table: table, log: log}
}

// Accepts takes the creation of a repair marker.
func (h *Repairer) Accepts(r stream.Record) bool {
	return r.Old == nil && r.New != nil && store.IsExtremesRepair(r.New)
}

// Handle repairs what each record's marker asks for, and returns the IDs of the records it
// could not finish (their redelivery repairs again, idempotently).
func (h *Repairer) Handle(ctx context.Context, records []stream.Record) []string {
	var failed []string
	for _, r := range records {
		if err := RepairExtremes(ctx, h.table, r.New.Key()); err != nil {
			h.log.ErrorContext(ctx, "extremes repair failed", "record", r.ID, "marker", r.New.Key().String(), "error", err.Error())
			failed = append(failed, r.ID)
		}
	}
	return failed
}
