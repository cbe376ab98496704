package traces

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// Merging an export into traces already stored (otel_write.go has the why): the spans they
// lack, the root's header for a placeholder, the counts from all their spans.

// otelTraceItems reads, in one batch, the items of the stored traces whose claims were read
// (the claim names the item's key), by trace id.
func (h *handlers) otelTraceItems(ctx context.Context, run store.Run, ids []string, claimed map[string]store.Item) (map[string]store.Item, error) {
	var keys []store.Key
	for _, id := range ids {
		if c := claimed[store.RecordClaimKey(run.ID, id).PK]; c != nil {
			sk, _ := c["record_sk"].(string)
			keys = append(keys, store.Key{PK: "RUN#" + run.ID, SK: sk})
		}
	}
	out := map[string]store.Item{}
	if len(keys) == 0 {
		return out, nil
	}
	found, err := h.Table.BatchGet(ctx, keys, true)
	if err != nil {
		return nil, fmt.Errorf("otlp: read traces: %w", err)
	}
	for _, it := range found {
		id, _ := it["trace_id"].(string)
		out[id] = it
	}
	return out, nil
}

// otelMerge adds what an export holds of a stored trace: the spans it does not have, its
// root's header when the trace is a placeholder, and the counts from all its spans.
// claim and item, when not nil, are the trace's claim and item as read just before.
func (h *handlers) otelMerge(ctx context.Context, run store.Run, g *otelTrace, claim, item store.Item) error {
	for range 8 {
		err := h.otelMergeOnce(ctx, run, g, claim, item)
		if !errors.Is(err, records.ErrRevised) {
			return err
		}
		claim, item = nil, nil // a lost race: read everything again
	}
	return errBusy
}

func (h *handlers) otelMergeOnce(ctx context.Context, run store.Run, g *otelTrace, claim, item store.Item) error {
	if claim == nil {
		var err error
		if claim, err = h.Table.Get(ctx, store.RecordClaimKey(run.ID, g.id), true); err != nil {
			return fmt.Errorf("otlp: read claim of %s: %w", g.id, err)
		}
	}
	if item == nil {
		sk, _ := claim["record_sk"].(string)
		var err error
		item, err = h.Table.Get(ctx, store.Key{PK: "RUN#" + run.ID, SK: sk}, true)
		if errors.Is(err, store.ErrNotFound) {
			return nil // the trace was deleted: its id stays claimed and its spans are dropped
		}
		if err != nil {
			return fmt.Errorf("otlp: read trace %s: %w", g.id, err)
		}
	}
	var before store.Trace
	if err := store.DecodeTrace(item, &before); err != nil {
		return err
	}
	if err := store.DecodeTraceContent(item, &before); err != nil {
		return err
	}
	var root *otlp.Mapped
	for i, m := range g.spans {
		if m.Root {
			root = &g.spans[i]
		}
	}
	placeholder := before.Metadata[otelPlaceholder] == "true"
	// A placeholder that had no session gets one with its root, and so do its spans (read
	// with their content, to be written again).
	session := before.SessionID
	newSession := root != nil && placeholder && session == nil
	if newSession {
		session = g.session
		if session == nil {
			s := records.ImplicitSessionID(run.ID, g.id)
			session = &s
		}
	}
	stored, docs, err := store.TraceSpansAsRead(ctx, h.Table, g.id, newSession)
	if err != nil {
		return err
	}
	have := make(map[string]*store.Span, len(stored))
	for i := range stored {
		have[stored[i].ID] = &stored[i]
	}
	var add []store.Span
	scores := map[string]map[string]store.MetricValue{} // stored span: its changed external values
	replaced := map[string]bool{}                       // placeholders the export's spans replace
	for _, m := range g.spans {
		prev := have[m.Span.ID]
		switch {
		case prev != nil && otlp.IsPending(prev) && !otlp.IsPending(&m.Span):
			// The span judged before it arrived takes its placeholder's place and values
			// (of a name both hold, the newer judgment's).
			sp := m.Span
			sp.SessionID = session
			if values := changedValues(prev.Metrics, sp.Metrics); len(values) > 0 {
				for k := range values {
					g.markChanged(k)
				}
			}
			sp.Metrics = mergedValues(prev.Metrics, sp.Metrics)
			add = append(add, sp)
			replaced[sp.ID] = true
		case prev != nil:
			if values := changedValues(prev.Metrics, m.Span.Metrics); len(values) > 0 {
				scores[prev.ID] = values
			}
		default:
			sp := m.Span
			sp.SessionID = session
			add = append(add, sp)
			for k := range sp.Metrics {
				g.markChanged(k)
			}
		}
	}
	stored = slices.DeleteFunc(stored, func(s store.Span) bool { return replaced[s.ID] })
	setDepths(g.id, add, stored)
	var puts []store.Span // every span written, parents first; each on the condition it is as read
	if newSession {
		if err := h.otelSession(ctx, run, session, g); err != nil {
			return err
		}
		parents := parentsOf(add)
		for i := range stored { // rewritten anyway: they learn they have children in the same put
			stored[i].SessionID = session
			stored[i].HasChildren = stored[i].HasChildren || parents[stored[i].ID]
		}
		puts = append(puts, stored...)
	}
	if err := h.otelMarkParents(ctx, stored, add); err != nil {
		return err
	}
	if len(add) > 0 {
		if err := h.offloadSpans(ctx, run.OrgID, run.ID, add); err != nil {
			return err
		}
		puts = append(puts, add...)
	}
	// A placeholder goes in only where no span is, and a span only where nothing or what
	// was read is: otherwise the merge starts again (otelPutSpans).
	if err := h.otelPutSpans(ctx, puts, docs); err != nil {
		return err
	}
	if err := h.otelScoreSpans(ctx, g, scores); err != nil {
		return err
	}
	after := before
	after.RecordContent = before.RecordContent
	if root != nil && placeholder {
		after.SessionID = session
		applyRoot(&after, root)
		if err := payload.Offload(ctx, h.Payloads, payload.Prefix(run.OrgID, run.ID, after.ID), &after.RecordContent); err != nil {
			return err
		}
	}
	tallySpans(&after, append(stored, add...))
	if otelSame(&before, &after) {
		return nil
	}
	now := h.Stamp()
	after.UpdatedAt = &now
	return records.Revision{RunID: run.ID, Before: &before, BeforeItem: item, After: &after, Now: now,
		SpansChange: after.NumSpans - before.NumSpans}.Apply(ctx, h.Table)
}

