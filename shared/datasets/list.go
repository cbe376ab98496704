package datasets

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/collection"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Listing datasets as the original's clients do: GET /v2/datasets and POST
// /v2/datasets/query (ListDatasetParams), a page of ListDatasetResponse. A caller sees the
// datasets it holds a role on (an admin, every dataset of the organization); hidden
// datasets are left out of lists (they are read by id). The actions parameter keeps the
// datasets on which the caller may do every action it names.

// The filters and sorts of POST /v2/datasets/query.
var (
	datasetFilters = []collection.FilterSpec{
		{Name: "name", Kind: collection.Text, Ops: collection.TextOps},
		{Name: "draft", Kind: collection.Bool, Ops: collection.BoolOps, DefaultOp: "eq"},
		{Name: "used_in_project", Kind: collection.Ref},
		{Name: "id", Kind: collection.ID, Ops: collection.IDOps, DefaultOp: "eq"},
		{Name: "not_in_project", Kind: collection.Ref, Negate: true},
	}
	datasetSorts = []collection.SortSpec{
		{Name: "name", SortType: "column"}, {Name: "created_at", SortType: "column"},
		{Name: "updated_at", SortType: "column"}, {Name: "project_last_used_at", SortType: "custom_uuid"},
		{Name: "project_count", SortType: "custom"}, {Name: "num_rows", SortType: "column"},
		{Name: "last_edited_by_user_at", SortType: "custom_uuid"},
	}
	actionNames = []string{"update", "delete", "share", "export", "rename"}
)

// readActions reads the actions query parameter (repeatable): dataset actions.
func readActions(errs *validate.Errors, r *http.Request) []string {
	var out []string
	for i, a := range r.URL.Query()["actions"] {
		if !slices.Contains(actionNames, a) {
			errs.Add(validate.Enum([]any{"query", "actions", i}, a, actionNames))
			continue
		}
		out = append(out, a)
	}
	return out
}

// listDatasets is GET /v2/datasets: the caller's datasets, newest first.
func (h *handlers) listDatasets(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readDatasetQuery)
	if err != nil {
		return err
	}
	return h.answerDatasets(w, r, call.Caller, call.In)
}

// queryDatasets is POST /v2/datasets/query.
func (h *handlers) queryDatasets(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, readDatasetQuery)
	if err != nil {
		return err
	}
	return h.answerDatasets(w, r, call.Caller, call.In)
}

// datasetQuery is what a list of datasets asks: a page, of the datasets the caller may
// do actions with, that pass the filters, sorted.
type datasetQuery struct {
	base.List
	actions []string
}

// readDatasetQuery reads the page and the actions of the query, then the filters and the
// sort of the body, when one was sent.
func readDatasetQuery(in *base.Input) (q datasetQuery) {
	q.Start, q.Limit = in.Page()
	q.actions = readActions(in.Errs, in.Request())
	q.Sort = collection.Sort{Name: "created_at"}
	if in.Present && in.Raw != nil {
		if o, ok := in.Body().Object(); ok {
			q.Filters = collection.ReadFilters(o.Get("filters"), datasetFilters)
			q.Sort = collection.ReadSort(o.Get("sort"), datasetSorts, q.Sort)
		}
	}
	// The sorts by a project's or a user's last use order by the last change: the service
	// does not keep per-project or per-user use times.
	if q.Sort.Name == "project_last_used_at" || q.Sort.Name == "last_edited_by_user_at" {
		q.Sort.Name = "updated_at"
	}
	return q
}

func (h *handlers) answerDatasets(w http.ResponseWriter, r *http.Request, c auth.Caller, q datasetQuery) error {
	filters, sort, actions, start, limit := q.Filters, q.Sort, q.actions, q.Start, q.Limit
	grants, err := h.visible(r.Context(), c)
	if err != nil {
		return err
	}
	grants = slices.DeleteFunc(grants, func(g store.DatasetGrant) bool {
		for _, a := range actions {
			if !allowed(g.Role, a) {
				return true
			}
		}
		return false
	})
	slices.SortFunc(grants, func(a, b store.DatasetGrant) int { return strings.Compare(b.Dataset.ID, a.Dataset.ID) })
	grants = collection.Apply(grants, filters, sort, func(g store.DatasetGrant) collection.Record {
		d := g.Dataset
		return func(field string) any {
			switch field {
			case "name":
				return d.Name
			case "draft":
				return d.Draft
			case "used_in_project", "not_in_project":
				if d.ProjectID == "" {
					return []string(nil)
				}
				return []string{d.ProjectID}
			case "id":
				return d.ID
			case "created_at":
				return d.CreatedAt
			case "updated_at":
				return d.UpdatedAt
			case "project_count":
				if d.ProjectID == "" {
					return 0.0
				}
				return 1.0
			case "num_rows":
				return float64(d.RowCount)
			}
			return ""
		}
	})
	page, next := collection.Page(grants, start, limit)
	var ids []string
	for _, g := range page {
		ids = append(ids, g.Dataset.CreatedBy)
	}
	users, err := h.usersOf(r, c, ids)
	if err != nil {
		return err
	}
	out := make([]datasetResponse, len(page))
	for i, g := range page {
		out[i] = datasetOut(g.Dataset, g.Role, users[g.Dataset.CreatedBy])
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": start, "limit": limit,
		"paginated": next != nil, "next_starting_token": next, "datasets": out})
	return nil
}

// visible reads the datasets of the caller's organization that are not hidden and that the
// caller holds a role on, with that role.
func (h *handlers) visible(ctx context.Context, c auth.Caller) ([]store.DatasetGrant, error) {
	all, err := store.ListOrgDatasets(ctx, h.Table, c.OrgID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(all))
	for _, d := range all {
		if !d.Hidden {
			ids = append(ids, d.ID)
		}
	}
	gs, err := h.grants(ctx, c, ids, false)
	if err != nil {
		return nil, err
	}
	out := make([]store.DatasetGrant, 0, len(gs))
	for _, g := range gs {
		if canRead(g.Role) && !g.Dataset.Hidden {
			out = append(out, g)
		}
	}
	return out, nil
}
