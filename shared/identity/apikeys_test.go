package identity_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
)

// keyID is the id part of a presented key.
func keyID(key string) string { return strings.Split(key, "_")[1] }

type listedKey struct {
	ID, Description, Truncated string
	ExpiresAt                  *string `json:"expires_at"`
	LastUsed                   *string `json:"last_used"`
	Revoked                    bool
}

func listKeys(t *testing.T, h *harness, hdr http.Header) []listedKey {
	t.Helper()
	r := h.do(t, "GET", "/v2/api_keys", hdr, "")
	if r.status != 200 {
		t.Fatalf("list: %s", r)
	}
	var out []listedKey
	r.json(t, &out)
	return out
}

func TestAPIKeys(t *testing.T) {
	h := newHarness(t, openEmbedded(t))
	org := h.env.Org(t)
	u := org.User

	r := h.do(t, "POST", "/v2/api_keys", u.BearerHeader(), `{"description":"ci"}`)
	var created struct {
		ID, Truncated string
		APIKey        string `json:"api_key"`
	}
	r.json(t, &created)
	if r.status != 200 || !strings.HasPrefix(created.APIKey, "evo_"+created.ID+"_") || !strings.HasPrefix(created.Truncated, "evo_") {
		t.Fatalf("create: %s", r)
	}
	if me := h.do(t, "GET", "/v2/current_user", apiKeyOf("Service-API-Key", created.APIKey), ""); me.status != 200 {
		t.Fatalf("new key: %s", me)
	}

	t.Run("list shows no secret", func(t *testing.T) {
		r := h.do(t, "GET", "/v2/api_keys", u.Header(), "")
		secret := created.APIKey[strings.LastIndex(created.APIKey, "_")+1:]
		if r.status != 200 || strings.Contains(string(r.body), secret) || strings.Contains(string(r.body), `"api_key"`) {
			t.Fatalf("list: %s", r)
		}
		keys := listKeys(t, h, u.Header())
		found := false
		for _, k := range keys {
			found = found || (k.ID == created.ID && k.Description == "ci" && k.Truncated == created.Truncated)
		}
		if len(keys) != 2 || !found {
			t.Fatalf("keys %+v, want the fixture's and %s", keys, created.ID)
		}
	})

	bad := []struct {
		name, body, want string
	}{
		{"past expiry", `{"description":"x","expires_at":"2001-01-01T00:00:00Z"}`,
			`{"detail":[{"type":"value_error","loc":["body","expires_at"],"msg":"Value error, expires_at must be in the future","input":"2001-01-01T00:00:00Z","ctx":{"error":{}}}]}`},
		{"no description", `{}`, `{"detail":[{"type":"missing","loc":["body","description"],"msg":"Field required","input":{}}]}`},
		{"empty description", `{"description":""}`,
			`{"detail":[{"type":"string_too_short","loc":["body","description"],"msg":"String should have at least 1 character","input":"","ctx":{"min_length":1}}]}`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(t, "POST", "/v2/api_keys", u.Header(), tt.body)
			if r.status != 422 || string(r.body) != tt.want {
				t.Fatalf("got %s\nwant %s", r, tt.want)
			}
		})
	}

	t.Run("expiry is listed", func(t *testing.T) {
		at := h.clock.Now().Add(48 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
		r := h.do(t, "POST", "/v2/api_keys", u.Header(), `{"description":"temp","expires_at":"`+at+`"}`)
		var k listedKey
		r.json(t, &k)
		if r.status != 200 || k.ExpiresAt == nil || *k.ExpiresAt != at {
			t.Fatalf("got %s, want expires_at %s", r, at)
		}
	})

	t.Run("revoke", func(t *testing.T) {
		other := org.Manager
		tests := []struct {
			name, id string
			status   int
			want     string
		}{
			{"someone else's key", keyID(other.APIKey), 404, `{"detail":"API key not found"}`},
			{"unknown key", uuid.NewString(), 404, `{"detail":"API key not found"}`},
			{"own key", created.ID, 200, ""},
			{"again", created.ID, 200, ""},
		}
		for _, tt := range tests {
			r := h.do(t, "DELETE", "/v2/api_keys/"+tt.id, u.Header(), "")
			if r.status != tt.status || (tt.want != "" && string(r.body) != tt.want) {
				t.Fatalf("%s: got %s", tt.name, r)
			}
			if tt.status == 200 && !strings.Contains(string(r.body), `"revoked":true`) {
				t.Fatalf("%s: %s", tt.name, r)
			}
		}
		want401(t, h.do(t, "GET", "/v2/current_user", apiKeyOf("Service-API-Key", created.APIKey), ""), "Invalid API key")
		if r := h.do(t, "GET", "/v2/current_user", other.Header(), ""); r.status != 200 {
			t.Fatalf("the other user's key stopped working: %s", r)
		}
		if r := h.do(t, "DELETE", "/v2/api_keys/nope", u.Header(), ""); r.status != 422 {
			t.Fatalf("bad id: %s", r)
		}
	})
}

