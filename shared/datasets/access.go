package datasets

import (
	"context"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Who may do what with a dataset. A caller holds a role on a dataset directly or through a
// group (the strongest counts); an organization admin acts as its owner; a read-only member
// of the organization reads at most, whatever role was shared with them.

// roleOf is the role the caller acts with, given the role held on the dataset.
func roleOf(c auth.Caller, held store.DatasetRole) store.DatasetRole {
	if c.IsAdmin() {
		return store.DatasetOwner
	}
	if !c.CanWrite() && held != "" {
		return store.DatasetViewer
	}
	return held
}

// Actions on a dataset (the original service's DatasetAction values), and the weakest role
// allowed each.
var actions = []struct {
	name string
	min  store.DatasetRole
}{
	{"update", store.DatasetEditor},
	{"delete", store.DatasetEditor},
	{"share", store.DatasetOwner},
	{"export", store.DatasetViewer},
	{"rename", store.DatasetEditor},
}

func allowed(role store.DatasetRole, action string) bool {
	for _, a := range actions {
		if a.name == action {
			return role.Rank() >= a.min.Rank()
		}
	}
	return false
}

func canRead(role store.DatasetRole) bool { return role.Rank() >= store.DatasetViewer.Rank() }

var (
	errNoAccess = httpapi.Forbidden("You do not have access to this dataset")
	errNoEdit   = httpapi.Forbidden("You do not have permission to change this dataset")
	errNoShare  = httpapi.Forbidden("Only the dataset's owner can share it")
)

var errNotFound = httpapi.NotFound("Dataset")

// grants reads datasets of the caller's organization with the role the caller acts with on
// each; absent ids are left out.
func (h *handlers) grants(ctx context.Context, c auth.Caller, ids []string, consistent bool) (map[string]store.DatasetGrant, error) {
	var groups []string
	if !c.IsAdmin() { // an admin's role does not depend on shares
		ms, err := store.UserMemberships(ctx, h.Table, c.OrgID, c.UserID)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			groups = append(groups, m.GroupID)
		}
	}
	gs, err := store.DatasetAccess(ctx, h.Table, c.OrgID, c.UserID, groups, ids, consistent)
	if err != nil {
		return nil, err
	}
	for id, g := range gs {
		g.Role = roleOf(c, g.Role)
		gs[id] = g
	}
	return gs, nil
}

// grant reads one dataset with the caller's role, strongly consistently: 404 when the
// caller's organization has no such dataset, 403 when the caller holds no role on it.
func (h *handlers) grant(ctx context.Context, c auth.Caller, id string) (store.DatasetGrant, error) {
	gs, err := h.grants(ctx, c, []string{id}, true)
	if err != nil {
		return store.DatasetGrant{}, err
	}
	g, ok := gs[id]
	if !ok {
		return store.DatasetGrant{}, errNotFound
	}
	if !canRead(g.Role) {
		return store.DatasetGrant{}, errNoAccess
	}
	return g, nil
}

// datasetID reads the path's dataset id: the whole input of a handler on one dataset.
var datasetID = base.PathID("dataset_id", 4)

// onDataset reads the path's dataset id, then the body with read.
func onDataset[T any](read func(errs *validate.Errors, raw any, present bool) T) func(*base.Input) base.Keyed[T] {
	return base.ByID("dataset_id", 4, read)
}

// datasetPage is the input of a page of one dataset's rows, groups or versions.
type datasetPage struct {
	id           string
	version      int64 // of the path's version_index, when it has one
	start, limit int
}

// readDatasetPage reads the path's dataset id and the query's page.
func readDatasetPage(in *base.Input) (p datasetPage) {
	p.id, _ = in.Path("dataset_id").UUID(4)
	p.start, p.limit = in.Page()
	return p
}
