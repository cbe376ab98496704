package projects

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/collection"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The log streams of a project, as the original's clients list, find, rename and delete
// them. A project's log streams are one query of its partition.

func logStreamOut(ls store.LogStream, who *people, summary *store.RunSummary) logStreamResponse {
	out := logStreamResponse{ID: ls.ID, ProjectID: ls.ProjectID, Name: ls.Name, CreatedBy: ls.CreatedBy,
		CreatedAt: ls.CreatedAt, UpdatedAt: ls.UpdatedAt}
	if who != nil {
		u := who.info(ls.CreatedBy)
		out.CreatedByUser = &u
	}
	if summary != nil {
		out.NumSpans, out.NumTraces = &summary.NumSpans, &summary.NumTraces
	}
	return out
}

// logStreamsOut shows log streams with their creators and, when asked, their counts.
func (h *handlers) logStreamsOut(ctx context.Context, orgID string, streams []store.LogStream, counts bool) ([]logStreamResponse, error) {
	var userIDs, runIDs []string
	for _, ls := range streams {
		userIDs = append(userIDs, ls.CreatedBy)
		runIDs = append(runIDs, ls.ID)
	}
	slices.Sort(userIDs)
	var (
		who       people
		summaries map[string]store.RunSummary
	)
	err := base.Concurrently(ctx,
		func(ctx context.Context) (err error) {
			who, err = h.loadPeople(ctx, orgID, slices.Compact(userIDs), false)
			return err
		},
		func(ctx context.Context) (err error) {
			if counts {
				summaries, err = store.GetRunSummaries(ctx, h.Table, runIDs)
			}
			return err
		})
	if err != nil {
		return nil, err
	}
	out := make([]logStreamResponse, len(streams))
	for i, ls := range streams {
		var s *store.RunSummary
		if counts {
			sum := summaries[ls.ID]
			s = &sum
		}
		out[i] = logStreamOut(ls, &who, s)
	}
	return out, nil
}

// projectLogStreams reads the project's log streams, and at the same time checks that the
// project is the caller's organization's (404 otherwise).
func (h *handlers) projectLogStreams(r *http.Request, c auth.Caller, projectID string) ([]store.LogStream, error) {
	var streams []store.LogStream
	err := base.Concurrently(r.Context(),
		func(ctx context.Context) error { _, err := h.Project(ctx, c, projectID); return err },
		func(ctx context.Context) (err error) {
			streams, err = store.ListLogStreams(ctx, h.Table, c.OrgID, projectID)
			return err
		})
	return streams, err
}

// listLogStreams is GET /v2/projects/{project_id}/log_streams: all of them, oldest first.
func (h *handlers) listLogStreams(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) (q streamQuery) {
		q.projectID, _ = in.Path("project_id").UUID(4)
		q.counts, _ = in.Query("include_counts").Bool()
		return q
	})
	if err != nil {
		return err
	}
	c := call.Caller
	streams, err := h.projectLogStreams(r, c, call.In.projectID)
	if err != nil {
		return err
	}
	out, err := h.logStreamsOut(r.Context(), c.OrgID, streams, call.In.counts)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// paginatedLogStreams is GET /v2/projects/{project_id}/log_streams/paginated.
func (h *handlers) paginatedLogStreams(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) (q streamQuery) {
		q.projectID, _ = in.Path("project_id").UUID(4)
		q.counts, _ = in.Query("include_counts").Bool()
		q.start, q.limit = in.Page()
		q.sort = collection.Sort{Name: "created_at", Ascending: true}
		return q
	})
	if err != nil {
		return err
	}
	return h.answerLogStreams(w, r, call.Caller, call.In)
}

// The filters and sorts of POST .../log_streams/search (the original's LogStreamSearchRequest).
var (
	logStreamFilters = []collection.FilterSpec{
		{Name: "id", Kind: collection.ID, Ops: collection.IDOps, DefaultOp: "eq"},
		{Name: "name", Kind: collection.Text, Ops: collection.TextOps},
		{Name: "created_by", Kind: collection.ID, Ops: collection.IDOps, DefaultOp: "eq"},
		{Name: "created_at", Kind: collection.Date, Ops: collection.DateOps},
		{Name: "updated_at", Kind: collection.Date, Ops: collection.DateOps},
	}
	logStreamSorts = []collection.SortSpec{
		{Name: "name", SortType: "column"}, {Name: "created_at", SortType: "column"}, {Name: "updated_at", SortType: "column"},
	}
)

