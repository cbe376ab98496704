package experiments

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/collection"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The collaborators of a template (/v2/templates/{template_id}/users and /groups): users and
// groups of the organization with one of the roles datasets use. They are recorded and
// listed; what a caller may do with a template follows its organization role (see
// docs/EXPERIMENTS.md).

// collaboratorRoles are the roles of a collaborator (CollaboratorRole).
var collaboratorRoles = []string{"owner", "editor", "annotator", "viewer"}

// maxCollaborators bounds the items of one add (one transaction).
const maxCollaborators = 100

type userCollaborator struct {
	ID          string    `json:"id"`
	Permissions []any     `json:"permissions"`
	Role        string    `json:"role"`
	CreatedAt   time.Time `json:"created_at"`
	UserID      string    `json:"user_id"`
	FirstName   string    `json:"first_name"`
	LastName    string    `json:"last_name"`
	Email       string    `json:"email"`
}

type groupCollaborator struct {
	ID          string    `json:"id"`
	Permissions []any     `json:"permissions"`
	Role        string    `json:"role"`
	CreatedAt   time.Time `json:"created_at"`
	GroupID     string    `json:"group_id"`
	GroupName   string    `json:"group_name"`
}

func userCollaboratorOut(c store.TemplateCollaborator, u store.User) userCollaborator {
	return userCollaborator{ID: c.ID, Permissions: []any{}, Role: c.Role, CreatedAt: c.CreatedAt, UserID: u.ID,
		FirstName: u.FirstName, LastName: u.LastName, Email: u.Email}
}

func groupCollaboratorOut(c store.TemplateCollaborator, g store.Group) groupCollaborator {
	return groupCollaborator{ID: c.ID, Permissions: []any{}, Role: c.Role, CreatedAt: c.CreatedAt, GroupID: g.ID, GroupName: g.Name}
}

// newCollaborator is one item of an add: a user (by id or e-mail) or a group, and a role.
type newCollaborator struct {
	id, email, role string
	loc             []any // the item
}

// readCollaborators reads the body of an add: 1 to 100 items; users name user_id or
// user_email, groups group_id.
func readCollaborators(kind string) func(*base.Input) collaboratorsIn {
	return func(in *base.Input) (x collaboratorsIn) {
		x.id, _ = in.Path("template_id").UUID(4)
		items, _ := in.Body().Required().List(validate.MinLen(1), validate.MaxLen(maxCollaborators))
		for _, it := range items {
			o, ok := it.Object()
			if !ok {
				continue
			}
			n := newCollaborator{role: "viewer", loc: it.Loc()}
			if o.Has("role") {
				n.role, _ = o.Get("role").Enum(collaboratorRoles...)
			}
			if kind == store.CollaboratorGroup {
				n.id, _ = o.Get("group_id").Required().UUID(4)
			} else {
				idv, emailv := o.Get("user_id").Nullable(), o.Get("user_email").Nullable()
				n.id, _ = idv.UUID(4)
				n.email, _ = emailv.Email()
				if (!idv.Present() || idv.IsNull()) && (!emailv.Present() || emailv.IsNull()) {
					it.Fail("either user_id or user_email is required")
				}
			}
			x.items = append(x.items, n)
		}
		return x
	}
}

type collaboratorsIn struct {
	id    string
	items []newCollaborator
}

// addUsers is POST /v2/templates/{template_id}/users: all or nothing; an unknown user, the
// same user twice, or a user who is a collaborator already is a 422 at that item.
func (h *handlers) addUsers(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, readCollaborators(store.CollaboratorUser))
	if err != nil {
		return err
	}
	c, ctx := call.Caller, r.Context()
	if _, err := h.findTemplate(ctx, c, call.In.id); err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	users, errs, err := h.resolveCollaborators(ctx, c, call.In.items)
	if err != nil {
		return err
	}
	principals := make([]string, len(users))
	for i, u := range users {
		principals[i] = u.ID
	}
	cs, err := h.addCollaborators(ctx, errs, call.In, store.CollaboratorUser, principals)
	if err != nil {
		return err
	}
	out := make([]userCollaborator, len(cs))
	for i, col := range cs {
		out[i] = userCollaboratorOut(col, users[i])
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// resolveCollaborators finds the user each item names in the caller's organization (the ids
// in one read); an item that names nobody there, or two different users, is a problem of
// the returned collector.
func (h *handlers) resolveCollaborators(ctx context.Context, c auth.Caller, items []newCollaborator) ([]store.User, *validate.Errors, error) {
	var ids []string
	for _, n := range items {
		if n.id != "" {
			ids = append(ids, n.id)
		}
	}
	byID, err := h.creators(ctx, c.OrgID, ids...)
	if err != nil {
		return nil, nil, err
	}
	users := make([]store.User, len(items))
	errs := validate.New()
	for i, n := range items {
		u, ok := byID[n.id]
		if n.id == "" {
			switch u, err = store.OrgUserByEmail(ctx, h.Table, c.OrgID, n.email); {
			case errors.Is(err, store.ErrNotFound):
				ok = false
			case err != nil:
				return nil, nil, err
			default:
				ok = true
			}
		}
		switch {
		case !ok:
			errs.Add(validate.ValueError(n.loc, nil, "User not found in the organization"))
		case n.email != "" && !strings.EqualFold(u.Email, n.email):
			errs.Add(validate.ValueError(n.loc, nil, "user_id and user_email name different users"))
		}
		users[i] = u
	}
	return users, errs, nil
}

// orgGroups are the organization's groups by id (one query).
func (h *handlers) orgGroups(ctx context.Context, orgID string) (map[string]store.Group, error) {
	gs, err := store.ListOrgGroups(ctx, h.Table, orgID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]store.Group, len(gs))
	for _, g := range gs {
		out[g.ID] = g
	}
	return out, nil
}

