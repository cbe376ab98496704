// Package identity serves the identity operation group: logging in (password and API
// key), the refresh exchange (operation 1), the current user, users, API keys, groups and
// their members. How a request is authenticated is shared/auth's; this package is the
// routes that manage the identities and sessions auth checks.
package identity

import (
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
)

// Deps is what the group needs.
type Deps struct {
	base.Deps
	Auth *auth.Service // required: sessions, password hashing, API keys
}

// Register mounts the group's routes: the login routes and the refresh exchange without
// authentication, the rest behind d.Authenticate.
func Register(rt *httpapi.Router, d Deps) {
	if d.Auth == nil {
		panic("identity: Deps.Auth is required")
	}
	d.Deps = d.Deps.WithDefaults("identity")
	h := &handlers{Deps: d}
	rt.Handle("POST /login", h.login)
	rt.Handle("POST /login/api_key", h.loginAPIKey)
	rt.Handle("POST /v2/refresh_token", h.refresh)
	rt.Handle("POST /v2/logout", h.logout)

	rt.Handle("GET /v2/current_user", h.currentUser, d.Authenticate)
	rt.Handle("POST /v2/users", h.createUser, d.Authenticate)
	rt.Handle("GET /v2/users/{user_id}", h.getUser, d.Authenticate)
	rt.Handle("PATCH /v2/users/{user_id}", h.updateUser, d.Authenticate)
	rt.Handle("DELETE /v2/users/{user_id}", h.deleteUser, d.Authenticate)
	rt.Handle("PUT /v2/current_user/password", h.changePassword, d.Authenticate)
	rt.Handle("POST /v2/logout/all", h.logoutEverywhere, d.Authenticate)
	rt.Handle("POST /v2/api_keys", h.createAPIKey, d.Authenticate)
	rt.Handle("GET /v2/api_keys", h.listAPIKeys, d.Authenticate)
	rt.Handle("DELETE /v2/api_keys/{api_key_id}", h.revokeAPIKey, d.Authenticate)
	rt.Handle("POST /v2/groups", h.createGroup, d.Authenticate)
	rt.Handle("GET /v2/groups/{group_id}", h.getGroup, d.Authenticate)
	rt.Handle("POST /v2/groups/{group_id}/members", h.addGroupMembers, d.Authenticate)
}

type handlers struct{ Deps }
