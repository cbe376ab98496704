package identity_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestCreateUser(t *testing.T) {
	h := newHarness(t, openEmbedded(t))
	org := h.env.Org(t)
	taken := "Taken-" + uuid.NewString()[:8] + "@Example.com"
	if r := h.do(t, "POST", "/v2/users", org.Admin.Header(), `{"email":"`+taken+`","password":"long enough"}`); r.status != 200 {
		t.Fatalf("setup: %s", r)
	}
	fresh := func() string { return "u-" + uuid.NewString()[:8] + "@example.com" }

	tests := []struct {
		name   string
		hdr    http.Header
		body   string
		status int
		want   string // exact error body, or the state of the created user
	}{
		{"active user", org.Admin.Header(), `{"email":"` + fresh() + `","password":"s3cret-pass","first_name":"Ada","role":"manager"}`, 200, "active"},
		{"invited user", org.Admin.Header(), `{"email":"` + fresh() + `","role":"read_only"}`, 200, "invited"},
		{"null password invites", org.Admin.Header(), `{"email":"` + fresh() + `","password":null}`, 200, "invited"},
		{"e-mail taken in another case", org.Admin.Header(), `{"email":"` + strings.ToUpper(taken) + `"}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","email"],"msg":"Value error, User with this email already exists","input":"` +
				strings.ToLower(taken) + `","ctx":{"error":{}}}]}`},
		{"manager", org.Manager.Header(), `{"email":"` + fresh() + `"}`, 403, `{"detail":"Only organization admins can perform this action"}`},
		{"read-only", org.ReadOnly.Header(), `{"email":"` + fresh() + `"}`, 403, `{"detail":"Only organization admins can perform this action"}`},
		{"invalid body before permission", org.User.Header(), `{"role":"boss"}`, 422,
			`{"detail":[{"type":"missing","loc":["body","email"],"msg":"Field required","input":{"role":"boss"}},` +
				`{"type":"enum","loc":["body","role"],"msg":"Input should be 'admin', 'manager', 'user' or 'read_only'","input":"boss","ctx":{"expected":"'admin', 'manager', 'user' or 'read_only'"}}]}`},
		{"bad e-mail", org.Admin.Header(), `{"email":"nobody"}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","email"],"msg":"value is not a valid email address: An email address must have an @-sign.","input":"nobody","ctx":{"reason":"An email address must have an @-sign."}}]}`},
		{"short password", org.Admin.Header(), `{"email":"` + fresh() + `","password":"short"}`, 422,
			`{"detail":[{"type":"string_too_short","loc":["body","password"],"msg":"String should have at least 8 characters","input":"[redacted]","ctx":{"min_length":8}}]}`},
		{"no credential", nil, `{"email":"` + fresh() + `"}`, 401, `{"detail":"Not authenticated"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(t, "POST", "/v2/users", tt.hdr, tt.body)
			if r.status != tt.status {
				t.Fatalf("got %s, want %d", r, tt.status)
			}
			if tt.status != 200 {
				if string(r.body) != tt.want {
					t.Fatalf("body %s\nwant %s", r.body, tt.want)
				}
				return
			}
			var u struct {
				ID, Email, State string
				OrganizationID   string `json:"organization_id"`
			}
			r.json(t, &u)
			if u.State != tt.want || u.OrganizationID != org.ID || u.Email != strings.ToLower(u.Email) {
				t.Fatalf("created %s", r.body)
			}
			got := h.do(t, "GET", "/v2/users/"+u.ID, org.ReadOnly.Header(), "")
			if got.status != 200 || string(got.body) != string(r.body) {
				t.Fatalf("read back %s, want %s", got, r.body)
			}
		})
	}

	t.Run("created user logs in", func(t *testing.T) {
		email := fresh()
		h.do(t, "POST", "/v2/users", org.Admin.Header(), `{"email":"`+email+`","password":"s3cret-pass"}`)
		if r := h.do(t, "GET", "/v2/current_user", basicOf(email, "s3cret-pass"), ""); r.status != 200 {
			t.Fatalf("basic as the new user: %s", r)
		}
	})
	t.Run("read a user", func(t *testing.T) {
		want404 := `{"detail":"User not found"}`
		if r := h.do(t, "GET", "/v2/users/"+uuid.NewString(), org.User.Header(), ""); r.status != 404 || string(r.body) != want404 {
			t.Fatalf("unknown user: %s", r)
		}
		r := h.do(t, "GET", "/v2/users/nope", org.User.Header(), "")
		if r.status != 422 || !strings.Contains(string(r.body), `"type":"uuid_parsing","loc":["path","user_id"]`) {
			t.Fatalf("bad id: %s", r)
		}
	})
}
