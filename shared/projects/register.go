// Package projects serves projects (create, read with their creator and runs, list, look up
// by name, search a page at a time, delete), their log streams (create, list, search, read,
// rename, delete), the metric settings of a log stream (operation 9 and its PATCH) and the
// same settings of any run as the original's scorer-settings routes.
package projects

import (
	"context"
	"errors"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// Deps is what the group needs.
type Deps struct {
	base.Deps
	// Prices checks that a USD budget's judges have a price (nil: every USD budget is
	// refused, never silently unlimited).
	Prices Pricer
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	d.Deps = d.Deps.WithDefaults("projects")
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/projects", h.createProject, d.Authenticate)
	rt.Handle("GET /v2/projects", h.listProjects, d.Authenticate)
	rt.Handle("GET /v2/projects/all", h.allProjects, d.Authenticate)
	rt.Handle("POST /v2/projects/paginated", h.paginatedProjects, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}", h.getProject, d.Authenticate)
	rt.Handle("DELETE /v2/projects/{project_id}", h.deleteProject, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/log_streams", h.createLogStream, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/log_streams", h.listLogStreams, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/log_streams/paginated", h.paginatedLogStreams, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/log_streams/search", h.searchLogStreams, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/log_streams/{log_stream_id}", h.getLogStream, d.Authenticate)
	rt.Handle("PUT /v2/projects/{project_id}/log_streams/{log_stream_id}", h.updateLogStream, d.Authenticate)
	rt.Handle("DELETE /v2/projects/{project_id}/log_streams/{log_stream_id}", h.deleteLogStream, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/log_streams/{log_stream_id}/metric_settings", h.getMetricSettings, d.Authenticate)
	rt.Handle("PATCH /v2/projects/{project_id}/log_streams/{log_stream_id}/metric_settings", h.patchMetricSettings, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/runs/{run_id}/scorer-settings", h.getScorerSettings, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/runs/{run_id}/scorer-settings", h.upsertScorerSettings, d.Authenticate)
	rt.Handle("PATCH /v2/projects/{project_id}/runs/{run_id}/scorer-settings", h.upsertScorerSettings, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/log_streams/{log_stream_id}/evaluate", h.evaluate, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/log_streams/{log_stream_id}/evaluate/{job_id}", h.getEvaluateJob, d.Authenticate)
}

type handlers struct{ Deps }

// findLogStream reads a log stream of the project, or answers 404 naming what is missing:
// the project (also another organization's), or the log stream within it.
func (h *handlers) findLogStream(ctx context.Context, c auth.Caller, projectID, id string) (store.LogStream, error) {
	ls, err := store.GetLogStream(ctx, h.Table, c.OrgID, projectID, id)
	if !errors.Is(err, store.ErrNotFound) {
		return ls, err
	}
	if _, err := h.Project(ctx, c, projectID); err != nil {
		return store.LogStream{}, err
	}
	return store.LogStream{}, httpapi.NotFound("Log stream")
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
