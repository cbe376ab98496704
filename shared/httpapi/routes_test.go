package httpapi

import (
	"log/slog"
	"net/http"
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
