// Package scorers serves scorers (POST /v2/scorers) and their decision versions (operation 8,
// POST /v2/scorers/{scorer_id}/version/decision).
package scorers

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
	// Retry paces the attempts of a version write that lost a race; zero is DefaultRetry.
	Retry Retry
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	if d.Table == nil || d.Authenticate == nil {
		panic("scorers: Deps.Table and Deps.Authenticate are required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Retry == (Retry{}) {
		d.Retry = DefaultRetry
	}
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/scorers", h.createScorer, d.Authenticate)
	rt.Handle("POST /v2/scorers/{scorer_id}/version/decision", h.createDecisionVersion, d.Authenticate)
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
