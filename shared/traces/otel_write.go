package traces

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// Writing OTLP spans. One OTel trace id is one trace of the run; every OTel span is one
// span, the root's parent being the trace, which also takes the root's name, content,
// status and time. Exporters batch by time, so a trace's spans come in several exports,
// children usually before their root: the first export of a trace stores it as a
// placeholder (not complete, metadata otel.placeholder, created at its earliest span) that
// holds them, and the export that brings the root turns it into the real trace, moved to
// the root's start time.
//
// Every write is idempotent: ids are functions of the run and the OTel ids, spans are
// plain puts of the same items, and a stored trace's counts (spans, tokens) are computed
// from its spans as stored, not added, in a revision conditioned on the trace as read. A
// retried or repeated export finds everything stored and writes nothing.

// otelPlaceholder marks a trace whose root span has not arrived.
const otelPlaceholder = "otel.placeholder"

// otelTrace is what one export holds of one trace.
type otelTrace struct {
	id      string
	ids     otlp.IDs // of the trace's run, which name its spans
	session *string
	ext     *store.LogSession // the session its session.id names, created with the trace
	spans   []otlp.Mapped
	seen    map[string]bool // span ids
	evals   []otlp.Evaluation
	rollups map[string]string // metric key of an external value: its roll-up strategy
	changed map[string]bool   // metric keys of external values this export changed
}

// otelGroup groups the mapped spans of a run by trace, in their order of first appearance.
func otelGroup(ids otelIDs, run store.Run, res []otlp.KeyValue, spans []otlp.Span, into map[string]*otelTrace, order *[]string, now time.Time) {
	group := func(id string) *otelTrace {
		g := into[id]
		if g == nil {
			g = &otelTrace{id: id, ids: ids.IDs, seen: map[string]bool{}}
			into[g.id] = g
			*order = append(*order, g.id)
		}
		return g
	}
	for i := range spans {
		evals := otlp.Evaluations(&spans[i])
		if otlp.IsEvaluationCarrier(&spans[i]) { // a judgment, not a step: not stored
			if len(evals) > 0 {
				g := group(ids.Trace(spans[i].TraceID))
				g.evals = append(g.evals, evals...)
			}
			continue
		}
		m := ids.Map(res, &spans[i])
		m.Span.ProjectID, m.Span.OrgID = run.ProjectID, run.OrgID
		g := group(m.Span.TraceID)
		g.evals = append(g.evals, evals...)
		if g.seen[m.Span.ID] {
			continue // the same span twice in one export is stored once
		}
		g.seen[m.Span.ID] = true
		if g.session == nil {
			if ext := sessionAttr(&spans[i]); ext != "" {
				s := ids.session(run, ext, now)
				g.session, g.ext = &s.ID, &s
			}
		}
		g.spans = append(g.spans, m)
	}
}

// sessionAttr is the conversation a span belongs to (OpenInference session.id, GenAI
// gen_ai.conversation.id).
func sessionAttr(s *otlp.Span) string {
	for _, kv := range s.Attrs {
		if (kv.Key == "session.id" || kv.Key == "gen_ai.conversation.id") && kv.Value.Kind == otlp.KindString && kv.Value.Str != "" {
			return kv.Value.Str
		}
	}
	return ""
}

// otelWrite stores the traces of one run.
func (h *handlers) otelWrite(ctx context.Context, run store.Run, groups map[string]*otelTrace, order []string) error {
	for _, id := range order {
		if len(groups[id].evals) == 0 {
			continue
		}
		key, err := h.otelEvalKey(ctx, run) // read once, only for an export with judgments
		if err != nil {
			return err
		}
		for _, id := range order {
			otelApplyEvals(run, groups[id], key, h.Now().UTC())
		}
		break
	}
	claims := make([]store.Key, len(order))
	for i, id := range order {
		claims[i] = store.RecordClaimKey(run.ID, id)
	}
	found, err := h.Table.BatchGet(ctx, claims, true)
	if err != nil {
		return fmt.Errorf("otlp: read claims: %w", err)
	}
	claimed := map[string]store.Item{}
	for _, it := range found {
		claimed[it.Key().PK] = it
	}
	var fresh []store.Trace
	sessions := map[string]store.LogSession{}
	var stored []string
	for _, id := range order {
		if _, ok := claimed[store.RecordClaimKey(run.ID, id).PK]; ok {
			stored = append(stored, id)
			continue
		}
		g := groups[id]
		tr := otelNewTrace(run, g, h.Stamp())
		fresh = append(fresh, tr)
		if g.ext != nil {
			sessions[g.ext.ID] = *g.ext
		}
	}
	if len(fresh) > 0 {
		if err := h.offloadTraces(ctx, run, fresh); err != nil {
			return err
		}
		n, err := records.IngestWithSessions(ctx, h.Table, run, fresh, h.Now().UTC(), sessions)
		if err != nil {
			return writeError(err)
		}
		if n < len(fresh) { // a concurrent export stored some first: merge into them
			for _, tr := range fresh {
				stored = append(stored, tr.ID)
			}
		}
		for _, tr := range fresh { // their spans' external values are new: the trace rolls them up
			g := groups[tr.ID]
			for k := range g.rollups {
				g.markChanged(k)
			}
		}
	}
	items, err := h.otelTraceItems(ctx, run, stored, claimed)
	if err != nil {
		return err
	}
	for _, id := range stored {
		claim := claimed[store.RecordClaimKey(run.ID, id).PK]
		item := items[id]
		if claim != nil && item == nil {
			continue // the trace was deleted: its id stays claimed and its spans are dropped
		}
		// The claims and items read above start the merge (a claim made since is read then).
		if err := h.otelMerge(ctx, run, groups[id], claim, item); err != nil {
			return err
		}
	}
	for _, id := range order {
		if err := h.otelRollUp(ctx, run, groups[id]); err != nil {
			return err
		}
	}
	return nil
}

