package evaluate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// Spans are judged by the span-level scorers of the settings (those whose
// scoreable_node_types name the span's type) when they are created: with their trace's
// ingestion, or appended later to a trace judged before, which re-opens it for those
// scorers only (its trace-level scorers were judged and hold their claims). A span is
// written whole, so it is judged at once. The sampling decision is the trace's: (trace id,
// scorer id, rate), so a sampled trace has all its spans judged; a segment's filter is
// matched on the span (node_name: the span's name; metadata: its user metadata).

// isSpanInsert: a span created, or a placeholder replaced by its span (an external
// evaluator judged the span before it arrived: the span is new to the scorers then). A
// placeholder itself is never judged: it has no content.
func isSpanInsert(r stream.Record) bool {
	if r.New == nil || r.New[store.AttrEntity] != store.EntitySpan || store.IsPendingSpan(r.New) {
		return false
	}
	return r.Old == nil || store.IsPendingSpan(r.Old)
}

func (d *Dispatcher) dispatchSpan(ctx context.Context, r stream.Record, runs map[string]*store.Run, out *outbox) error {
	var sp store.Span
	if err := store.DecodeSpan(r.New, &sp, false); err != nil {
		d.log.Warn("dispatch: unreadable span, skipped", "key", r.New.Key().String())
		return nil
	}
	run, err := d.run(ctx, runs, sp.OrgID, sp.ProjectID, sp.RunID)
	if err != nil || run == nil {
		return err
	}
	pc, err := d.pacing(ctx, out, run)
	if err != nil {
		return err
	}
	plan := SpanPlanPaced(run, &sp, pc.paceFunc())
	pc.offer(plan.Offered)
	if len(plan.Marks) == 0 {
		return nil
	}
	if _, err := records.WriteSpanScore(ctx, d.table, records.ScoreWrite{Key: r.New.Key(), Values: plan.Marks, Now: d.now()}); err != nil {
		if errors.Is(err, records.ErrScoreRecordGone) {
			return nil
		}
		return fmt.Errorf("dispatch: mark span %s: %w", sp.ID, err)
	}
	bodies := make([][]byte, len(plan.Selected))
	for i, s := range plan.Selected {
		bodies[i] = Message{V: messageVersion, OrgID: sp.OrgID, ProjectID: sp.ProjectID, RunID: sp.RunID, Kind: KindSpan,
			RecordID: sp.ID, TraceID: sp.TraceID, CreatedAt: sp.CreatedAt, ScorerID: s.ID, ScorerVersion: pinned(s)}.encode()
	}
	out.add(r.ID, 0, bodies)
	return nil
}

// SpanPlan decides, for every scorer of run's settings that scores spans of sp's type,
// whether sp is judged.
func SpanPlan(run *store.Run, sp *store.Span) DispatchPlan { return SpanPlanPaced(run, sp, nil) }

// SpanPlanPaced is SpanPlan under the budget's pace (PlanPaced): the pace is read when the
// span is dispatched, so the spans of one trace written at different times may be paced
// differently.
func SpanPlanPaced(run *store.Run, sp *store.Span, pace func(scorerID string) float64) DispatchPlan {
	asTrace := &store.Trace{ID: sp.TraceID, Name: sp.Name, Metadata: sp.Metadata}
	return plan(run, asTrace, pace, func(sc store.ScorerConfig) bool { return slices.Contains(sc.ScoreableNodeTypes, sp.Type) })
}
