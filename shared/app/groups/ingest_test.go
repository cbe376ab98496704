package groups_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/app/groups"
)

// TestIngestServiceNotServed: the original client probes GET /ingest/healthz and, on any
// answer but a success, keeps its standard logging routes (POST /projects/{id}/traces, ...),
// which are served. No group owns /ingest, so the gateway routes it nowhere and the router
// answers 404 (docs/CLIENT-COMPATIBILITY.md).
func TestIngestServiceNotServed(t *testing.T) {
	var regs []app.Register
	for _, g := range groups.All() {
		regs = append(regs, g.Register)
	}
	rt := app.NewRouter(apptest.Deps(t), regs...)
	for _, path := range []string{"/ingest/healthz", "/v2/ingest/healthz"} {
		if owner := app.OwnerOf(groups.All(), path); owner != "" {
			t.Errorf("%s is routed to %s", path, owner)
		}
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, rec.Code)
		}
	}
}
