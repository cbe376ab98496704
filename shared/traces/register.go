// Package traces serves trace ingestion (POST /v2/projects/{project_id}/traces) and the
// metrics search over a run's traces (operation 10, POST /v2/projects/{project_id}/metrics/search).
//
// Ingestion writes each trace into its run's partition in time order, and in the same
// request folds it into the run summary, the column summary and per-minute roll-ups. The
// search answers from the roll-ups when they can answer the query exactly, and otherwise
// scans the traces of the time range in one streaming pass.
package traces

import (
	"context"
	"errors"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// DefaultScanBound is the most traces one metrics search may scan.
const DefaultScanBound = 2_000_000

// Deps is what the group needs.
type Deps struct {
	base.Deps
	// ScanBound is the most traces a search may scan; zero is DefaultScanBound.
	ScanBound int64
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	d.Deps = d.Deps.WithDefaults("traces")
	if d.ScanBound == 0 {
		d.ScanBound = DefaultScanBound
	}
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/projects/{project_id}/traces", h.ingest, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/traces/available_columns", h.availableColumns, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/metrics/search", h.search, d.Authenticate)
}

type handlers struct{ Deps }

// runRef is the run a request names, and which field named it.
type runRef struct {
	field, id string
}

var runFieldResource = map[string]string{
	"log_stream_id":      "Log stream",
	"experiment_id":      "Experiment",
	"metrics_testing_id": "Metrics testing run",
}

var runFieldKind = map[string]string{
	"log_stream_id": store.RunLogStream,
	"experiment_id": store.RunExperiment,
}

// findRun reads the project and the run the request names at once (one wave of reads),
// answering 404 for whichever is missing or of another organization, the project first.
func (h *handlers) findRun(ctx context.Context, c auth.Caller, projectID string, ref runRef) (store.Run, error) {
	run, _, err := h.findProjectRun(ctx, c, projectID, ref)
	return run, err
}

// findProjectRun is findRun that also answers the project.
func (h *handlers) findProjectRun(ctx context.Context, c auth.Caller, projectID string, ref runRef) (store.Run, store.Project, error) {
	type got struct {
		p   store.Project
		err error
	}
	project := make(chan got, 1)
	go func() {
		p, err := store.GetProject(ctx, h.Table, c.OrgID, projectID)
		project <- got{p, err}
	}()
	run, err := store.GetRun(ctx, h.Table, c.OrgID, projectID, ref.id)
	p := <-project
	if errors.Is(p.err, store.ErrNotFound) {
		return store.Run{}, store.Project{}, httpapi.NotFound("Project")
	} else if p.err != nil {
		return store.Run{}, store.Project{}, p.err
	}
	if errors.Is(err, store.ErrNotFound) || (err == nil && run.Kind != runFieldKind[ref.field]) {
		return store.Run{}, store.Project{}, httpapi.NotFound(runFieldResource[ref.field])
	}
	return run, p.p, err
}
