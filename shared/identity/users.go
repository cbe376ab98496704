package identity

import (
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// userResponse is a user as the API shows it: never a credential.
type userResponse struct {
	ID             string `json:"id"`
	Email          string `json:"email"`
	FirstName      string `json:"first_name"`
	LastName       string `json:"last_name"`
	Role           string `json:"role"`
	State          string `json:"state"`
	OrganizationID string `json:"organization_id"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
}

func userOut(u store.User) userResponse {
	return userResponse{ID: u.ID, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName,
		Role: u.Role, State: u.State, OrganizationID: u.OrgID,
		CreatedAt: timestamp(u.CreatedAt), UpdatedAt: timestamp(u.UpdatedAt)}
}

// timestamp is the API's form of a time: RFC 3339 in UTC with a Z.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func optionalTimestamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := timestamp(*t)
	return &s
}

// currentUser is GET /v2/current_user: the caller.
func (h *handlers) currentUser(w http.ResponseWriter, r *http.Request) error {
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	u, err := store.OrgUser(r.Context(), h.Table, c.OrgID, c.UserID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, userOut(u))
	return nil
}

// getUser is GET /v2/users/{user_id}: a user of the caller's organization.
func (h *handlers) getUser(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, base.PathID("user_id", 4))
	if err != nil {
		return err
	}
	u, err := store.OrgUser(r.Context(), h.Table, call.Caller.OrgID, call.In)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("User")
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, userOut(u))
	return nil
}

// newUser is the body of POST /v2/users.
type newUser struct {
	email, first, last, role, password string
}

func readNewUser(errs *validate.Errors, raw any, present bool) newUser {
	var n newUser
	if body, ok := errs.Body(raw, present).Required().Object(); ok {
		n.email, _ = readEmail(body.Get("email").Required())
		n.first, _ = body.Get("first_name").Nullable().String(validate.MaxLen(255))
		n.last, _ = body.Get("last_name").Nullable().String(validate.MaxLen(255))
		n.role = string(auth.RoleUser)
		if role, ok := body.Get("role").Enum(string(auth.RoleAdmin), string(auth.RoleManager), string(auth.RoleUser), string(auth.RoleReadOnly)); ok {
			n.role = role
		}
		n.password, _ = body.Get("password").Nullable().String(validate.MinLen(8), validate.MaxLen(auth.MaxPasswordLen))
	}
	return n
}

// readEmail reads an e-mail address (validate's EmailStr rules), normalised for storage.
func readEmail(v validate.Value) (string, bool) {
	s, ok := v.Email()
	return store.NormalizeEmail(s), ok
}

// createUser is POST /v2/users: an organization admin adds a user, with a password or as
// invited (no password: the user cannot log in until one is set).
func (h *handlers) createUser(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Admin: true}, base.ReadBody(readNewUser))
	if err != nil {
		return err
	}
	c, n, now := call.Caller, call.In, h.Stamp()
	u := store.User{ID: uuid.NewString(), OrgID: c.OrgID, Email: n.email, FirstName: n.first, LastName: n.last,
		Role: n.role, State: store.UserInvited, CreatedAt: now, UpdatedAt: now}
	var hash string
	if n.password != "" {
		if hash, err = h.Auth.HashPassword(r.Context(), n.password); err != nil {
			return err
		}
		u.State = store.UserActive
	}
	err = store.CreateUser(r.Context(), h.Table, u, hash)
	if errors.Is(err, store.ErrAlreadyExists) {
		return validate.Single(validate.ValueError([]any{"body", "email"}, n.email, "User with this email already exists"))
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, userOut(u))
	return nil
}
