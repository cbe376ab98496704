package traces

import (
	"context"
	"errors"
	"net/http"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Updates of a logged trace or span (the client's LogTraceUpdateRequest and
// LogSpanUpdateRequest): the fields sent replace the stored ones; an update is not a
// duplicate, and a trace's changed latency, status, tags or metric values move its
// roll-ups (revise.go).

// recordPatch is what an update may change.
type recordPatch struct {
	run        runRef
	id         string // trace_id or span_id of the body, when sent
	input      store.Content
	output     store.Content
	statusCode *int64
	tags       []string
	tagsSent   bool
	isComplete *bool
	usage      store.Usage
	usageSent  bool
	metrics    map[string]store.MetricValue
	metadata   map[string]string
	name       *string
}

// patchInput is what a PATCH of a record asks: its project, its id, and the change.
type patchInput struct {
	projectID, id string
	p             recordPatch
}

// readPatchInput reads a PATCH of the record named by path parameter param.
func readPatchInput(param string) func(*base.Input) patchInput {
	return func(in *base.Input) (x patchInput) {
		x.projectID, _ = in.Path("project_id").UUID(4)
		x.id, _ = in.Path(param).UUID(0)
		x.p = readRecordPatch(in.Errs, in.Raw, in.Present, param)
		return x
	}
}

func readRecordPatch(errs *validate.Errors, raw any, present bool, idField string) recordPatch {
	var p recordPatch
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return p
	}
	fields := []string{"log_stream_id", "experiment_id"}
	p.run, _ = readRun(o, fields)
	readClientFields(o)
	if id := optUUID(o, idField); id != nil {
		p.id = *id
	}
	p.input, p.output = readContent(o, "input"), readContent(o, "output")
	p.statusCode = optInt(o, "status_code")
	if tv := o.Get("tags").Nullable(); tv.Present() && !tv.IsNull() {
		p.tagsSent = true
		tags, _ := tv.List(validate.MaxLen(maxTagsPerTrace))
		for _, t := range tags {
			if s, ok := t.String(); ok {
				p.tags = append(p.tags, s)
			}
		}
	}
	if c := o.Get("is_complete").Nullable(); c.Present() && !c.IsNull() {
		b, _ := c.Bool()
		p.isComplete = &b
	}
	p.usage, p.metrics = readMetricsObject(o.Get("metrics").Nullable())
	readUsage(o, &p.usage)
	p.usageSent = p.usage != (store.Usage{})
	p.metadata = optStringMap(o, "user_metadata")
	p.name = optStr(o, "name")
	return p
}

// applyTo changes the common fields of a record.
func (p recordPatch) applyTo(c *store.RecordContent, status **int64, tags *[]string, usage *store.Usage,
	metrics *map[string]store.MetricValue, metadata *map[string]string, name *string) {
	if p.input != nil {
		c.Input = p.input
	}
	if p.output != nil {
		c.Output = p.output
	}
	if p.statusCode != nil {
		*status = p.statusCode
	}
	if p.tagsSent {
		*tags = p.tags
	}
	if p.usageSent {
		merged := *usage
		for _, f := range []struct{ from, to **int64 }{{&p.usage.TotalTokens, &merged.TotalTokens},
			{&p.usage.InputTokens, &merged.InputTokens}, {&p.usage.OutputTokens, &merged.OutputTokens},
			{&p.usage.TimeToFirstTokenNs, &merged.TimeToFirstTokenNs}} {
			if *f.from != nil {
				*f.to = *f.from
			}
		}
		if p.usage.LatencyMs != nil {
			merged.LatencyMs = p.usage.LatencyMs
		}
		if p.usage.TotalCost != nil {
			merged.TotalCost = p.usage.TotalCost
		}
		*usage = merged
	}
	if len(p.metrics) > 0 {
		m := make(map[string]store.MetricValue, len(*metrics)+len(p.metrics))
		for k, v := range *metrics {
			m[k] = v
		}
		for k, v := range p.metrics {
			m[k] = v
		}
		*metrics = m
	}
	if p.metadata != nil {
		*metadata = p.metadata
	}
	if p.name != nil {
		*name = *p.name
	}
}

// updatedAnswer is the client's LogTraceUpdateResponse (span_id instead of trace_id for a span).
type updatedAnswer struct {
	runIDs
	ProjectID    string  `json:"project_id"`
	ProjectName  string  `json:"project_name"`
	SessionID    *string `json:"session_id"`
	RecordsCount int     `json:"records_count"`
	TraceID      string  `json:"trace_id"`
	SpanID       *string `json:"span_id,omitempty"`
}

// patchTrace is PATCH /v2/projects/{project_id}/traces/{trace_id}.
func (h *handlers) patchTrace(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Limit: maxIngestBody}, readPatchInput("trace_id"))
	if err != nil {
		return err
	}
	c, projectID, id, p := call.Caller, call.In.projectID, call.In.id, call.In.p
	if p.id != "" && p.id != id {
		return validate.Single(validate.ValueError([]any{"body", "trace_id"}, p.id, "the body names another trace than the path"))
	}
	// After the body's own check: a body naming another record is a 422 for any caller.
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	project, err := h.Project(r.Context(), c, projectID)
	if err != nil {
		return err
	}
	var after store.Trace
	err = h.retryRevision(r.Context(), func(ctx context.Context) error {
		before, item, err := h.traceItemByID(ctx, c, projectID, id)
		if err != nil {
			return err
		}
		after = before
		p.applyTo(&after.RecordContent, &after.StatusCode, &after.Tags, &after.Usage, &after.Metrics, &after.Metadata, &after.Name)
		if p.isComplete != nil {
			after.IsComplete = *p.isComplete
		}
		now := h.Stamp()
		after.UpdatedAt = &now
		if err := payload.Offload(ctx, h.Payloads, payload.Prefix(after.OrgID, after.RunID, after.ID), &after.RecordContent); err != nil {
			return err
		}
		return records.Revision{RunID: before.RunID, Before: &before, BeforeItem: item, After: &after, Now: now}.Apply(ctx, h.Table)
	})
	if errors.Is(err, records.ErrTooLarge) && p.tagsSent {
		// Each tag, old and new, holds a roll-up row per level that the change moves.
		return validate.Single(validate.ValueError([]any{"body", "tags"}, p.tags,
			"this update moves the roll-ups of the trace's old and new tags and its other changes: more than one transaction holds; replace fewer tags at once, or send the other changes in a separate update"))
	}
	if err != nil {
		return writeError(err)
	}
	httpapi.WriteJSON(w, http.StatusOK, updatedAnswer{runIDs: runIDsFor(after.RunID, p.run), ProjectID: project.ID,
		ProjectName: project.Name, SessionID: after.SessionID, RecordsCount: 1, TraceID: after.ID})
	return nil
}