// addGroups is POST /v2/templates/{template_id}/groups, as addUsers for groups.
func (h *handlers) addGroups(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, readCollaborators(store.CollaboratorGroup))
	if err != nil {
		return err
	}
	c, ctx := call.Caller, r.Context()
	if _, err := h.findTemplate(ctx, c, call.In.id); err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	byID, err := h.orgGroups(ctx, c.OrgID)
	if err != nil {
		return err
	}
	groups := make([]store.Group, len(call.In.items))
	errs := validate.New()
	principals := make([]string, len(groups))
	for i, n := range call.In.items {
		g, ok := byID[n.id]
		if !ok {
			errs.Add(validate.ValueError(validate.At(n.loc, "group_id"), n.id, "Group not found in the organization"))
		}
		groups[i], principals[i] = g, n.id
	}
	cs, err := h.addCollaborators(ctx, errs, call.In, store.CollaboratorGroup, principals)
	if err != nil {
		return err
	}
	out := make([]groupCollaborator, len(cs))
	for i, col := range cs {
		out[i] = groupCollaboratorOut(col, groups[i])
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// addCollaborators stores one collaborator per principal, after the problems errs holds
// and those of a principal named twice; one a collaborator already is a 422 at its item.
func (h *handlers) addCollaborators(ctx context.Context, errs *validate.Errors, in collaboratorsIn, kind string, principals []string) ([]store.TemplateCollaborator, error) {
	seen := map[string]bool{}
	for i, p := range principals {
		if p != "" && seen[p] {
			errs.Add(validate.ValueError(in.items[i].loc, nil, "the same collaborator is named twice"))
		}
		seen[p] = true
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	now := h.Stamp()
	cs := make([]store.TemplateCollaborator, len(principals))
	for i, p := range principals {
		cs[i] = store.TemplateCollaborator{ID: uuid.NewString(), TemplateID: in.id, Kind: kind, PrincipalID: p,
			Role: in.items[i].role, CreatedAt: now}
	}
	var exists *store.CollaboratorExistsError
	if err := store.AddTemplateCollaborators(ctx, h.Table, cs); errors.As(err, &exists) {
		return nil, validate.Single(validate.ValueError(in.items[exists.Index].loc, nil, "already a collaborator of this prompt template"))
	} else if err != nil {
		return nil, err
	}
	return cs, nil
}

// listUsers is GET /v2/templates/{template_id}/users, in the order they were added.
func (h *handlers) listUsers(w http.ResponseWriter, r *http.Request) error {
	return h.listCollaborators(w, r, store.CollaboratorUser)
}

// listGroups is GET /v2/templates/{template_id}/groups, in the order they were added.
func (h *handlers) listGroups(w http.ResponseWriter, r *http.Request) error {
	return h.listCollaborators(w, r, store.CollaboratorGroup)
}

func (h *handlers) listCollaborators(w http.ResponseWriter, r *http.Request, kind string) error {
	type listIn struct {
		id           string
		start, limit int
	}
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) (x listIn) {
		x.id, _ = in.Path("template_id").UUID(4)
		x.start, x.limit = in.Page()
		return x
	})
	if err != nil {
		return err
	}
	c, q, ctx := call.Caller, call.In, r.Context()
	var cs []store.TemplateCollaborator
	err = base.Concurrently(ctx,
		func(ctx context.Context) error { _, err := h.findTemplate(ctx, c, q.id); return err },
		func(ctx context.Context) (err error) {
			cs, err = store.TemplateCollaborators(ctx, h.Table, q.id, kind)
			return err
		})
	if err != nil {
		return err
	}
	page, next := collection.Page(cs, q.start, q.limit)
	out, err := h.collaboratorsOut(ctx, c, kind, page)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": q.start, "limit": q.limit,
		"paginated": next != nil, "next_starting_token": next, "collaborators": out})
	return nil
}

