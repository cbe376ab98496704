// Package projects serves projects, their log streams, the metric settings of a log stream
// (operation 9 and its PATCH) and the trace column catalog of a run (operation 11).
package projects

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// ExperimentSettingsFunc finds an experiment of a project in the caller's organization and
// returns its metric settings; store.ErrNotFound when there is none.
type ExperimentSettingsFunc func(ctx context.Context, orgID, projectID, experimentID string) (store.MetricSettings, error)

// Deps is what the group needs.
type Deps struct {
	Table        store.Table
	Authenticate httpapi.Middleware
	Now          func() time.Time
	// ExperimentSettings serves available_columns for an experiment_id. Experiments are
	// another group's records; without it such a request answers 404 "Experiment not found".
	ExperimentSettings ExperimentSettingsFunc
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	if d.Table == nil || d.Authenticate == nil {
		panic("projects: Deps.Table and Deps.Authenticate are required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/projects", h.createProject, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}", h.getProject, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/log_streams", h.createLogStream, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/log_streams/{log_stream_id}/metric_settings", h.getMetricSettings, d.Authenticate)
	rt.Handle("PATCH /v2/projects/{project_id}/log_streams/{log_stream_id}/metric_settings", h.patchMetricSettings, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/traces/available_columns", h.availableColumns, d.Authenticate)
}

type handlers struct{ Deps }

// now is the time records are stamped with: UTC, at the microsecond precision of the
// original service's timestamps.
func (h *handlers) now() time.Time { return h.Now().UTC().Truncate(time.Microsecond) }

// callerOf returns the authenticated caller; the middleware guarantees one, so its absence
// is answered as no credential at all.
func callerOf(r *http.Request) (auth.Caller, error) {
	c, ok := auth.CallerFrom(r.Context())
	if !ok {
		return auth.Caller{}, httpapi.Unauthorized("Not authenticated", "Bearer")
	}
	return c, nil
}

// findProject reads a project of the caller's organization, or answers 404.
func (h *handlers) findProject(ctx context.Context, c auth.Caller, id string) (store.Project, error) {
	p, err := store.GetProject(ctx, h.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Project{}, httpapi.NotFound("Project")
	}
	return p, err
}

// findLogStream reads a log stream of the project, or answers 404 naming what is missing:
// the project (also another organization's), or the log stream within it.
func (h *handlers) findLogStream(ctx context.Context, c auth.Caller, projectID, id string) (store.LogStream, error) {
	ls, err := store.GetLogStream(ctx, h.Table, c.OrgID, projectID, id)
	if !errors.Is(err, store.ErrNotFound) {
		return ls, err
	}
	if _, err := h.findProject(ctx, c, projectID); err != nil {
		return store.LogStream{}, err
	}
	return store.LogStream{}, httpapi.NotFound("Log stream")
}
