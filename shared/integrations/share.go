package integrations

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// shareItem is one item of POST /v2/integrations/{integration_id}/users.
type shareItem struct {
	loc      []any
	raw      any
	id       string
	email    string
	emailLoc []any
	emailRaw any    // the address as sent, which errors echo (email is normalised)
	role     string // a collaborator role; only viewer may be granted (checked after access)
}

// where is the field that named the item's user, and its input there.
func (s shareItem) where() ([]any, any) {
	if s.id != "" {
		return validate.At(s.loc, "user_id"), s.id
	}
	return s.emailLoc, s.emailRaw
}

var (
	errNotFound = httpapi.NotFound("Integration")
	errNoShare  = httpapi.Forbidden("Only the integration's owner or an organization admin can share it")
)

const alreadyShared = "The user already has access to this integration"

// share is POST /v2/integrations/{integration_id}/users: [{role, user_id | user_email}],
// all or nothing, answered with the new viewers. An e-mail unknown to the service invites a
// new user into the caller's organization.
func (h *handlers) share(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("integration_id", 4, readShare))
	if err != nil {
		return err
	}
	c, id, items, body, ctx := call.Caller, call.In.ID, call.In.Req.items, call.In.Req.body, r.Context()
	in, err := h.visible(ctx, c, id)
	if err != nil {
		return err
	}
	if a := accessOf(c, in, false); a != accessOwner && a != accessAdmin {
		return errNoShare
	}
	if err := viewersOnly(items); err != nil {
		return err
	}
	users, invites, err := h.resolve(ctx, c, in, items)
	if err != nil {
		return err
	}
	now := h.Stamp()
	cs := make([]store.IntegrationCollaborator, len(items))
	for i, u := range users {
		cs[i] = store.IntegrationCollaborator{ID: uuid.NewString(), IntegrationID: in.ID, OrgID: c.OrgID,
			UserID: u.ID, Role: viewer, CreatedBy: c.UserID, CreatedAt: now, OwnerID: in.OwnerID, Provider: in.Provider}
	}
	var invited []store.Op
	for _, u := range invites {
		u.CreatedAt, u.UpdatedAt = now, now
		more, err := store.CreateUserOps(u, "")
		if err != nil {
			return err
		}
		invited = append(invited, more...)
	}
	if len(cs)+len(invited) > store.MaxTransactItems {
		return validate.Single(validate.ValueError([]any{"body"}, body,
			"too many changes for one request: each user counts 1 and each new e-mail address 3, at most 100 in all"))
	}
	ops, checked, err := store.ShareIntegrationOps(c.OrgID, in.ID, cs, len(invited))
	if err != nil {
		return err
	}
	err = store.ShareIntegrationError(h.Table.Transact(ctx, append(ops, invited...)), in.ID, len(cs), checked)
	var exists *store.IntegrationShareError
	switch {
	case errors.As(err, &exists):
		loc, input := items[exists.Index].where()
		return validate.Single(validate.ValueError(loc, input, alreadyShared))
	case errors.Is(err, store.ErrNotFound):
		return errNotFound // deleted meanwhile
	case errors.Is(err, store.ErrAlreadyExists):
		return httpapi.Conflict("A user with one of these e-mail addresses was created meanwhile; try again")
	case err != nil:
		return err
	}
	perms := permissionsOf(accessViewer)
	out := make([]collaborator, len(cs))
	for i, col := range cs {
		u := users[i]
		out[i] = collaborator{ID: col.ID, Role: col.Role, CreatedAt: timestamp(col.CreatedAt), UserID: u.ID,
			FirstName: optional(u.FirstName), LastName: optional(u.LastName), Email: u.Email, Permissions: perms}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// readShare validates the body (after the path: base.ByID).
func readShare(errs *validate.Errors, raw any, present bool) shareRequest {
	values, _ := errs.Body(raw, present).Required().List(validate.MaxLen(store.MaxIntegrationShares))
	items := make([]shareItem, 0, len(values))
	for _, v := range values {
		o, ok := v.Object()
		if !ok {
			continue
		}
		before := errs.Len()
		s := shareItem{loc: v.Loc(), raw: v.Raw(), role: viewer}
		if role, ok := o.Get("role").Enum(collaboratorRoles...); ok {
			s.role = role
		}
		idValue, emailValue := o.Get("user_id").Nullable(), o.Get("user_email").Nullable()
		s.id, _ = idValue.UUID(4)
		s.email, _ = readEmail(emailValue)
		s.emailLoc, s.emailRaw = emailValue.Loc(), emailValue.Raw()
		// As a Pydantic model validator, the item-wide rule runs once its fields are valid.
		if errs.Len() == before && absent(idValue) && absent(emailValue) {
			v.Fail("either user_id or user_email is required")
		}
		items = append(items, s)
	}
	return shareRequest{items: items, body: raw}
}

// shareRequest is the body of a share: its items, and the body as sent.
type shareRequest struct {
	items []shareItem
	body  any
}

func absent(v validate.Value) bool { return !v.Present() || v.IsNull() }

// The collaborator roles of the request's model (the original service's CollaboratorRole);
// an integration is shared with viewers only, a rule of the operation (§4, §7).
const viewer = "viewer"

var collaboratorRoles = []string{"owner", "editor", "annotator", viewer}

// viewersOnly refuses every item that asks for a role other than viewer.
func viewersOnly(items []shareItem) error {
	errs := validate.New()
	for _, it := range items {
		if it.role != viewer {
			errs.Add(validate.ValueError(validate.At(it.loc, "role"), it.role,
				"an integration can be shared with the viewer role only"))
		}
	}
	return errs.Err()
}

// visible reads an integration the caller can see: its owner, an organization admin, or a
// user it is shared with; 404 for anyone else, as for an integration that does not exist.
func (h *handlers) visible(ctx context.Context, c auth.Caller, id string) (store.Integration, error) {
	in, err := store.GetIntegration(ctx, h.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Integration{}, errNotFound
	}
	if err != nil {
		return store.Integration{}, err
	}
	if accessOf(c, in, false) != accessNone {
		return in, nil
	}
	col, err := store.IntegrationCollaboratorOf(ctx, h.Table, c.OrgID, id, c.UserID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Integration{}, errNotFound
	case err != nil:
		return store.Integration{}, err
	}
	// A share written before GET /v2/integrations listed shares names no record and has no
	// entry under its user: give it both now (once), so that the list shows it from then on.
	if col.OwnerID == "" {
		if err := store.ListIntegrationShare(ctx, h.Table, in, c.UserID); err != nil {
			h.Log.WarnContext(ctx, "integration share not indexed", "integration_id", id, "error", err)
		}
	}
	return in, nil
}

// resolve finds the user each item names in the caller's organization, and the users to
// invite for unknown e-mail addresses. An unknown user_id, an id and an e-mail naming two
// users, an e-mail of another organization's user, the same user twice and the owner are
// 422s at their item, all reported at once.
func (h *handlers) resolve(ctx context.Context, c auth.Caller, in store.Integration, items []shareItem) ([]store.User, []store.User, error) {
	var ids []string
	for _, s := range items {
		if s.id != "" {
			ids = append(ids, s.id)
		}
	}
	byID := map[string]store.User{}
	if len(ids) > 0 {
		found, err := store.OrgUsers(ctx, h.Table, c.OrgID, ids)
		if err != nil {
			return nil, nil, err
		}
		for _, u := range found {
			byID[u.ID] = u
		}
	}
	errs := validate.New()
	users := make([]store.User, len(items))
	var invites []store.User
	seen := map[string]bool{}
	for i, s := range items {
		var u store.User
		if s.id != "" {
			var ok bool
			if u, ok = byID[s.id]; !ok {
				errs.Add(validate.ValueError(validate.At(s.loc, "user_id"), s.id, "no user with this id in the organization"))
				continue
			}
		}
		if s.email != "" {
			byEmail, _, err := store.UserByEmail(ctx, h.Table, s.email)
			switch {
			case errors.Is(err, store.ErrNotFound) && u.ID == "":
				u = store.User{ID: uuid.NewString(), OrgID: c.OrgID, Email: s.email, Role: string(auth.RoleUser), State: store.UserInvited}
				invites = append(invites, u)
			case errors.Is(err, store.ErrNotFound):
				errs.Add(validate.ValueError(s.loc, s.raw, "user_id and user_email name different users"))
				continue
			case err != nil:
				return nil, nil, err
			case byEmail.OrgID != c.OrgID:
				errs.Add(validate.ValueError(s.emailLoc, s.emailRaw, "this e-mail address cannot be invited to the organization"))
				continue
			case u.ID != "" && u.ID != byEmail.ID:
				errs.Add(validate.ValueError(s.loc, s.raw, "user_id and user_email name different users"))
				continue
			default:
				u = byEmail
			}
		}
		loc, input := s.where()
		switch {
		case seen[u.ID] || seen[u.Email]:
			errs.Add(validate.ValueError(loc, input, "the user appears twice in this request"))
			continue
		case u.ID == in.OwnerID:
			errs.Add(validate.ValueError(loc, input, alreadyShared))
			continue
		}
		seen[u.ID], seen[u.Email] = true, true
		users[i] = u
	}
	return users, invites, errs.Err()
}

// readEmail reads an e-mail address (validate's EmailStr rules), normalised for storage.
func readEmail(v validate.Value) (string, bool) {
	s, ok := v.Email()
	return store.NormalizeEmail(s), ok
}
