package integrations

import (
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/store"
)

// integration is the Integration of spec §2.1: never a secret, never a setting.
type integration struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Provider    string       `json:"provider"`
	CreatedAt   string       `json:"created_at"`
	UpdatedAt   string       `json:"updated_at"`
	CreatedBy   string       `json:"created_by"`
	Permissions []permission `json:"permissions"`
	IsSelected  bool         `json:"is_selected"`
	IsDisabled  bool         `json:"is_disabled"`
	// ModelPrices (beyond the specification) shows the prices the integration was given;
	// absent when none were.
	ModelPrices map[string]any `json:"model_prices,omitempty"`
}

type permission struct {
	Action  string  `json:"action"`
	Allowed bool    `json:"allowed"`
	Message *string `json:"message"`
}

// collaborator is the response item of spec §2.3.
type collaborator struct {
	ID          string       `json:"id"`
	Role        string       `json:"role"`
	CreatedAt   string       `json:"created_at"`
	UserID      string       `json:"user_id"`
	FirstName   *string      `json:"first_name"`
	LastName    *string      `json:"last_name"`
	Email       string       `json:"email"`
	Permissions []permission `json:"permissions"`
}

// Access levels to an integration.
type access int

const (
	accessNone   access = iota
	accessViewer        // shared with the user
	accessAdmin         // an organization admin: may share, not read the secrets
	accessOwner
)

// actions are the original service's IntegrationAction values.
var actions = []string{"update", "delete", "share", "read_secrets"}

// permissionsOf lists the actions for a level of access. The owner may do everything; an
// organization admin may manage (update, delete, share) but not read another user's
// credentials; a viewer may only use the integration.
func permissionsOf(a access) []permission {
	out := make([]permission, len(actions))
	for i, act := range actions {
		ok := a == accessOwner || (a == accessAdmin && act != "read_secrets")
		p := permission{Action: act, Allowed: ok}
		if !ok {
			msg := denials[act]
			p.Message = &msg
		}
		out[i] = p
	}
	return out
}

var denials = map[string]string{
	"update":       "Only the integration's owner can update it",
	"delete":       "Only the integration's owner can delete it",
	"share":        "Only the integration's owner can share it",
	"read_secrets": "Only the integration's owner can read its secrets",
}

// accessOf is the caller's access to in, given whether it is shared with them.
func accessOf(c auth.Caller, in store.Integration, shared bool) access {
	switch {
	case in.OwnerID == c.UserID:
		return accessOwner
	case c.IsAdmin():
		return accessAdmin
	case shared:
		return accessViewer
	}
	return accessNone
}

func integrationOut(in store.Integration, a access) integration {
	return integration{ID: in.ID, Name: in.Name, Provider: in.Provider, CreatedAt: timestamp(in.CreatedAt),
		UpdatedAt: timestamp(in.UpdatedAt), CreatedBy: in.OwnerID, Permissions: permissionsOf(a),
		IsSelected: in.IsSelected, IsDisabled: in.IsDisabled, ModelPrices: modelPrices(in.Settings)}
}

func modelPrices(s map[string]any) map[string]any {
	m, _ := s["model_prices"].(map[string]any)
	if len(m) == 0 {
		return nil
	}
	return m
}

// timestamp is the API's form of a time: RFC 3339 in UTC.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
