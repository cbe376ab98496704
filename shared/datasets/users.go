package datasets

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

// userShare is one item of POST .../users: a user named by id or e-mail (both must agree).
type userShare struct {
	newShare
	email    string
	emailLoc []any
	raw      any // the item
}

// readUserShares reads the body of a share with users: a list of users, by id or e-mail,
// with roles.
func readUserShares(errs *validate.Errors, raw any, present bool) userShares {
	items, _ := errs.Body(raw, present).Required().List(validate.MinLen(1), validate.MaxLen(store.MaxDatasetUserShares))
	shares := make(userShares, 0, len(items))
	for _, item := range items {
		o, ok := item.Object()
		if !ok {
			continue
		}
		s := userShare{newShare: newShare{role: readRole(o), loc: item.Loc()}, raw: item.Raw()}
		idValue, emailValue := o.Get("user_id").Nullable(), o.Get("user_email").Nullable()
		s.id, _ = idValue.UUID(0)
		s.email, _ = emailValue.String(validate.MinLen(1), validate.MaxLen(320))
		s.emailLoc = emailValue.Loc()
		if absent(idValue) && absent(emailValue) {
			item.Fail("either user_id or user_email is required")
		}
		shares = append(shares, s)
	}
	return shares
}

// shareWithUsers is POST /v2/datasets/{dataset_id}/users: [{"user_id" | "user_email",
// "role"}], all or nothing, answered with the new collaborators. Only the owner (or an
// organization admin) shares; a user who has a role on the dataset already (the owner
// included), the same user twice, or a user unknown in the organization is a 422 at that
// item.
func (h *handlers) shareWithUsers(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, onDataset(readUserShares))
	if err != nil {
		return err
	}
	c, id, shares, ctx := call.Caller, call.In.ID, call.In.Req, r.Context()
	g, err := h.grant(ctx, c, id)
	if err != nil {
		return err
	}
	if !allowed(g.Role, "share") {
		return errNoShare
	}
	users, err := h.resolveUsers(ctx, c, shares)
	if err != nil {
		return err
	}
	now := h.Stamp()
	cs := make([]store.DatasetCollaborator, len(shares))
	for i, s := range shares {
		cs[i] = store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: id, OrgID: c.OrgID, UserID: users[i].ID,
			Role: s.role, CreatedBy: c.UserID, CreatedAt: now}
	}
	if err := h.share(r, id, cs, shares.where, "The user already has access to this dataset"); err != nil {
		return err
	}
	resp := make([]collaborator, len(cs))
	perms := collaboratorPermissions(g.Role)
	for i, col := range cs {
		u := users[i]
		resp[i] = collaborator{ID: col.ID, Role: col.Role, CreatedAt: col.CreatedAt, UserID: u.ID,
			FirstName: u.FirstName, LastName: u.LastName, Email: u.Email, Permissions: perms}
	}
	httpapi.WriteJSON(w, http.StatusOK, resp)
	return nil
}

type userShares []userShare

// where is the field that named user i, and its input there.
func (us userShares) where(i int) ([]any, any) {
	if s := us[i]; s.id != "" {
		return validate.At(s.loc, "user_id"), s.id
	}
	return us[i].emailLoc, us[i].email
}

func absent(v validate.Value) bool { return !v.Present() || v.IsNull() }

// resolveUsers finds the user each item names in the caller's organization; any item that
// names nobody there, two different users, or a user named before is a 422.
func (h *handlers) resolveUsers(ctx context.Context, c auth.Caller, shares userShares) ([]store.User, error) {
	var ids []string
	for _, s := range shares {
		if s.id != "" {
			ids = append(ids, s.id)
		}
	}
	byID := map[string]store.User{}
	if len(ids) > 0 {
		found, err := store.OrgUsers(ctx, h.Table, c.OrgID, uniq(ids))
		if err != nil {
			return nil, err
		}
		for _, u := range found {
			byID[u.ID] = u
		}
	}
	errs := validate.New()
	out := make([]store.User, len(shares))
	seen := map[string]bool{}
	for i, s := range shares {
		idLoc := validate.At(s.loc, "user_id")
		var u store.User
		if s.id != "" {
			var ok bool
			if u, ok = byID[s.id]; !ok {
				errs.Add(validate.ValueError(idLoc, s.id, "no user with this id in the organization"))
				continue
			}
		}
		if s.email != "" {
			byEmail, _, err := store.UserByEmail(ctx, h.Table, s.email)
			switch {
			case errors.Is(err, store.ErrNotFound) || (err == nil && byEmail.OrgID != c.OrgID):
				errs.Add(validate.ValueError(s.emailLoc, s.email, "no user with this e-mail in the organization"))
				continue
			case err != nil:
				return nil, err
			case u.ID != "" && u.ID != byEmail.ID:
				errs.Add(validate.ValueError(s.loc, s.raw, "user_id and user_email name different users"))
				continue
			}
			u = byEmail
		}
		if seen[u.ID] {
			loc, input := shares.where(i)
			errs.Add(validate.ValueError(loc, input, "the user appears twice in this request"))
			continue
		}
		seen[u.ID] = true
		out[i] = u
	}
	return out, errs.Err()
}