// runIDsFor names run id in the field the request used (a log stream when it named none).
func runIDsFor(runID string, ref runRef) runIDs {
	if ref.field == "" {
		ref.field = "log_stream_id"
	}
	ref.id = runID
	return runIDsOf(ref)
}

// retryRevision runs a read-then-conditional-write until it does not lose a race (a few times).
func (h *handlers) retryRevision(ctx context.Context, do func(ctx context.Context) error) error {
	for range 8 {
		err := do(ctx)
		if !errors.Is(err, records.ErrRevised) {
			return err
		}
	}
	return httpapi.Conflict("The record kept changing while it was updated; retry")
}

// traceItemByID reads a trace of the caller's project (strongly consistently, by its key
// found through GSI1) with its item, or answers 404.
func (h *handlers) traceItemByID(ctx context.Context, c auth.Caller, projectID, id string) (store.Trace, store.Item, error) {
	found, err := store.RecordItem(ctx, h.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Trace{}, nil, httpapi.NotFound("Trace")
	}
	if err != nil {
		return store.Trace{}, nil, err
	}
	it, err := h.Table.Get(ctx, found.Key(), true)
	if errors.Is(err, store.ErrNotFound) {
		return store.Trace{}, nil, httpapi.NotFound("Trace")
	}
	if err != nil {
		return store.Trace{}, nil, err
	}
	var tr store.Trace
	if it[store.AttrEntity] != store.EntityTrace || store.DecodeTrace(it, &tr) != nil ||
		tr.OrgID != c.OrgID || tr.ProjectID != projectID {
		return store.Trace{}, nil, httpapi.NotFound("Trace")
	}
	return tr, it, store.DecodeTraceContent(it, &tr)
}

// patchSpan is PATCH /v2/projects/{project_id}/spans/{span_id}. Spans hold no roll-ups: the
// span's item changes on the condition that it is still what was read.
func (h *handlers) patchSpan(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Limit: maxIngestBody}, readPatchInput("span_id"))
	if err != nil {
		return err
	}
	c, projectID, id, p := call.Caller, call.In.projectID, call.In.id, call.In.p
	if p.id != "" && p.id != id {
		return validate.Single(validate.ValueError([]any{"body", "span_id"}, p.id, "the body names another span than the path"))
	}
	// After the body's own check: a body naming another record is a 422 for any caller.
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	project, err := h.Project(r.Context(), c, projectID)
	if err != nil {
		return err
	}
	var sp store.Span
	err = h.retryRevision(r.Context(), func(ctx context.Context) error {
		var err error
		sp, err = h.spanByID(ctx, c, projectID, id)
		if err != nil {
			return err
		}
		it, err := h.Table.Get(ctx, store.SpanKey(sp.TraceID, sp.ID), true)
		if err != nil {
			return err
		}
		doc, _ := it["doc"].(string)
		p.applyTo(&sp.RecordContent, &sp.StatusCode, &sp.Tags, &sp.Usage, &sp.Metrics, &sp.Metadata, &sp.Name)
		normalizeContent(sp.Type, &sp.RecordContent)
		if p.isComplete != nil {
			sp.IsComplete = *p.isComplete
		}
		now := h.Stamp()
		sp.UpdatedAt = &now
		if err := payload.Offload(ctx, h.Payloads, payload.Prefix(sp.OrgID, sp.RunID, sp.ID), &sp.RecordContent); err != nil {
			return err
		}
		next, err := store.SpanItem(sp)
		if err != nil {
			return err
		}
		if err := h.Table.Put(ctx, next, store.Equals("doc", doc)); errors.Is(err, store.ErrConditionFailed) {
			return records.ErrRevised
		} else if err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	spanID := sp.ID
	httpapi.WriteJSON(w, http.StatusOK, updatedAnswer{runIDs: runIDsFor(sp.RunID, p.run), ProjectID: project.ID,
		ProjectName: project.Name, SessionID: sp.SessionID, RecordsCount: 1, TraceID: sp.TraceID, SpanID: &spanID})
	return nil
}
