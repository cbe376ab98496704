package identity_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/store"
)

func TestBootstrap(t *testing.T) {
	tbl := openEmbedded(t)
	h := newHarness(t, tbl)
	opts := auth.BootstrapOptions{Secrets: h.env.Secrets, SecretRef: "authtest/jwt", AdminEmail: "Root@Example.com"}

	// Concurrent first starts create one organization between them.
	results := make([]auth.BootstrapResult, 4)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			r, err := auth.Bootstrap(t.Context(), tbl, opts)
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		})
	}
	wg.Wait()
	var res auth.BootstrapResult
	created := 0
	for _, r := range results {
		if r.Created {
			created++
			res = r
		}
	}
	if created != 1 {
		t.Fatalf("%d bootstraps created an organization, want 1", created)
	}
	if res.Email != "root@example.com" || res.Password.Len() < 20 || !strings.HasPrefix(res.APIKey.RevealString(), "evo_") {
		t.Fatalf("result %+v", res)
	}
	if printed := fmt.Sprintf("%v %+v", res, res); strings.Contains(printed, res.Password.RevealString()) ||
		strings.Contains(printed, res.APIKey.RevealString()) {
		t.Fatalf("printing the result shows a secret: %s", printed)
	}

	// The admin signs in with the password (Basic) and with the API key.
	for name, hdr := range map[string]map[string][]string{
		"basic":   basicOf(res.Email, res.Password.RevealString()),
		"api key": apiKeyOf("Service-API-Key", res.APIKey.RevealString()),
	} {
		r := h.do(t, "GET", "/v2/current_user", hdr, "")
		if r.status != 200 || !strings.Contains(string(r.body), `"role":"admin"`) || !strings.Contains(string(r.body), res.OrgID) {
			t.Fatalf("%s: %s", name, r)
		}
	}

	// Later starts change nothing.
	again, err := auth.Bootstrap(t.Context(), tbl, auth.BootstrapOptions{Secrets: h.env.Secrets, SecretRef: "authtest/jwt"})
	if err != nil || again.Created {
		t.Fatalf("second bootstrap: %+v, %v", again, err)
	}
	if _, err := store.GetOrg(t.Context(), tbl, res.OrgID); err != nil {
		t.Fatal(err)
	}
}

func TestBootstrapGivenPassword(t *testing.T) {
	tbl := openEmbedded(t)
	h := newHarness(t, tbl)
	res, err := auth.Bootstrap(t.Context(), tbl, auth.BootstrapOptions{Secrets: h.env.Secrets, SecretRef: "authtest/jwt",
		AdminPassword: "given-password-123", OrgName: "acme"})
	if err != nil || !res.Created || res.Email != "admin@example.com" {
		t.Fatalf("%+v, %v", res, err)
	}
	if r := h.do(t, "GET", "/v2/current_user", basicOf(res.Email, "given-password-123"), ""); r.status != 200 {
		t.Fatal(r)
	}
	org, err := store.GetOrg(t.Context(), tbl, res.OrgID)
	if err != nil || org.Name != "acme" {
		t.Fatalf("%+v, %v", org, err)
	}
}
