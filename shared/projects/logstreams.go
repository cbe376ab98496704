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
	errs := validate.New()
	projectID, _ := errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	counts, _ := errs.Query(r.URL.Query(), "include_counts").Bool()
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	streams, err := h.projectLogStreams(r, c, projectID)
	if err != nil {
		return err
	}
	out, err := h.logStreamsOut(r.Context(), c.OrgID, streams, counts)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// paginatedLogStreams is GET /v2/projects/{project_id}/log_streams/paginated.
func (h *handlers) paginatedLogStreams(w http.ResponseWriter, r *http.Request) error {
	errs := validate.New()
	projectID, _ := errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	q := r.URL.Query()
	counts, _ := errs.Query(q, "include_counts").Bool()
	start, limit := errs.Page(q)
	if err := errs.Err(); err != nil {
		return err
	}
	return h.answerLogStreams(w, r, projectID, nil, collection.Sort{Name: "created_at", Ascending: true}, start, limit, counts)
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
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	projectID, _ := errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	start, limit, counts := 0, validate.DefaultLimit, false
	var filters []collection.Filter
	sort := collection.Sort{Name: "created_at"}
	if o, ok := errs.Body(raw, present).Required().Object(); ok {
		if n, ok := o.Get("starting_token").Int(validate.Ge(0)); ok {
			start = int(n)
		}
		if n, ok := o.Get("limit").Int(validate.Ge(1), validate.Le(validate.MaxLimit)); ok {
			limit = int(n)
		}
		counts, _ = o.Get("include_counts").Bool()
		filters = collection.ReadFilters(o.Get("filters"), logStreamFilters)
		sort = collection.ReadSort(o.Get("sort"), logStreamSorts, sort)
	}
	if err := errs.Err(); err != nil {
		return err
	}
	return h.answerLogStreams(w, r, projectID, filters, sort, start, limit, counts)
}

// answerLogStreams answers a page of the project's log streams (ListLogStreamResponse).
func (h *handlers) answerLogStreams(w http.ResponseWriter, r *http.Request, projectID string, filters []collection.Filter, sort collection.Sort, start, limit int, counts bool) error {
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	streams, err := h.projectLogStreams(r, c, projectID)
	if err != nil {
		return err
	}
	streams = collection.Apply(streams, filters, sort, func(ls store.LogStream) collection.Record {
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
	out, err := h.logStreamsOut(r.Context(), c.OrgID, page, counts)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": start, "limit": limit,
		"paginated": next != nil, "next_starting_token": next, "log_streams": out})
	return nil
}

// readLogStreamPath reads the two uuid4 path parameters of one log stream.
func readLogStreamPath(errs *validate.Errors, r *http.Request) (projectID, id string) {
	projectID, _ = errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	id, _ = errs.Path("log_stream_id", r.PathValue("log_stream_id")).UUID(4)
	return projectID, id
}

// getLogStream is GET /v2/projects/{project_id}/log_streams/{log_stream_id}.
func (h *handlers) getLogStream(w http.ResponseWriter, r *http.Request) error {
	errs := validate.New()
	projectID, id := readLogStreamPath(errs, r)
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	ls, err := h.findLogStream(r.Context(), c, projectID, id)
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
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	projectID, id := readLogStreamPath(errs, r)
	name := readName(errs, raw, present)
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	ls, err := h.findLogStream(r.Context(), c, projectID, id)
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
	errs := validate.New()
	projectID, id := readLogStreamPath(errs, r)
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	ls, err := h.findLogStream(r.Context(), c, projectID, id)
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
