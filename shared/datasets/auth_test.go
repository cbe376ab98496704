package datasets_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
)

// TestUnauthenticated calls every operation without a credential and with a wrong one: 401
// whatever the body, before any validation.
func TestUnauthenticated(t *testing.T) {
	h := newHarness(t)
	id := uuid.NewString()
	routes := []struct{ method, path string }{
		{"POST", "/v2/datasets"},
		{"DELETE", "/v2/datasets/bulk_delete"},
		{"GET", "/v2/datasets/" + id + "/content"},
		{"POST", "/v2/datasets/" + id + "/content"},
		{"PATCH", "/v2/datasets/" + id + "/content"},
		{"GET", "/v2/datasets/" + id + "/groups"},
		{"POST", "/v2/datasets/" + id + "/groups"},
		{"POST", "/v2/datasets/" + id + "/users"},
		{"GET", "/v2/datasets/not-a-uuid/content?limit=0"},
	}
	for _, r := range routes {
		for _, cred := range []struct {
			name   string
			header []string
			detail string
		}{
			{"none", nil, `{"detail":"Not authenticated"}`},
			{"wrong API key", []string{"Vendor-AO-API-Key", "wrong"}, ""},
		} {
			t.Run(r.method+" "+r.path+"/"+cred.name, func(t *testing.T) {
				resp := h.request(nil, r.method, r.path, `{"not": "valid"`, cred.header...)
				if resp.code != http.StatusUnauthorized || (cred.detail != "" && string(resp.body) != cred.detail) {
					t.Errorf("got %d %s, want 401 %s", resp.code, resp.body, cred.detail)
				}
				if resp.header.Get("WWW-Authenticate") == "" {
					t.Error("no WWW-Authenticate header")
				}
			})
		}
	}
}