// TestAPIKeyLastUsed checks that a key's use is stamped, at most once a minute.
func TestAPIKeyLastUsed(t *testing.T) {
	// Without the cache every use reads the key, as a fresh instance would.
	h := newHarnessWith(t, openEmbedded(t), auth.Config{APIKeyCacheTTL: -1})
	u := h.env.Org(t).User
	use := func() {
		t.Helper()
		if r := h.do(t, "GET", "/v2/current_user", u.Header(), ""); r.status != 200 {
			t.Fatal(r)
		}
		h.svc.Wait()
	}
	lastUsed := func() string {
		t.Helper()
		for _, k := range listKeys(t, h, u.BearerHeader()) {
			if k.ID == keyID(u.APIKey) && k.LastUsed != nil {
				return *k.LastUsed
			}
		}
		return ""
	}
	if got := lastUsed(); got != "" {
		t.Fatalf("unused key has last_used %s", got)
	}
	use()
	first := lastUsed()
	if first == "" {
		t.Fatal("use not stamped")
	}
	h.clock.Advance(30 * time.Second)
	use()
	if got := lastUsed(); got != first {
		t.Fatalf("stamped again within a minute: %s, then %s", first, got)
	}
	h.clock.Advance(31 * time.Second)
	use()
	if got := lastUsed(); got == first || got == "" {
		t.Fatalf("not stamped after a minute: still %s", got)
	}
}

// TestRevocationReachesOtherInstances shows the documented bound: an instance that
// validated a key keeps trusting it for at most MaxAPIKeyCacheTTL after another instance
// revoked it.
func TestRevocationReachesOtherInstances(t *testing.T) {
	h := newHarness(t, openEmbedded(t))
	u := h.env.Org(t).User
	other, err := auth.New(auth.Config{Table: h.env.Table, Secrets: h.env.Secrets, SecretRef: "authtest/jwt",
		Now: h.clock.Now, Logger: slog.New(slog.NewJSONHandler(suite, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rt := httpapi.NewRouter(slog.New(slog.NewJSONHandler(suite, nil)))
	mount(rt, other, h.env.Table, h.clock.Now)
	b := &harness{env: h.env, svc: other, rt: rt, clock: h.clock, check: true}
	defer other.Wait()

	if r := b.do(t, "GET", "/v2/current_user", u.Header(), ""); r.status != 200 {
		t.Fatalf("instance B: %s", r)
	}
	if r := h.do(t, "DELETE", "/v2/api_keys/"+keyID(u.APIKey), u.BearerHeader(), ""); r.status != 200 {
		t.Fatalf("revoke on A: %s", r)
	}
	want401(t, h.do(t, "GET", "/v2/current_user", u.Header(), ""), "Invalid API key")
	h.clock.Advance(auth.StalenessBound - time.Second)
	if r := b.do(t, "GET", "/v2/current_user", u.Header(), ""); r.status != 200 {
		t.Fatalf("instance B within the cache bound: %s", r)
	}
	// Exchanging the key for tokens never trusts the cache: B refuses it at once.
	body := fmt.Sprintf(`{"api_key":%q}`, u.APIKey)
	want401(t, b.do(t, "POST", "/login/api_key", http.Header{"Content-Type": {"application/json"}}, body), "Invalid API key")
	h.clock.Advance(2 * time.Second)
	want401(t, b.do(t, "GET", "/v2/current_user", u.Header(), ""), "Invalid API key")
}
