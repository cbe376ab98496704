package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

func TestRoutesListsRegisteredPatterns(t *testing.T) {
	rt := NewRouter(slog.New(slog.DiscardHandler))
	if got := rt.Routes(); len(got) != 0 {
		t.Errorf("empty router: Routes() = %q, want none", got)
	}
	noop := func(http.ResponseWriter, *http.Request) error { return nil }
	for _, p := range []string{"POST /v2/items", "GET /v2/items/{id}", "DELETE /v2/items/{id}"} {
		rt.Handle(p, noop)
	}
	want := []string{"DELETE /v2/items/{id}", "GET /v2/items/{id}", "POST /v2/items"}
	got := rt.Routes()
	if !slices.Equal(got, want) {
		t.Errorf("Routes() = %q, want %q (sorted)", got, want)
	}
	got[0] = "changed"
	if rt.Routes()[0] != want[0] {
		t.Error("Routes() returns the router's own slice; a caller's change altered it")
	}
}

func TestTwin(t *testing.T) {
	for in, want := range map[string]string{
		"GET /v2/projects/{project_id}": "GET /projects/{project_id}",
		"GET /projects/{project_id}":    "GET /v2/projects/{project_id}",
		"POST /login":                   "POST /v2/login",
		"POST /v2/login":                "POST /login",
		"/v2/healthcheck":               "/healthcheck",
		"/v2":                           "/v2/v2", // not under the prefix: gains it
	} {
		if got := Twin(in); got != want {
			t.Errorf("Twin(%q) = %q, want %q", in, got, want)
		}
		if in != "/v2" && Twin(Twin(in)) != in {
			t.Errorf("Twin(Twin(%q)) = %q", in, Twin(Twin(in)))
		}
	}
}

func TestHandleServesBothForms(t *testing.T) {
	rt := NewRouter(slog.New(slog.DiscardHandler))
	calls := 0
	rt.Handle("GET /v2/items/{id}", func(w http.ResponseWriter, r *http.Request) error {
		calls++
		WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
		return nil
	})
	for _, path := range []string{"/v2/items/a", "/items/a"} {
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK || rec.Body.String() != `{"id":"a"}`+"\n" && rec.Body.String() != `{"id":"a"}` {
			t.Errorf("GET %s -> %d %s, want 200 {\"id\":\"a\"}", path, rec.Code, rec.Body)
		}
	}
	if calls != 2 {
		t.Errorf("handler ran %d times, want 2", calls)
	}
	if got := rt.Routes(); !slices.Equal(got, []string{"GET /v2/items/{id}"}) {
		t.Errorf("Routes() = %q, want the registered form only", got)
	}
	if got := rt.Match(httptest.NewRequest(http.MethodGet, "/items/b", nil)); got != "GET /items/{id}" {
		t.Errorf("Match(/items/b) = %q", got)
	}
}