// otelNewTrace is the trace a first export of it makes: the real one when the root is
// there, else a placeholder.
func otelNewTrace(run store.Run, g *otelTrace, now time.Time) store.Trace {
	root := rootOf(g.spans)
	session := g.session
	if session == nil && root != nil { // a placeholder's session waits for its root
		s := records.ImplicitSessionID(run.ID, g.id)
		session = &s
	}
	tr := store.Trace{ID: g.id, Type: "trace", SessionID: session, RunID: run.ID, ProjectID: run.ProjectID, OrgID: run.OrgID}
	spans := make([]store.Span, len(g.spans))
	for i, m := range g.spans {
		spans[i] = m.Span
	}
	setDepths(g.id, spans, nil)
	for i := range spans {
		spans[i].SessionID = session
	}
	tr.Spans = spans
	if root != nil {
		applyRoot(&tr, root)
	} else {
		tr.CreatedAt = spans[0].CreatedAt
		for _, sp := range spans {
			if sp.CreatedAt.Before(tr.CreatedAt) {
				tr.CreatedAt = sp.CreatedAt
			}
		}
		tr.Metadata = map[string]string{otelPlaceholder: "true", "otel.trace_id": g.spans[0].Span.Metadata["otel.trace_id"]}
	}
	tallySpans(&tr, spans)
	return tr
}

func rootOf(spans []otlp.Mapped) *otlp.Mapped {
	for i := range spans {
		if spans[i].Root {
			return &spans[i]
		}
	}
	return nil
}

// applyRoot makes tr the trace of its root span.
func applyRoot(tr *store.Trace, root *otlp.Mapped) {
	sp := root.Span
	tr.Name, tr.CreatedAt, tr.IsComplete, tr.StatusCode = sp.Name, sp.CreatedAt, true, sp.StatusCode
	tr.LatencyMs = sp.LatencyMs
	tr.Metadata = maps.Clone(sp.Metadata)
	tr.Input, tr.Output = traceText(sp.Input, "user"), traceText(sp.Output, "assistant")
	tr.ErrorMessage = nil
	if root.ErrorMsg != "" {
		msg := root.ErrorMsg
		tr.ErrorMessage = &msg
	}
}

// traceText is a span's content as a trace's (text): a string as is; of messages, the
// content of the last one of role; anything else as JSON text. A string that holds a
// message list (an agent or workflow root keeps its messages as text: the 2026
// conventions put gen_ai.input.messages on invoke_agent) is read as those messages.
func traceText(c store.Content, role string) store.Content {
	if c.IsNull() {
		return c
	}
	if c[0] == '"' {
		var s string
		if json.Unmarshal(c, &s) != nil || !strings.HasPrefix(s, "[{") {
			return c
		}
		if out := traceText(store.Content(s), role); !bytes.Equal(out, store.StringContent(s)) {
			return out
		}
		return c
	}
	var msgs []map[string]any
	if c[0] == '{' {
		var m map[string]any
		if json.Unmarshal(c, &m) == nil {
			msgs = []map[string]any{m}
		}
	} else if json.Unmarshal(c, &msgs) != nil {
		msgs = nil
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if r, _ := msgs[i]["role"].(string); r == role {
			if s, ok := msgs[i]["content"].(string); ok {
				return store.StringContent(s)
			}
		}
	}
	return store.StringContent(string(c))
}

// tallySpans sets the trace's counts from all its spans: the number, whether it has any,
// and the tokens and cost of its llm spans.
func tallySpans(tr *store.Trace, spans []store.Span) {
	tr.NumSpans, tr.HasChildren = int64(len(spans)), len(spans) > 0
	var in, out, total int64
	var cost float64
	var any, anyCost bool
	for _, sp := range spans {
		if sp.Type != "llm" {
			continue
		}
		for _, p := range []struct {
			v   *int64
			sum *int64
		}{{sp.InputTokens, &in}, {sp.OutputTokens, &out}, {sp.TotalTokens, &total}} {
			if p.v != nil {
				*p.sum += *p.v
				any = true
			}
		}
		if sp.TotalCost != nil {
			cost, anyCost = cost+*sp.TotalCost, true
		}
	}
	tr.InputTokens, tr.OutputTokens, tr.TotalTokens, tr.TotalCost = nil, nil, nil, nil
	if any {
		tr.InputTokens, tr.OutputTokens, tr.TotalTokens = &in, &out, &total
	}
	if anyCost {
		tr.TotalCost = &cost
	}
}

// setDepths sets the depth and has_children of spans (new ones) given the trace's stored
// spans: a root is at depth 1, a child one below its parent; a span whose parent has not
// arrived is taken for a child of the root (depth 2).
func setDepths(traceID string, spans []store.Span, stored []store.Span) {
	byID := map[string]*store.Span{}
	children := map[string]bool{}
	for i := range stored {
		byID[stored[i].ID] = &stored[i]
		children[stored[i].ParentID] = true
	}
	for i := range spans {
		byID[spans[i].ID] = &spans[i]
		children[spans[i].ParentID] = true
	}
	var depth func(sp *store.Span, n int) int64
	depth = func(sp *store.Span, n int) int64 {
		if sp.ParentID == traceID {
			return 1
		}
		p := byID[sp.ParentID]
		if p == nil || n > maxDepth {
			return 2
		}
		if p.Depth > 0 {
			return p.Depth + 1
		}
		return depth(p, n+1) + 1
	}
	for i := range spans {
		spans[i].Depth = 0
	}
	for i := range spans {
		spans[i].Depth = depth(&spans[i], 0)
		spans[i].HasChildren = children[spans[i].ID]
	}
}
