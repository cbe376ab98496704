// Package signals serves the signals configuration of a run (operation 13): which model
// looks for signals in a log stream's or an experiment's traces, what it should focus on,
// and, for a log stream only, when it runs and which severities notify.
package signals

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
	d.Deps = d.Deps.WithDefaults("signals")
	h := &handlers{Deps: d}
	const path = "/v2/projects/{project_id}/runs/{run_id}/signals/configuration"
	rt.Handle("PUT "+path, h.put, d.Authenticate)
	rt.Handle("GET "+path, h.get, d.Authenticate)
}

type handlers struct{ Deps }
