package records

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/store"
)

// Writing evaluated metrics (shared/evaluate): a metric's value on a stored trace is a
// Revision of the trace like a PATCH, so the trace's item (on the condition that it is still
// what was read), its roll-ups, the run summary and the catalog's filled columns change in
// one transaction; a claim of the (record, scorer version) is one more action of it, created
// only if absent, so the value is counted exactly once whatever is delivered twice.

// ErrScoreRecordGone answers a score for a trace that no longer exists (deleted meanwhile).
var ErrScoreRecordGone = errors.New("the record to score no longer exists")

// ScoreWrite is one write of metric values on a stored trace.
type ScoreWrite struct {
	Key store.Key // the trace's key
	// Values are the metrics to set. A value that only holds a State (pending, skipped) is
	// written only where the trace holds no result for that metric yet.
	Values map[string]store.MetricValue
	// Claim, when set, is created in the same transaction and must not exist: the write is
	// done at most once per claim.
	Claim *store.Key
	Now   time.Time
	// Read, when set, is the trace's item as the caller just read it (strongly
	// consistently): the first attempt starts from it instead of reading it again.
	Read store.Item
	// Extra are more actions of the transaction that writes a claimed value (the judge's
	// usage), applied with it exactly once. They must not touch the trace, the claim, the
	// roll-ups, the run summary or the catalog's columns.
	Extra []store.Op
}

// scoreAttempts bounds the rounds lost to other writers of the trace.
const scoreAttempts = 8

// WriteScore applies w. It reports false, and writes nothing, when w's claim exists (the
// score was written before) or when there was nothing to change.
func WriteScore(ctx context.Context, t store.Table, w ScoreWrite) (bool, error) {
	for range scoreAttempts {
		it, err := w.Read, error(nil)
		w.Read = nil // a retry reads afresh
		if it == nil {
			it, err = t.Get(ctx, w.Key, true)
		}
		if errors.Is(err, store.ErrNotFound) {
			return false, ErrScoreRecordGone
		}
		if err != nil {
			return false, fmt.Errorf("write score: read trace: %w", err)
		}
		var before store.Trace
		if err := store.DecodeTrace(it, &before); err != nil {
			return false, err
		}
		if err := store.DecodeTraceContent(it, &before); err != nil {
			return false, err
		}
		after := before
		after.Metrics = make(map[string]store.MetricValue, len(before.Metrics)+len(w.Values))
		for k, v := range before.Metrics {
			after.Metrics[k] = v
		}
		var filled []string
		changed := false
		for name, v := range w.Values {
			cur, has := before.Metrics[name]
			if !v.HasResult() && has && (cur.HasResult() || cur.State == v.State) {
				continue // a mark never hides a result, nor repeats itself
			}
			after.Metrics[name] = v
			changed = true
			if v.HasResult() && v.Error == nil {
				filled = append(filled, columns.MetricPrefix+name)
			}
		}
		if !changed && w.Claim == nil {
			return false, nil
		}
		var extra []store.Op
		if w.Claim != nil {
			extra = append(extra, store.PutOp(store.ScoreClaimItem(*w.Claim, firstName(w.Values)), store.NotExists()))
		}
		if len(filled) > 0 {
			extra = append(extra, store.UpdateOp(store.ColumnsFilledUpdate(before.RunID, filled)))
		}
		extra = append(extra, w.Extra...)
		rv := Revision{RunID: before.RunID, Before: &before, BeforeItem: it, After: &after, Now: w.Now, ExtraOps: extra}
		err = rv.Apply(ctx, t)
		if err == nil {
			return true, nil
		}
		var tx *store.TxCanceledError
		if w.Claim != nil && errors.As(err, &tx) && len(tx.Reasons) > 1 && tx.Reasons[1] == "ConditionalCheckFailed" {
			return false, nil // the claim exists: written before
		}
		if !errors.Is(err, ErrRevised) {
			return false, err
		}
	}
	return false, fmt.Errorf("write score on %v: %w", w.Key, ErrRevised)
}

func firstName(values map[string]store.MetricValue) string {
	for name := range values {
		return name
	}
	return ""
}