// collaboratorsOut answers collaborators with their users' or groups' names; one whose
// user or group is gone from the organization is left out.
func (h *handlers) collaboratorsOut(ctx context.Context, c auth.Caller, kind string, cs []store.TemplateCollaborator) ([]any, error) {
	out := []any{}
	if kind == store.CollaboratorGroup {
		groups, err := h.orgGroups(ctx, c.OrgID)
		if err != nil {
			return nil, err
		}
		for _, col := range cs {
			if g, ok := groups[col.PrincipalID]; ok {
				out = append(out, groupCollaboratorOut(col, g))
			}
		}
		return out, nil
	}
	ids := make([]string, len(cs))
	for i, col := range cs {
		ids[i] = col.PrincipalID
	}
	users, err := h.creators(ctx, c.OrgID, ids...)
	if err != nil {
		return nil, err
	}
	for _, col := range cs {
		if u, ok := users[col.PrincipalID]; ok {
			out = append(out, userCollaboratorOut(col, u))
		}
	}
	return out, nil
}

// collaboratorRef names one collaborator by the path.
type collaboratorRef struct{ id, principal, role string }

func readCollaboratorPath(param string, body bool) func(*base.Input) collaboratorRef {
	return func(in *base.Input) (x collaboratorRef) {
		x.id, _ = in.Path("template_id").UUID(4)
		x.principal, _ = in.Path(param).UUID(4)
		if body {
			if o, ok := in.Body().Required().Object(); ok {
				x.role, _ = o.Get("role").Required().Enum(collaboratorRoles...)
			}
		}
		return x
	}
}

// updateUser is PATCH /v2/templates/{template_id}/users/{user_id}: {"role"}.
func (h *handlers) updateUser(w http.ResponseWriter, r *http.Request) error {
	return h.updateCollaborator(w, r, store.CollaboratorUser, "user_id")
}

// updateGroup is PATCH /v2/templates/{template_id}/groups/{group_id}: {"role"}.
func (h *handlers) updateGroup(w http.ResponseWriter, r *http.Request) error {
	return h.updateCollaborator(w, r, store.CollaboratorGroup, "group_id")
}

func (h *handlers) updateCollaborator(w http.ResponseWriter, r *http.Request, kind, param string) error {
	call, err := base.Open(r, base.Opening{Body: true}, readCollaboratorPath(param, true))
	if err != nil {
		return err
	}
	c, in, ctx := call.Caller, call.In, r.Context()
	if _, err := h.findTemplate(ctx, c, in.id); err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	col, err := store.SetTemplateCollaboratorRole(ctx, h.Table, in.id, kind, in.principal, in.role)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Collaborator")
	}
	if err != nil {
		return err
	}
	out, err := h.collaboratorsOut(ctx, c, kind, []store.TemplateCollaborator{col})
	if err != nil {
		return err
	}
	if len(out) == 0 {
		return httpapi.NotFound("Collaborator")
	}
	httpapi.WriteJSON(w, http.StatusOK, out[0])
	return nil
}

// removeUser is DELETE /v2/templates/{template_id}/users/{user_id}.
func (h *handlers) removeUser(w http.ResponseWriter, r *http.Request) error {
	return h.removeCollaborator(w, r, store.CollaboratorUser, "user_id")
}

// removeGroup is DELETE /v2/templates/{template_id}/groups/{group_id}.
func (h *handlers) removeGroup(w http.ResponseWriter, r *http.Request) error {
	return h.removeCollaborator(w, r, store.CollaboratorGroup, "group_id")
}

func (h *handlers) removeCollaborator(w http.ResponseWriter, r *http.Request, kind, param string) error {
	call, err := base.Open(r, base.Opening{}, readCollaboratorPath(param, false))
	if err != nil {
		return err
	}
	c, in, ctx := call.Caller, call.In, r.Context()
	if _, err := h.findTemplate(ctx, c, in.id); err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	if err := store.RemoveTemplateCollaborator(ctx, h.Table, in.id, kind, in.principal); errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Collaborator")
	} else if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"message": fmt.Sprintf("Removed the collaborator %s", in.principal)})
	return nil
}