// searchLogStreams is POST /v2/projects/{project_id}/log_streams/search: the page, filters,
// sort (newest first unless told) and include_counts in the body.
func (h *handlers) searchLogStreams(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (q streamQuery) {
		q.projectID, _ = in.Path("project_id").UUID(4)
		q.limit, q.sort = validate.DefaultLimit, collection.Sort{Name: "created_at"}
		if o, ok := in.Body().Required().Object(); ok {
			if n, ok := o.Get("starting_token").Int(validate.Ge(0)); ok {
				q.start = int(n)
			}
			if n, ok := o.Get("limit").Int(validate.Ge(1), validate.Le(validate.MaxLimit)); ok {
				q.limit = int(n)
			}
			q.counts, _ = o.Get("include_counts").Bool()
			q.filters = collection.ReadFilters(o.Get("filters"), logStreamFilters)
			q.sort = collection.ReadSort(o.Get("sort"), logStreamSorts, q.sort)
		}
		return q
	})
	if err != nil {
		return err
	}
	return h.answerLogStreams(w, r, call.Caller, call.In)
}

// streamQuery is what a list of a project's log streams asks.
type streamQuery struct {
	projectID    string
	start, limit int
	counts       bool
	filters      []collection.Filter
	sort         collection.Sort
}

// answerLogStreams answers a page of the project's log streams (ListLogStreamResponse).
func (h *handlers) answerLogStreams(w http.ResponseWriter, r *http.Request, c auth.Caller, q streamQuery) error {
	streams, err := h.projectLogStreams(r, c, q.projectID)
	if err != nil {
		return err
	}
	start, limit := q.start, q.limit
	streams = collection.Apply(streams, q.filters, q.sort, func(ls store.LogStream) collection.Record {
		return func(field string) any {
			switch field {
			case "id":
				return ls.ID
			case "name":
				return ls.Name
			case "created_by":
				return ls.CreatedBy
			case "created_at":
				return ls.CreatedAt
			}
			return ls.UpdatedAt
		}
	})
	page, next := collection.Page(streams, start, limit)
	out, err := h.logStreamsOut(r.Context(), c.OrgID, page, q.counts)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": start, "limit": limit,
		"paginated": next != nil, "next_starting_token": next, "log_streams": out})
	return nil
}

// onStream is the input of a handler on one log stream: its project and its id, from the
// path, and what the body asked.
type onStream[T any] struct {
	projectID, id string
	req           T
}

// logStreamPath reads the two uuid4 path parameters of one log stream.
func logStreamPath(in *base.Input) (x onStream[struct{}]) {
	x.projectID, _ = in.Path("project_id").UUID(4)
	x.id, _ = in.Path("log_stream_id").UUID(4)
	return x
}

// onLogStream reads the path of one log stream, then the body with read.
func onLogStream[T any](read func(errs *validate.Errors, raw any, present bool) T) func(*base.Input) onStream[T] {
	return func(in *base.Input) onStream[T] {
		p := logStreamPath(in)
		return onStream[T]{projectID: p.projectID, id: p.id, req: read(in.Errs, in.Raw, in.Present)}
	}
}

// getLogStream is GET /v2/projects/{project_id}/log_streams/{log_stream_id}.
func (h *handlers) getLogStream(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, logStreamPath)
	if err != nil {
		return err
	}
	c := call.Caller
	ls, err := h.findLogStream(r.Context(), c, call.In.projectID, call.In.id)
	if err != nil {
		return err
	}
	out, err := h.logStreamsOut(r.Context(), c.OrgID, []store.LogStream{ls}, false)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out[0])
	return nil
}

// updateLogStream is PUT /v2/projects/{project_id}/log_streams/{log_stream_id}: a new name.
func (h *handlers) updateLogStream(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, onLogStream(readName))
	if err != nil {
		return err
	}
	c, name := call.Caller, call.In.req
	ls, err := h.findLogStream(r.Context(), c, call.In.projectID, call.In.id)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	ls, err = store.RenameLogStream(r.Context(), h.Table, ls, name, h.Stamp())
	switch {
	case errors.Is(err, store.ErrNameTaken):
		return nameTaken("log stream", name)
	case isNotFound(err):
		return httpapi.NotFound("Log stream")
	case err != nil:
		return err
	}
	out, err := h.logStreamsOut(r.Context(), c.OrgID, []store.LogStream{ls}, false)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out[0])
	return nil
}

// deleteLogStream is DELETE /v2/projects/{project_id}/log_streams/{log_stream_id}: 204; its
// traces, roll-ups and summaries are purged in the background (the stream consumer).
func (h *handlers) deleteLogStream(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, logStreamPath)
	if err != nil {
		return err
	}
	ls, err := h.findLogStream(r.Context(), call.Caller, call.In.projectID, call.In.id)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	if err := store.DeleteLogStream(r.Context(), h.Table, ls); isNotFound(err) {
		return httpapi.NotFound("Log stream")
	} else if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
