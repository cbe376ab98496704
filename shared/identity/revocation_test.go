package identity_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// TestRevocation ends sessions by every path that should end them, on every backend, and
// checks both the access token and the refresh cookie of each: refused at once on the
// instance that made the change, and within auth.StalenessBound on another instance that
// had validated the token a moment before; sessions the change does not concern go on.
func TestRevocation(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { testRevocation(t, b.open(t)) })
	}
}

// instances are two Lambda instances of the identity function on one table, with one clock.
type instances struct {
	a, b *harness
}

func newInstances(t *testing.T, tbl store.Table) instances {
	a := newHarness(t, tbl)
	other, err := auth.New(auth.Config{Table: a.env.Table, Secrets: a.env.Secrets, SecretRef: "authtest/jwt",
		Now: a.clock.Now, Logger: slog.New(slog.NewJSONHandler(suite, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rt := httpapi.NewRouter(slog.New(slog.NewJSONHandler(suite, nil)))
	mount(rt, other, a.env.Table, a.clock.Now)
	t.Cleanup(other.Wait)
	return instances{a: a, b: &harness{env: a.env, svc: other, rt: rt, clock: a.clock, check: true}}
}

// loginWithKey exchanges the user's API key for a session.
func loginWithKey(t *testing.T, h *harness, key string) session {
	t.Helper()
	return sessionOf(t, h.do(t, "POST", "/login/api_key", http.Header{"Content-Type": {"application/json"}}, fmt.Sprintf(`{"api_key":%q}`, key)))
}

// works says whether the session's access token authenticates on h.
func works(t *testing.T, h *harness, s session) bool {
	t.Helper()
	r := h.do(t, "GET", "/v2/current_user", bearerOf(s.access), "")
	if r.status != 200 && r.status != 401 {
		t.Fatalf("current_user: %s", r)
	}
	return r.status == 200
}

// ended asserts that s is over: its access token refused on a at once and on b (which
// validated it a moment before) after the staleness bound, its refresh cookie refused.
func (in instances) ended(t *testing.T, name string, s session) {
	t.Helper()
	if works(t, in.a, s) {
		t.Errorf("%s: the access token still works on the instance that ended it", name)
	}
	in.a.clock.Advance(auth.StalenessBound + time.Second)
	if works(t, in.b, s) {
		t.Errorf("%s: the access token still works on another instance after %v", name, auth.StalenessBound)
	}
	r := in.b.do(t, "POST", "/v2/refresh_token", s.headers(false), "")
	if r.status != 401 {
		t.Errorf("%s: the refresh cookie still rotates: %s", name, r)
	}
}

// live asserts that s goes on: its access token works on both instances and its cookie
// rotates (the rotated session is returned).
func (in instances) live(t *testing.T, name string, s session) session {
	t.Helper()
	if !works(t, in.a, s) || !works(t, in.b, s) {
		t.Fatalf("%s: a session the change does not concern was ended", name)
	}
	return sessionOf(t, in.b.do(t, "POST", "/v2/refresh_token", s.headers(false), ""))
}

// warm has b validate s, so that b holds it in its cache when the change is made on a.
func (in instances) warm(t *testing.T, ss ...session) {
	t.Helper()
	for _, s := range ss {
		if !works(t, in.b, s) {
			t.Fatal("a fresh session does not work")
		}
	}
}

func testRevocation(t *testing.T, tbl store.Table) {
	in := newInstances(t, tbl)
	org := in.a.env.Org(t)
	admin := org.Admin

	t.Run("revoked API key", func(t *testing.T) {
		u := in.a.env.AddUser(t, org.ID, auth.RoleUser)
		byKey, byPassword := loginWithKey(t, in.a, u.APIKey), login(t, in.a, u)
		in.warm(t, byKey, byPassword)
		if r := in.a.do(t, "DELETE", "/v2/api_keys/"+keyID(u.APIKey), bearerOf(byPassword.access), ""); r.status != 200 {
			t.Fatalf("revoke: %s", r)
		}
		in.ended(t, "revoked key", byKey)
		in.live(t, "password session of the key's owner", byPassword)
	})

	t.Run("expired API key", func(t *testing.T) {
		u := in.a.env.AddUser(t, org.ID, auth.RoleUser)
		r := in.a.do(t, "POST", "/v2/api_keys", u.BearerHeader(),
			fmt.Sprintf(`{"description":"short","expires_at":%q}`, in.a.clock.Now().Add(time.Hour).Format(time.RFC3339)))
		var k struct {
			APIKey string `json:"api_key"`
		}
		r.json(t, &k)
		s := loginWithKey(t, in.a, k.APIKey)
		in.warm(t, s)
		in.a.clock.Advance(time.Hour)
		in.ended(t, "expired key", s)
	})

	t.Run("password change", func(t *testing.T) {
		u := in.a.env.AddUser(t, org.ID, auth.RoleUser)
		old1, old2, byKey := login(t, in.a, u), login(t, in.a, u), loginWithKey(t, in.a, u.APIKey)
		in.warm(t, old1, old2, byKey)
		in.a.clock.Advance(time.Second)
		body := fmt.Sprintf(`{"current_password":%q,"new_password":"a-brand-new-password"}`, u.Password)
		if r := in.a.do(t, "PUT", "/v2/current_user/password", bearerOf(old1.access), body); r.status != 204 {
			t.Fatalf("change password: %s", r)
		}
		in.ended(t, "password session that changed it", old1)
		in.ended(t, "other password session", old2)
		in.live(t, "API-key session", byKey)
		u.Password = "a-brand-new-password"
		in.live(t, "login with the new password", login(t, in.a, u))
		r := in.a.do(t, "POST", "/login", form(), "username="+u.Email+"&password=wrong-old-one")
		want401(t, r, "Incorrect username or password")
	})

	t.Run("deactivated user", func(t *testing.T) {
		u := in.a.env.AddUser(t, org.ID, auth.RoleUser)
		s, k := login(t, in.a, u), loginWithKey(t, in.a, u.APIKey)
		in.warm(t, s, k)
		if r := in.a.do(t, "PATCH", "/v2/users/"+u.UserID, admin.Header(), `{"state":"deactivated"}`); r.status != 200 {
			t.Fatalf("deactivate: %s", r)
		}
		in.ended(t, "password session", s)
		in.ended(t, "API-key session", k)
		want401(t, in.a.do(t, "POST", "/login", form(), "username="+u.Email+"&password="+u.Password), "Incorrect username or password")
		if r := in.a.do(t, "PATCH", "/v2/users/"+u.UserID, admin.Header(), `{"state":"active"}`); r.status != 200 {
			t.Fatalf("reactivate: %s", r)
		}
		in.live(t, "a new login after reactivation", login(t, in.a, u))
	})

	t.Run("deleted user", func(t *testing.T) {
		u := in.a.env.AddUser(t, org.ID, auth.RoleUser)
		s, k := login(t, in.a, u), loginWithKey(t, in.a, u.APIKey)
		in.warm(t, s, k)
		if r := in.a.do(t, "DELETE", "/v2/users/"+u.UserID, admin.Header(), ""); r.status != 204 {
			t.Fatalf("delete: %s", r)
		}
		in.ended(t, "password session", s)
		in.ended(t, "API-key session", k)
		in.a.clock.Advance(auth.StalenessBound + time.Second)
		want401(t, in.b.do(t, "GET", "/v2/current_user", u.Header(), ""), "Invalid API key")
	})

	t.Run("logout", func(t *testing.T) {
		u := in.a.env.AddUser(t, org.ID, auth.RoleUser)
		here, there := login(t, in.a, u), login(t, in.a, u)
		in.warm(t, here, there)
		r := in.a.do(t, "POST", "/v2/logout", here.headers(true), "")
		if r.status != 204 || r.cookie() == nil || r.cookie().MaxAge >= 0 || len(r.cookies()) != 1 {
			t.Fatalf("logout: %s (cookie %v)", r, r.cookie())
		}
		in.ended(t, "logged-out session", here)
		in.live(t, "the other session", there)
		want401(t, in.a.do(t, "POST", "/v2/logout", nil, ""), "Not authenticated")
	})

	t.Run("logout everywhere", func(t *testing.T) {
		u := in.a.env.AddUser(t, org.ID, auth.RoleUser)
		one, two, k := login(t, in.a, u), login(t, in.a, u), loginWithKey(t, in.a, u.APIKey)
		in.warm(t, one, two, k)
		if r := in.a.do(t, "POST", "/v2/logout/all", bearerOf(one.access), ""); r.status != 204 {
			t.Fatalf("logout everywhere: %s", r)
		}
		for name, s := range map[string]session{"first": one, "second": two, "API-key": k} {
			in.ended(t, name+" session", s)
		}
		if r := in.a.do(t, "GET", "/v2/current_user", u.Header(), ""); r.status != 200 {
			t.Fatalf("the API key itself is not a session and goes on: %s", r)
		}
	})
}

func TestUserManagementRules(t *testing.T) {
	h := newHarness(t, openEmbedded(t))
	org := h.env.Org(t)
	other := h.env.Org(t)
	u := org.User
	for _, tc := range []struct {
		name, method, path string
		who                authtest.User
		body               string
		status             int
	}{
		{"own names", "PATCH", "/v2/users/" + u.UserID, u, `{"first_name":"Ada"}`, 200},
		{"own role", "PATCH", "/v2/users/" + u.UserID, u, `{"role":"admin"}`, 403},
		{"admin's own state", "PATCH", "/v2/users/" + org.Admin.UserID, org.Admin, `{"state":"deactivated"}`, 422},
		{"someone else's names", "PATCH", "/v2/users/" + org.Admin.UserID, u, `{"first_name":"X"}`, 403},
		{"bad state", "PATCH", "/v2/users/" + u.UserID, org.Admin, `{"state":"invited"}`, 422},
		{"another organization's user", "PATCH", "/v2/users/" + other.User.UserID, org.Admin, `{"first_name":"X"}`, 404},
		{"delete oneself", "DELETE", "/v2/users/" + org.Admin.UserID, org.Admin, "", 422},
		{"delete as a user", "DELETE", "/v2/users/" + org.Manager.UserID, u, "", 403},
		{"delete another organization's user", "DELETE", "/v2/users/" + other.User.UserID, org.Admin, "", 404},
		{"wrong current password", "PUT", "/v2/current_user/password", u, `{"current_password":"nope","new_password":"long-enough-1"}`, 422},
		{"short new password", "PUT", "/v2/current_user/password", u, `{"current_password":"x","new_password":"short"}`, 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := h.do(t, tc.method, tc.path, tc.who.Header(), tc.body); r.status != tc.status {
				t.Fatalf("got %s, want %d", r, tc.status)
			}
		})
	}
	r := h.do(t, "GET", "/v2/users/"+u.UserID, org.Admin.Header(), "")
	var got struct {
		FirstName string `json:"first_name"`
		Role      string `json:"role"`
	}
	r.json(t, &got)
	if got.FirstName != "Ada" || got.Role != string(auth.RoleUser) {
		t.Fatalf("after the changes: %s", r)
	}
}
