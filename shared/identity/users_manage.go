package identity

import (
	"errors"
	"net/http"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// userUpdate is the body of PATCH /v2/users/{user_id}: the fields sent are changed.
type userUpdate struct {
	change      store.UserChange
	adminFields bool // role or state: an admin's change
	body        any  // as sent
}

func readUserUpdate(errs *validate.Errors, raw any, present bool) userUpdate {
	u := userUpdate{body: raw}
	body, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return u
	}
	str := func(name string, rules ...validate.Rule) *string {
		if s, ok := body.Get(name).Nullable().String(rules...); ok {
			return &s
		}
		return nil
	}
	u.change.FirstName = str("first_name", validate.MaxLen(255))
	u.change.LastName = str("last_name", validate.MaxLen(255))
	if role, ok := body.Get("role").Nullable().Enum(string(auth.RoleAdmin), string(auth.RoleManager), string(auth.RoleUser), string(auth.RoleReadOnly)); ok {
		u.change.Role = &role
	}
	if state, ok := body.Get("state").Nullable().Enum(store.UserActive, store.UserDeactivated); ok {
		u.change.State = &state
	}
	u.adminFields = u.change.Role != nil || u.change.State != nil
	return u
}

// updateUser is PATCH /v2/users/{user_id}: a user changes their own names; an organization
// admin changes anyone's, and another user's role or state. Deactivating a user ends every
// session of theirs at once (their tokens are refused within auth.StalenessBound on other
// instances); reactivating one without a password makes them invited again.
func (h *handlers) updateUser(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("user_id", 4, readUserUpdate))
	if err != nil {
		return err
	}
	c, id, upd := call.Caller, call.In.ID, call.In.Req
	if id != c.UserID || upd.adminFields {
		if err := auth.RequireAdmin(r.Context()); err != nil {
			return err
		}
	}
	target, a, err := store.GetUser(r.Context(), h.Table, id, true)
	if errors.Is(err, store.ErrNotFound) || (err == nil && target.OrgID != c.OrgID) {
		return httpapi.NotFound("User")
	}
	if err != nil {
		return err
	}
	if id == c.UserID && upd.adminFields {
		return validate.Single(validate.ValueError([]any{"body"}, upd.body, "you cannot change your own role or state"))
	}
	if s := upd.change.State; s != nil && *s == store.UserActive && a.PasswordHash == "" {
		invited := store.UserInvited
		upd.change.State = &invited
	}

	u, err := store.UpdateUser(r.Context(), h.Table, c.OrgID, id, upd.change, h.Stamp())
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("User")
	}
	if err != nil {
		return err
	}
	if u.State == store.UserDeactivated {
		h.Auth.ForgetUser(u.ID)
		if err := h.Auth.EndAllSessions(r.Context(), u.ID); err != nil {
			return err
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, userOut(u))
	return nil
}

// deleteUser is DELETE /v2/users/{user_id}: an organization admin removes another user of
// the organization. Their sessions and API keys stop working at once here and within
// auth.StalenessBound elsewhere; their e-mail address is free again.
func (h *handlers) deleteUser(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Admin: true}, base.PathID("user_id", 4))
	if err != nil {
		return err
	}
	c, id := call.Caller, call.In
	if id == c.UserID {
		return validate.Single(validate.ValueError([]any{"path", "user_id"}, id, "you cannot delete yourself"))
	}
	err = store.DeleteUser(r.Context(), h.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("User")
	}
	if err != nil {
		return err
	}
	h.Auth.ForgetUser(id)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// changePassword is PUT /v2/current_user/password: {"current_password", "new_password"}.
// Every session started with the old password ends (this one too, when it was one: the
// client logs in again); sessions started with an API key go on.
func (h *handlers) changePassword(w http.ResponseWriter, r *http.Request) error {
	type passwords struct{ current, next string }
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (p passwords) {
		if body, ok := in.Body().Required().Object(); ok {
			p.current, _ = body.Get("current_password").Required().String(validate.MaxLen(auth.MaxPasswordLen))
			p.next, _ = body.Get("new_password").Required().String(validate.MinLen(8), validate.MaxLen(auth.MaxPasswordLen))
		}
		return p
	})
	if err != nil {
		return err
	}
	c, current, next := call.Caller, call.In.current, call.In.next

	if _, err := h.Auth.CheckPassword(r.Context(), c.Email, current); err != nil {
		var se *httpapi.StatusError
		if errors.As(err, &se) && se.Status == http.StatusUnauthorized {
			return validate.Single(validate.ValueError([]any{"body", "current_password"}, "[redacted]", "the current password is not correct"))
		}
		return err
	}
	hash, err := h.Auth.HashPassword(r.Context(), next)
	if err != nil {
		return err
	}
	if err := store.SetPassword(r.Context(), h.Table, c.UserID, hash, h.Stamp()); err != nil {
		return err
	}
	h.Auth.ForgetPasswordSessions(c.UserID)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
