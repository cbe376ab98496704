// Package scorers serves scorers (create, list) and their versions: decision versions
// (operation 8), llm, code and preset versions as the original's clients create them, and
// the read of one version.
package scorers

import (
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
)

// Deps is what the group needs.
type Deps struct {
	base.Deps
	// Retry paces the attempts of a version write that lost a race; zero is DefaultRetry.
	Retry Retry
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	d.Deps = d.Deps.WithDefaults("scorers")
	if d.Retry == (Retry{}) {
		d.Retry = DefaultRetry
	}
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/scorers", h.createScorer, d.Authenticate)
	rt.Handle("POST /v2/scorers/list", h.listScorers, d.Authenticate)
	rt.Handle("GET /v2/scorers/{scorer_id}/version", h.getVersion, d.Authenticate)
	rt.Handle("POST /v2/scorers/{scorer_id}/version/decision", h.createDecisionVersion, d.Authenticate)
	rt.Handle("POST /v2/scorers/{scorer_id}/version/llm", h.createLLMVersion, d.Authenticate)
	rt.Handle("POST /v2/scorers/{scorer_id}/version/code", h.createCodeVersion, d.Authenticate)
	rt.Handle("POST /v2/scorers/{scorer_id}/version/preset", h.createPresetVersion, d.Authenticate)
}

type handlers struct{ Deps }
