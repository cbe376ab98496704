package datasets

import (
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// groupsResponse is the group collaborator list of §2.4.
type groupsResponse struct {
	Collaborators     []groupCollaborator `json:"collaborators"`
	StartingToken     int                 `json:"starting_token"`
	Limit             int                 `json:"limit"`
	Paginated         bool                `json:"paginated"`
	NextStartingToken *int                `json:"next_starting_token"`
}

// listGroups is GET /v2/datasets/{dataset_id}/groups (operation 7): the groups the dataset is
// shared with, in sharing order, then by group id.
func (h *handlers) listGroups(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readDatasetPage)
	if err != nil {
		return err
	}
	c, id, start, limit := call.Caller, call.In.id, call.In.start, call.In.limit
	// The page is read while the caller's access is checked, and used only if it passes:
	// one round trip less on every call.
	type page struct {
		groups []store.DatasetGroup
		more   bool
		err    error
	}
	pc := make(chan page, 1)
	go func() {
		groups, more, err := store.DatasetGroups(r.Context(), h.Table, c.OrgID, id, start, limit)
		pc <- page{groups, more, err}
	}()
	g, err := h.grant(r.Context(), c, id)
	p := <-pc
	if err != nil {
		return err
	}
	if p.err != nil {
		return p.err
	}
	groups, more := p.groups, p.more
	resp := groupsResponse{Collaborators: make([]groupCollaborator, len(groups)), StartingToken: start, Limit: limit}
	perms := collaboratorPermissions(g.Role)
	for i, gr := range groups {
		resp.Collaborators[i] = groupCollaborator{ID: gr.ID, Role: gr.Role, CreatedAt: gr.CreatedAt,
			GroupID: gr.GroupID, GroupName: gr.GroupName, Permissions: perms}
	}
	if more {
		next := start + len(groups)
		resp.NextStartingToken, resp.Paginated = &next, true
	}
	httpapi.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// newShare is one item of a share body.
type newShare struct {
	id   string // the user's or the group's
	role store.DatasetRole
	loc  []any // of the item
}

// readRole reads an item's role: one of the four, viewer when absent.
func readRole(o validate.Obj) store.DatasetRole {
	role, ok := o.Get("role").Enum(store.DatasetRoles...)
	if !ok {
		return store.DatasetViewer
	}
	return store.DatasetRole(role)
}

// readGroupShares reads the body of a share with groups: a list of group ids with roles.
func readGroupShares(errs *validate.Errors, raw any, present bool) []newShare {
	items, _ := errs.Body(raw, present).Required().List(validate.MinLen(1), validate.MaxLen(store.MaxDatasetGroupShares))
	shares := make([]newShare, 0, len(items))
	for _, item := range items {
		o, ok := item.Object()
		if !ok {
			continue
		}
		gid, _ := o.Get("group_id").Required().UUID(0)
		shares = append(shares, newShare{id: gid, role: readRole(o), loc: item.Loc()})
	}
	return shares
}

// shareWithGroups is POST /v2/datasets/{dataset_id}/groups: [{"group_id", "role"}], all or
// nothing. Only the owner (or an organization admin) shares.
func (h *handlers) shareWithGroups(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, onDataset(readGroupShares))
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
	ids := make([]string, len(shares))
	for i, s := range shares {
		ids[i] = s.id
	}
	groups, err := store.LookupGroups(ctx, h.Table, c.OrgID, uniq(ids))
	if err != nil {
		return err
	}
	errs := validate.New()
	for i, s := range shares {
		switch {
		case groups[s.id].ID == "":
			errs.Add(validate.ValueError(validate.At(s.loc, "group_id"), s.id, "no group with this id in the organization"))
		case indexOf(ids, s.id) < i:
			errs.Add(validate.ValueError(validate.At(s.loc, "group_id"), s.id, "the group appears twice in this request"))
		}
	}
	if err := errs.Err(); err != nil {
		return err
	}
	now := h.Stamp()
	cs := make([]store.DatasetCollaborator, len(shares))
	for i, s := range shares {
		cs[i] = store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: id, OrgID: c.OrgID, GroupID: s.id,
			Role: s.role, CreatedBy: c.UserID, CreatedAt: now}
	}
	where := func(i int) ([]any, any) { return validate.At(shares[i].loc, "group_id"), shares[i].id }
	if err := h.share(r, id, cs, where, "The group already has access to this dataset"); err != nil {
		return err
	}
	resp := make([]groupCollaborator, len(cs))
	perms := collaboratorPermissions(g.Role)
	for i, col := range cs {
		resp[i] = groupCollaborator{ID: col.ID, Role: col.Role, CreatedAt: col.CreatedAt, GroupID: col.GroupID,
			GroupName: groups[col.GroupID].Name, Permissions: perms}
	}
	httpapi.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// share stores the collaborators; one that has a role already is a 422 with message at the
// field that named it, which where(i) gives for collaborator i (with the input there).
func (h *handlers) share(r *http.Request, id string, cs []store.DatasetCollaborator, where func(i int) ([]any, any), message string) error {
	err := store.ShareDataset(r.Context(), h.Table, cs[0].OrgID, id, cs)
	var exists *store.DatasetShareExistsError
	switch {
	case errors.As(err, &exists):
		loc, input := where(exists.Index)
		return validate.Single(validate.ValueError(loc, input, message))
	case errors.Is(err, store.ErrNotFound):
		return errNotFound // deleted meanwhile
	}
	return err
}

func uniq(ids []string) []string {
	var out []string
	for _, id := range ids {
		if indexOf(out, id) < 0 {
			out = append(out, id)
		}
	}
	return out
}

func indexOf(ids []string, id string) int {
	for i, s := range ids {
		if s == id {
			return i
		}
	}
	return -1
}
