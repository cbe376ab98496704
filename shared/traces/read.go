package traces

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/store"
)

// Reads of one record by id: a trace with its spans as a tree, a span (with its children),
// a session with its traces. A record of another project or organization is not found.

// recordPath is the input of a read of one record: its project and its id.
type recordPath struct{ projectID, id string }

// readRecordPath reads the project id and the record id (path parameter param) of a read.
func readRecordPath(param string) func(*base.Input) recordPath {
	return func(in *base.Input) (p recordPath) {
		p.projectID, _ = in.Path("project_id").UUID(4)
		p.id, _ = in.Path(param).UUID(0)
		return p
	}
}

// getTrace is GET /v2/projects/{project_id}/traces/{trace_id}: the trace and its spans,
// nested. The trace and its spans are read at once (one round trip deep).
func (h *handlers) getTrace(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readRecordPath("trace_id"))
	if err != nil {
		return err
	}
	c, projectID, id := call.Caller, call.In.projectID, call.In.id
	type got struct {
		spans []store.Span
		err   error
	}
	spans := make(chan got, 1)
	go func() {
		s, err := store.TraceSpans(r.Context(), h.Table, id, true)
		spans <- got{s, err}
	}()
	tr, err := h.traceByID(r.Context(), c, projectID, id)
	sg := <-spans
	if err != nil {
		return err
	}
	if sg.err != nil {
		return sg.err
	}
	if err := h.resolveAll(r.Context(), &tr, sg.spans); err != nil {
		return err
	}
	out := traceOut(&tr)
	out.Spans = tree(tr.ID, sg.spans)
	if err := fitTree(out, h.AnswerLimit); err != nil {
		return err
	}
	return writeRecord(w, out)
}

// traceByID reads a trace of the caller's project with its content, or answers 404.
func (h *handlers) traceByID(ctx context.Context, c auth.Caller, projectID, id string) (store.Trace, error) {
	it, err := store.RecordItem(ctx, h.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Trace{}, httpapi.NotFound("Trace")
	}
	if err != nil {
		return store.Trace{}, err
	}
	var tr store.Trace
	if it[store.AttrEntity] != store.EntityTrace || store.DecodeTrace(it, &tr) != nil ||
		tr.OrgID != c.OrgID || tr.ProjectID != projectID {
		return store.Trace{}, httpapi.NotFound("Trace")
	}
	return tr, store.DecodeTraceContent(it, &tr)
}

// getSpan is GET /v2/projects/{project_id}/spans/{span_id}: the span and its descendants.
func (h *handlers) getSpan(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readRecordPath("span_id"))
	if err != nil {
		return err
	}
	c, projectID, id := call.Caller, call.In.projectID, call.In.id
	sp, err := h.spanByID(r.Context(), c, projectID, id)
	if err != nil {
		return err
	}
	if err := payload.Resolve(r.Context(), h.Payloads, &sp.RecordContent); err != nil {
		return err
	}
	out := spanOut(&sp)
	if sp.HasChildren {
		spans, err := store.TraceSpans(r.Context(), h.Table, sp.TraceID, true)
		if err != nil {
			return err
		}
		if err := h.resolveAll(r.Context(), nil, spans); err != nil {
			return err
		}
		below := slices.DeleteFunc(slices.Clone(spans), func(s store.Span) bool { return !descends(spans, s.ID, sp.ID) })
		out.Spans = tree(sp.ID, below)
		if err := fitTree(out, h.AnswerLimit); err != nil {
			return err
		}
	}
	return writeRecord(w, out)
}

// descends reports whether span id has ancestor among spans.
func descends(spans []store.Span, id, ancestor string) bool {
	parent := map[string]string{}
	for _, s := range spans {
		parent[s.ID] = s.ParentID
	}
	for i := 0; i <= maxDepth && id != ""; i++ {
		if parent[id] == ancestor {
			return true
		}
		id = parent[id]
	}
	return false
}

// spanByID reads a span of the caller's project with its content, or answers 404.
func (h *handlers) spanByID(ctx context.Context, c auth.Caller, projectID, id string) (store.Span, error) {
	it, err := store.RecordItem(ctx, h.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Span{}, httpapi.NotFound("Span")
	}
	if err != nil {
		return store.Span{}, err
	}
	var sp store.Span
	if it[store.AttrEntity] != store.EntitySpan || store.DecodeSpan(it, &sp, true) != nil ||
		sp.OrgID != c.OrgID || sp.ProjectID != projectID {
		return store.Span{}, httpapi.NotFound("Span")
	}
	return sp, nil
}

// getSession is GET /v2/projects/{project_id}/sessions/{session_id}: the session and its
// traces (headers and content, without their spans), oldest first.
func (h *handlers) getSession(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readRecordPath("session_id"))
	if err != nil {
		return err
	}
	c, projectID, id := call.Caller, call.In.projectID, call.In.id
	s, err := h.sessionByID(r.Context(), c, projectID, id)
	if err != nil {
		return err
	}
	traces, err := store.SessionTraces(r.Context(), h.Table, s.ID, maxSessionTraces)
	if err != nil {
		return err
	}
	for i := range traces {
		if err := payload.Resolve(r.Context(), h.Payloads, &traces[i].RecordContent); err != nil {
			return err
		}
	}
	out := sessionOut(&s)
	out.Traces = make([]*recordOut, len(traces))
	for i := range traces {
		out.Traces[i] = traceOut(&traces[i])
	}
	out.NumTraces = intPtr(int64(len(traces)))
	out.HasChildren = boolPtr(len(traces) > 0)
	if len(traces) > 0 {
		out.Input, out.Output = orEmpty(traces[0].Input), traces[len(traces)-1].Output
	}
	if err := fitSession(out, h.AnswerLimit); err != nil {
		return err
	}
	return writeRecord(w, out)
}

// maxSessionTraces bounds the traces a session read returns; search the session's traces
// (a filter on session_id) for more.
const maxSessionTraces = 1000

// sortSpans orders siblings by step number when both have one, else by creation time, then id.
func sortSpans(s []*store.Span) {
	slices.SortStableFunc(s, func(a, b *store.Span) int {
		if a.StepNumber != nil && b.StepNumber != nil && *a.StepNumber != *b.StepNumber {
			return int(*a.StepNumber - *b.StepNumber)
		}
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return 0
	})
}

// writeRecord answers one record.
func writeRecord(w http.ResponseWriter, out *recordOut) error {
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// resolveAll resolves the payload pointers of a trace (when not nil) and spans.
func (h *handlers) resolveAll(ctx context.Context, tr *store.Trace, spans []store.Span) error {
	if tr != nil {
		if err := payload.Resolve(ctx, h.Payloads, &tr.RecordContent); err != nil {
			return err
		}
	}
	for i := range spans {
		if err := payload.Resolve(ctx, h.Payloads, &spans[i].RecordContent); err != nil {
			return err
		}
	}
	return nil
}
