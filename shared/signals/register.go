// Package signals serves the signals configuration of a run (operation 13): which model
// looks for signals in a log stream's or an experiment's traces, what it should focus on,
// and, for a log stream only, when it runs and which severities notify.
package signals

import (
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
		panic("signals: Deps.Table and Deps.Authenticate are required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	h := &handlers{Deps: d}
	const path = "/v2/projects/{project_id}/runs/{run_id}/signals/configuration"
	rt.Handle("PUT "+path, h.put, d.Authenticate)
	rt.Handle("GET "+path, h.get, d.Authenticate)
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
