// Package experiments serves the experiments of a project: creating one (beyond the
// specification, to get experiments in) and listing them with their metrics and rank
// (operation 12). An experiment's counts and metric statistics come from its run summary,
// which the writers of traces keep current, so listing never reads traces.
package experiments

import (
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
)

// Deps is what the group needs.
type Deps struct {
	base.Deps
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	d.Deps = d.Deps.WithDefaults("experiments")
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/projects/{project_id}/experiments", h.create, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/experiments", h.list, d.Authenticate)
}

type handlers struct{ Deps }
