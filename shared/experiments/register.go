// Package experiments serves the experiments of a project: creating one (beyond the
// specification, to get experiments in) and listing them with their metrics and rank
// (operation 12). An experiment's counts and metric statistics come from its run summary,
// which the writers of traces keep current, so listing never reads traces.
package experiments

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// Deps is what the group needs.
type Deps struct {
	Table        store.Table
	Authenticate httpapi.Middleware
	Now          func() time.Time
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	if d.Table == nil || d.Authenticate == nil {
		panic("experiments: Deps.Table and Deps.Authenticate are required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/projects/{project_id}/experiments", h.create, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/experiments", h.list, d.Authenticate)
}

// Settings returns a lookup of an experiment's metric settings in an organization, for the
// groups that serve a run's columns or metrics by experiment_id; store.ErrNotFound when the
// experiment does not exist for the organization.
func Settings(t store.Table) func(ctx context.Context, orgID, projectID, experimentID string) (store.MetricSettings, error) {
	return func(ctx context.Context, orgID, projectID, experimentID string) (store.MetricSettings, error) {
		e, err := store.GetExperiment(ctx, t, orgID, projectID, experimentID)
		if err != nil {
			return store.MetricSettings{}, err
		}
		return e.MetricSettings, nil
	}
}

type handlers struct{ Deps }

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