// otelSession creates the session a placeholder takes with its root (once: a retry finds
// it and counts nothing).
func (h *handlers) otelSession(ctx context.Context, run store.Run, id *string, g *otelTrace) error {
	s := store.LogSession{ID: *id, RunID: run.ID, ProjectID: run.ProjectID, OrgID: run.OrgID, CreatedAt: h.Stamp()}
	if g.ext != nil && g.ext.ID == *id {
		s.ExternalID = g.ext.ExternalID
	}
	if _, err := store.PutLogSession(ctx, h.Table, s); err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	return nil
}

// otelSame reports whether a merge changes nothing of the trace.
func otelSame(a, b *store.Trace) bool {
	x, _ := store.TraceItem(*a)
	y, _ := store.TraceItem(*b)
	return x.Key() == y.Key() && x["doc"] == y["doc"] && store.RawContent(x) == store.RawContent(y)
}

// otelMarkParents makes stored spans that the new spans are children of know they have
// children (a span's read lists its children only then). Each is a put conditioned on the
// span as read; setting the flag twice is the same item, so a retry is harmless.
func (h *handlers) otelMarkParents(ctx context.Context, stored, add []store.Span) error {
	parents := parentsOf(add)
	for _, sp := range stored {
		if !parents[sp.ID] || sp.HasChildren {
			continue
		}
		if err := h.otelMarkParent(ctx, store.SpanKey(sp.TraceID, sp.ID)); err != nil {
			return err
		}
	}
	return nil
}

// parentsOf are the ids of the spans' parents.
func parentsOf(spans []store.Span) map[string]bool {
	out := make(map[string]bool, len(spans))
	for _, sp := range spans {
		out[sp.ParentID] = true
	}
	return out
}

func (h *handlers) otelMarkParent(ctx context.Context, k store.Key) error {
	for range 8 {
		it, err := h.Table.Get(ctx, k, true)
		if err != nil {
			return fmt.Errorf("otlp: read span %v: %w", k, err)
		}
		op, err := markParent(it)
		if err != nil || op == nil {
			return err
		}
		err = h.Table.Transact(ctx, []store.Op{*op})
		if !errors.Is(err, store.ErrConditionFailed) {
			return err // nil, or a failure to report
		}
	}
	return errBusy
}
