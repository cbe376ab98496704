package traces

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Appending spans to a stored trace (the client's LogSpansIngestRequest): how a trace larger
// than one request arrives, and how a client adds steps after the fact. The spans are
// written in idempotent batches, then one transaction stores a marker of the batch (named
// by its span ids), updates the trace's span count and the run summary: a retried batch
// finds its marker and counts nothing twice. Spans appended re-open nothing: the trace keeps
// its completeness unless the request or a PATCH changes it.

// spansRequest is a validated body of span appending.
type spansRequest struct {
	run      runRef
	traceID  string
	parentID string
	items    []validate.Value
}

func readSpansRequest(errs *validate.Errors, raw any, present bool) spansRequest {
	var q spansRequest
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return q
	}
	before := errs.Len()
	fields := []string{"log_stream_id", "experiment_id"}
	run, one := readRun(o, fields)
	q.run = run
	readClientFields(o)
	q.traceID, _ = o.Get("trace_id").Required().UUID(0)
	q.parentID, _ = o.Get("parent_id").Required().UUID(0)
	q.items, _ = o.Get("spans").Required().List(validate.MinLen(1), validate.MaxLen(maxSpansPerRequest))
	if errs.Len() == before && !one {
		errs.Add(oneRunError(o, fields))
	}
	return q
}

// spansAnswer is the client's LogSpansIngestResponse.
type spansAnswer struct {
	runIDs
	ProjectID    string  `json:"project_id"`
	ProjectName  string  `json:"project_name"`
	SessionID    *string `json:"session_id"`
	RecordsCount int     `json:"records_count"`
	TraceID      string  `json:"trace_id"`
	ParentID     string  `json:"parent_id"`
}

// appendSpans is POST /v2/projects/{project_id}/spans.
func (h *handlers) appendSpans(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, maxIngestBody)
	if err != nil {
		return err
	}
	errs := validate.New()
	projectID, _ := errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	q := readSpansRequest(errs, raw, present)
	if err := errs.Err(); err != nil {
		return err
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	c, _ := base.Caller(r)
	project, run, err := h.findProjectRun(r.Context(), c, projectID, q.run)
	if err != nil {
		return err
	}
	tr, trItem, err := h.traceItemByID(r.Context(), c, projectID, q.traceID)
	if err != nil {
		return err
	}
	if tr.RunID != run.ID {
		return httpapi.NotFound("Trace")
	}
	depth := int64(1)
	var parent store.Item
	if q.parentID != tr.ID {
		parent, err = h.Table.Get(r.Context(), store.SpanKey(tr.ID, q.parentID), true)
		if errors.Is(err, store.ErrNotFound) {
			return validate.Single(validate.ValueError([]any{"body", "parent_id"}, q.parentID, "the parent is neither the trace nor one of its spans"))
		}
		if err != nil {
			return err
		}
		var ps store.Span
		if err := store.DecodeSpan(parent, &ps, false); err != nil {
			return err
		}
		depth = ps.Depth + 1
	}
	// Read the spans now that their trace is known: they inherit its run, session, time.
	var spans []store.Span
	for _, it := range q.items {
		sp, children := readSpan(it, tr, q.parentID, depth)
		spans = append(spans, sp)
		spans = append(spans, children...)
	}
	if err := errs.Err(); err != nil {
		return err
	}
	if len(spans) > maxSpansPerRequest {
		return validate.Single(validate.ValueError([]any{"body", "spans"}, nil,
			fmt.Sprintf("the request holds %d spans, more than %d", len(spans), maxSpansPerRequest)))
	}
	if err := h.offloadSpans(r.Context(), tr.OrgID, tr.RunID, spans); err != nil {
		return err
	}
	if err := h.appendTo(r.Context(), c, projectID, tr, trItem, parent, spans); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, spansAnswer{runIDs: runIDsOf(q.run), ProjectID: project.ID, ProjectName: project.Name,
		SessionID: tr.SessionID, RecordsCount: len(spans), TraceID: tr.ID, ParentID: q.parentID})
	return nil
}

// appendTo writes spans in the trace (tr as read, with its item; parent the item of the
// parent span, nil for the trace itself) and counts them once.
func (h *handlers) appendTo(ctx context.Context, c auth.Caller, projectID string, tr store.Trace, trItem, parent store.Item, spans []store.Span) error {
	traceID := tr.ID
	// A few spans go in the counting transaction; more are written ahead in idempotent
	// batches (a retry writes the same items and finds the marker or writes it).
	var inline []store.Op
	if len(spans) <= records.InlineSpans {
		for _, sp := range spans {
			it, err := store.SpanItem(sp)
			if err != nil {
				return err
			}
			inline = append(inline, store.PutOp(it))
		}
	} else if err := store.PutSpans(ctx, h.Table, spans); err != nil {
		return err
	}
	ids := make([]string, len(spans))
	for i, sp := range spans {
		ids[i] = sp.ID
	}
	slices.Sort(ids)
	sum := sha256.New()
	for _, id := range ids {
		sum.Write([]byte(id))
	}
	marker := store.Key{PK: "TRACE#" + traceID, SK: "BATCH#" + hex.EncodeToString(sum.Sum(nil))[:32]}
	first := true
	return h.retryRevision(ctx, func(ctx context.Context) error {
		before, item := tr, trItem
		if !first { // a lost race: read again
			var err error
			if before, item, err = h.traceItemByID(ctx, c, projectID, traceID); err != nil {
				return err
			}
			if parent != nil {
				if parent, err = h.Table.Get(ctx, parent.Key(), true); err != nil {
					return err
				}
			}
		}
		first = false
		after := before
		after.NumSpans += int64(len(spans))
		after.HasChildren = true
		now := h.Stamp()
		after.UpdatedAt = &now
		extra := append([]store.Op{store.PutOp(store.Item{store.AttrPK: marker.PK, store.AttrSK: marker.SK,
			store.AttrEntity: "span_batch", "count": int64(len(spans)), store.AttrExpiresAt: now.Add(30 * 24 * time.Hour).Unix()},
			store.NotExists())}, inline...)
		if parent != nil {
			op, err := markParent(parent)
			if err != nil {
				return err
			}
			if op != nil {
				extra = append(extra, *op)
			}
		}
		err := records.Revision{RunID: before.RunID, Before: &before, BeforeItem: item, After: &after, Now: now,
			ExtraOps: extra, SpansChange: int64(len(spans))}.Apply(ctx, h.Table)
		if errors.Is(err, records.ErrRevised) {
			// The marker's condition may be what failed: this batch counted by a concurrent
			// retry of the same request.
			if _, gerr := h.Table.Get(ctx, marker, true); gerr == nil {
				return nil
			}
		}
		return err
	})
}

// markParent is the put that makes the parent span (its item as read) know it has children;
// nil when it did.
func markParent(it store.Item) (*store.Op, error) {
	var sp store.Span
	if err := store.DecodeSpan(it, &sp, true); err != nil {
		return nil, err
	}
	if sp.HasChildren {
		return nil, nil
	}
	doc, _ := it["doc"].(string)
	sp.HasChildren = true
	next, err := store.SpanItem(sp)
	if err != nil {
		return nil, err
	}
	op := store.PutOp(next, store.Equals("doc", doc))
	return &op, nil
}
