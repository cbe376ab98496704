package records

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/evalobs/evalapi/shared/store"
)

// Span scores: a span's item holds no roll-ups (its metrics are not counted in the run's
// roll-ups), so its value and its claim are one transaction on the condition that the span
// is still what was read; the trace then gets the roll-up of its spans' values by the
// scorer's roll_up_strategy, recomputed from all of them (a set, not an add: idempotent).

// WriteSpanScore applies w to a span (w.Key is the span's key): false, and nothing written,
// when w's claim exists or there was nothing to change.
func WriteSpanScore(ctx context.Context, t store.Table, w ScoreWrite) (bool, error) {
	for range scoreAttempts {
		it, err := w.Read, error(nil)
		w.Read = nil
		if it == nil {
			it, err = t.Get(ctx, w.Key, true)
		}
		if errors.Is(err, store.ErrNotFound) {
			return false, ErrScoreRecordGone
		}
		if err != nil {
			return false, fmt.Errorf("write span score: read span: %w", err)
		}
		var sp store.Span
		if err := store.DecodeSpan(it, &sp, true); err != nil {
			return false, err
		}
		metrics, changed := merged(sp.Metrics, w.Values)
		if !changed && w.Claim == nil {
			return false, nil
		}
		sp.Metrics = metrics
		after, err := store.SpanItem(sp)
		if err != nil {
			return false, err
		}
		for k, v := range it { // attributes the span's item carries beside its own (payload pointers are in content)
			if _, ok := after[k]; !ok && k != "doc" && k != "content" {
				after[k] = v
			}
		}
		doc, _ := it["doc"].(string)
		ops := []store.Op{store.PutOp(after, store.Equals("doc", doc))}
		if w.Claim != nil {
			ops = append(ops, store.PutOp(store.ScoreClaimItem(*w.Claim, firstName(w.Values)), store.NotExists()))
		}
		ops = append(ops, w.Extra...)
		err = t.Transact(ctx, ops)
		if err == nil {
			return true, nil
		}
		var tx *store.TxCanceledError
		if !errors.As(err, &tx) {
			return false, fmt.Errorf("write span score: %w", err)
		}
		if w.Claim != nil && len(tx.Reasons) > 1 && tx.Reasons[1] == "ConditionalCheckFailed" {
			return false, nil
		}
		if !errors.Is(err, store.ErrConditionFailed) && !errors.Is(err, store.ErrConflict) {
			return false, fmt.Errorf("write span score: %w", err)
		}
	}
	return false, fmt.Errorf("write span score on %v: %w", w.Key, ErrRevised)
}

// merged is metrics with values set (a state-only value never hides a result, an external
// value replaces only one it supersedes).
func merged(metrics, values map[string]store.MetricValue) (map[string]store.MetricValue, bool) {
	out := make(map[string]store.MetricValue, len(metrics)+len(values))
	for k, v := range metrics {
		out[k] = v
	}
	changed := false
	for name, v := range values {
		cur, has := metrics[name]
		if !v.HasResult() && has && (cur.HasResult() || cur.State == v.State) {
			continue
		}
		if has && !v.Supersedes(cur) {
			continue // an external judgment older than the one held (docs/OTEL.md)
		}
		out[name] = v
		changed = true
	}
	return out, changed
}

// Roll-up strategies of a span scorer's values onto its trace (§2.8 roll_up_strategy).
const (
	RollUpAvg   = "avg"
	RollUpSum   = "sum"
	RollUpFirst = "first"
	RollUpLast  = "last"
	RollUpNone  = "none"
)

// RollUpSpanScores sets the trace's value of metric to the roll-up of its spans' values by
// strategy: avg and sum of numbers and booleans (true = 1), first and last by creation
// time of any value; errors and states are left out; no value, or strategy none, writes
// nothing. The trace is found by its id claim (runID, traceID). The write is a Revision of
// the trace like any score's, with the net change of its roll-ups: redone from scratch, it
// changes nothing. After writing, the spans are read again, and the roll-up redone if a
// concurrent span score came meanwhile, so the last writer leaves the right value.
func RollUpSpanScores(ctx context.Context, t store.Table, runID, traceID, metric, strategy string) error {
	if strategy == RollUpNone {
		return nil
	}
	claim, err := t.Get(ctx, store.RecordClaimKey(runID, traceID), true)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the trace is not stored (yet): its ingestion comes after its spans
	}
	if err != nil {
		return fmt.Errorf("roll up span scores: %w", err)
	}
	sk, _ := claim["record_sk"].(string)
	key := store.Key{PK: "RUN#" + runID, SK: sk}
	var last *store.MetricValue
	for range scoreAttempts {
		// Strongly: the re-read after a write must see a concurrent span score written before.
		spans, err := store.TraceSpansConsistent(ctx, t, traceID, false)
		if err != nil {
			return fmt.Errorf("roll up span scores: %w", err)
		}
		v, ok := rollUp(spans, metric, strategy)
		if !ok {
			return nil
		}
		if last != nil && sameValue(*last, v) {
			return nil
		}
		if _, err := WriteScore(ctx, t, ScoreWrite{Key: key, Values: map[string]store.MetricValue{metric: v}}); err != nil {
			if errors.Is(err, ErrScoreRecordGone) {
				return nil
			}
			return err
		}
		last = &v
	}
	return fmt.Errorf("roll up span scores of trace %s: %w", traceID, ErrRevised)
}

func sameValue(a, b store.MetricValue) bool {
	switch {
	case a.Number != nil && b.Number != nil:
		return *a.Number == *b.Number
	case a.Category != nil && b.Category != nil:
		return *a.Category == *b.Category
	case a.Bool != nil && b.Bool != nil:
		return *a.Bool == *b.Bool
	}
	return false
}

func rollUp(spans []store.Span, metric, strategy string) (store.MetricValue, bool) {
	sort.Slice(spans, func(i, j int) bool {
		if !spans[i].CreatedAt.Equal(spans[j].CreatedAt) {
			return spans[i].CreatedAt.Before(spans[j].CreatedAt)
		}
		return spans[i].ID < spans[j].ID
	})
	var vals []store.MetricValue
	for _, sp := range spans {
		if v, ok := sp.Metrics[metric]; ok && v.HasResult() && v.Error == nil {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return store.MetricValue{}, false
	}
	n := len(vals)
	expl := fmt.Sprintf("%s of %d span values", strategy, n)
	switch strategy {
	case RollUpFirst:
		v := vals[0]
		v.Explanation, v.JudgedAt = expl, 0 // the trace's value is a roll-up, not a judgment
		return v, true
	case RollUpLast:
		v := vals[n-1]
		v.Explanation, v.JudgedAt = expl, 0
		return v, true
	}
	sum, count := 0.0, 0
	for _, v := range vals {
		switch {
		case v.Number != nil:
			sum += *v.Number
			count++
		case v.Bool != nil:
			if *v.Bool {
				sum++
			}
			count++
		}
	}
	if count == 0 {
		return store.MetricValue{}, false // labels have no avg or sum
	}
	if strategy != RollUpSum {
		sum /= float64(count)
	}
	src := vals[0].Source // the roll-up of one source's values is that source's (external ones stay marked)
	for _, v := range vals {
		if v.Source != src {
			src = ""
		}
	}
	return store.MetricValue{Number: &sum, Explanation: expl, Source: src}, true
}
