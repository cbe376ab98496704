package records

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// Revisions for the background writers (the experiment runner, the evaluator), with the
// same exactness as PATCH and the delete route: a trace's counts and roll-ups move with it.

// traceByClaim reads trace id of a run through its id claim, strongly; ErrNotFound when the
// run never stored it or it was deleted.
func traceByClaim(ctx context.Context, t store.Table, runID, id string) (store.Trace, store.Item, error) {
	claim, err := t.Get(ctx, store.RecordClaimKey(runID, id), true)
	if err != nil {
		return store.Trace{}, nil, err
	}
	sk, _ := claim["record_sk"].(string)
	it, err := t.Get(ctx, store.Key{PK: "RUN#" + runID, SK: sk}, true)
	if err != nil {
		return store.Trace{}, nil, err
	}
	var tr store.Trace
	if err := store.DecodeTrace(it, &tr); err != nil {
		return store.Trace{}, nil, err
	}
	return tr, it, store.DecodeTraceContent(it, &tr)
}

// reviseByID applies change to trace id of a run until it does not lose a race; a trace
// that is not stored is done (nil).
func reviseByID(ctx context.Context, t store.Table, runID, id string, now time.Time, change func(tr *store.Trace) bool) error {
	for range 8 {
		before, it, err := traceByClaim(ctx, t, runID, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("revise trace %s: %w", id, err)
		}
		rv := Revision{RunID: runID, Before: &before, BeforeItem: it, Now: now, SpansChange: -before.NumSpans}
		if change != nil {
			after := before
			if !change(&after) {
				return nil
			}
			after.UpdatedAt = &now
			rv.After, rv.SpansChange = &after, 0
		}
		err = rv.Apply(ctx, t)
		if !errors.Is(err, ErrRevised) {
			return err
		}
	}
	return fmt.Errorf("revise trace %s: %w", id, ErrRevised)
}

// DeleteTrace removes trace id of a run with its contributions to the run's counts and
// roll-ups (the delete route's Revision); an absent trace is done.
func DeleteTrace(ctx context.Context, t store.Table, runID, id string, now time.Time) error {
	return reviseByID(ctx, t, runID, id, now, nil)
}

// SetTraceMetrics sets metric values on trace id of a run, moving its roll-ups and the run
// summary exactly (a value already equal is not written again); an absent trace is done.
func SetTraceMetrics(ctx context.Context, t store.Table, runID, id string, metrics map[string]store.MetricValue, now time.Time) error {
	return reviseByID(ctx, t, runID, id, now, func(tr *store.Trace) bool {
		changed := false
		for k, v := range metrics {
			if old, ok := tr.Metrics[k]; ok && sameMetricValue(old, v) {
				continue
			}
			if tr.Metrics == nil {
				tr.Metrics = map[string]store.MetricValue{}
			}
			tr.Metrics[k], changed = v, true
		}
		return changed
	})
}

func sameMetricValue(a, b store.MetricValue) bool {
	eqF := a.Number == nil && b.Number == nil || a.Number != nil && b.Number != nil && *a.Number == *b.Number
	eqC := a.Category == nil && b.Category == nil || a.Category != nil && b.Category != nil && *a.Category == *b.Category
	eqB := a.Bool == nil && b.Bool == nil || a.Bool != nil && b.Bool != nil && *a.Bool == *b.Bool
	return eqF && eqC && eqB && a.Error == nil && b.Error == nil
}

// RunnerTraces adapts Ingest and DeleteTrace to the experiment runner's trace port.
type RunnerTraces struct {
	Table store.Table
	Now   func() time.Time
}

// Write stores traces into run (idempotent by trace id).
func (r RunnerTraces) Write(ctx context.Context, run store.Run, traces []store.Trace) error {
	_, err := Ingest(ctx, r.Table, run, traces, r.now())
	return err
}

// Delete removes a trace of run with its counts.
func (r RunnerTraces) Delete(ctx context.Context, run store.Run, id string) error {
	return DeleteTrace(ctx, r.Table, run.ID, id, r.now())
}

func (r RunnerTraces) now() time.Time {
	if r.Now == nil {
		return time.Now().UTC()
	}
	return r.Now().UTC()
}
