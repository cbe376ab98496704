package projects

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
)

// Listing, looking up and deleting projects as the original's clients do. Every project of
// an organization is visible to all its members; lists are read whole (one query of the
// organization's project names, one batch read) and filtered, sorted and paged in memory.

// projectViews builds the ProjectDB of each project from its runs (by project id), their
// summaries and the users they name, with the users and summaries read at once.
func (h *handlers) projectViews(ctx context.Context, orgID string, ps []store.Project, runs map[string][]store.RunInfo) ([]projectDB, error) {
	var userIDs, runIDs []string
	for _, p := range ps {
		userIDs = append(userIDs, p.CreatedBy)
		for _, r := range runs[p.ID] {
			userIDs = append(userIDs, r.CreatedBy)
			runIDs = append(runIDs, r.ID)
		}
	}
	slices.Sort(userIDs)
	var (
		who       people
		summaries map[string]store.RunSummary
	)
	err := base.Concurrently(ctx,
		func(ctx context.Context) (err error) {
			who, err = h.loadPeople(ctx, orgID, slices.Compact(userIDs), true)
			return err
		},
		func(ctx context.Context) (err error) {
			summaries, err = store.GetRunSummaries(ctx, h.Table, runIDs)
			return err
		})
	if err != nil {
		return nil, err
	}
	out := make([]projectDB, len(ps))
	for i, p := range ps {
		out[i] = who.project(p, who.runsOut(runs[p.ID], summaries))
	}
	return out, nil
}

// projectQuery is the query of the project lists: a name and a type, each optional.
type projectQuery struct {
	name, typ      string
	byName, byType bool
}

// listProjects is GET /v2/projects: the organization's projects, or the one named by
// project_name (exactly), optionally of one type, newest first.
func (h *handlers) listProjects(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) (q projectQuery) {
		q.name, q.byName = in.Query("project_name").String()
		q.typ, q.byType = in.Query("type").Enum(store.ProjectTypes...)
		return q
	})
	if err != nil {
		return err
	}
	c, name, byName, typ, byType := call.Caller, call.In.name, call.In.byName, call.In.typ, call.In.byType
	var (
		ps   []store.Project
		runs map[string][]store.RunInfo
	)
	if byName {
		p, r, err := store.ProjectByName(r.Context(), h.Table, c.OrgID, name)
		switch {
		case err == nil:
			ps, runs = []store.Project{p}, map[string][]store.RunInfo{p.ID: r}
		case !isNotFound(err):
			return err
		}
	} else if ps, runs, err = store.ListProjects(r.Context(), h.Table, c.OrgID); err != nil {
		return err
	}
	ps = slices.DeleteFunc(ps, func(p store.Project) bool { return byType && p.Type != typ })
	sortNewestFirst(ps)
	views, err := h.projectViews(r.Context(), c.OrgID, ps, runs)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, views)
	return nil
}

// allProjects is GET /v2/projects/all: every project of the organization (of one type when
// asked) in the thin shape, newest first.
func (h *handlers) allProjects(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) (q projectQuery) {
		q.typ, q.byType = in.Query("type").Enum(store.ProjectTypes...)
		return q
	})
	if err != nil {
		return err
	}
	c, q := call.Caller, call.In
	ps, runs, err := store.ListProjects(r.Context(), h.Table, c.OrgID)
	if err != nil {
		return err
	}
	ps = slices.DeleteFunc(ps, func(p store.Project) bool { return q.byType && p.Type != q.typ })
	sortNewestFirst(ps)
	views, err := h.projectViews(r.Context(), c.OrgID, ps, runs)
	if err != nil {
		return err
	}
	out := make([]projectThin, len(views))
	for i, v := range views {
		out[i] = v.projectThin
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// The filters and sorts of POST /v2/projects/paginated (the original's ProjectCollectionParams).
var (
	projectFilters = []collection.FilterSpec{
		{Name: "id", Kind: collection.ID, Ops: collection.IDOps, DefaultOp: "eq"},
		{Name: "name", Kind: collection.Text, Ops: collection.TextOps},
		{Name: "type", Kind: collection.Strs, Ops: collection.EnumOps},
		{Name: "creator", Kind: collection.ID, Ops: collection.IDOps, DefaultOp: "eq"},
		{Name: "created_at", Kind: collection.Date, Ops: collection.DateOps},
		{Name: "updated_at", Kind: collection.Date, Ops: collection.DateOps},
		{Name: "runs", Kind: collection.Number, Ops: collection.NumberOps},
		{Name: "bookmark", Kind: collection.Bool},
	}
	projectSorts = []collection.SortSpec{
		{Name: "name", SortType: "column"}, {Name: "type", SortType: "column"},
		{Name: "created_at", SortType: "column"}, {Name: "updated_at", SortType: "column"},
		{Name: "runs", SortType: "custom"}, {Name: "bookmark", SortType: "custom"},
	}
)

// paginatedProjects is POST /v2/projects/paginated: the organization's projects that pass
// the filters, sorted (newest first unless told), a page at a time. The original's actions
// parameter (keep only projects the caller may act on so) is accepted; every member may
// read every project, so it changes nothing.
func (h *handlers) paginatedProjects(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ReadList(projectFilters, projectSorts, collection.Sort{Name: "created_at"}))
	if err != nil {
		return err
	}
	c, start, limit, filters, sort := call.Caller, call.In.Start, call.In.Limit, call.In.Filters, call.In.Sort
	ps, runs, err := store.ListProjects(r.Context(), h.Table, c.OrgID)
	if err != nil {
		return err
	}
	sortNewestFirst(ps)
	ps = collection.Apply(ps, filters, sort, func(p store.Project) collection.Record {
		return func(field string) any {
			switch field {
			case "id":
				return p.ID
			case "name":
				return p.Name
			case "type":
				return p.Type
			case "creator":
				return p.CreatedBy
			case "created_at":
				return p.CreatedAt
			case "updated_at":
				return p.UpdatedAt
			case "runs":
				return float64(len(runs[p.ID]))
			}
			return false // bookmark: no project is bookmarked
		}
	})
	page, next := collection.Page(ps, start, limit)
	views, err := h.projectViews(r.Context(), c.OrgID, page, runs)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": start, "limit": limit,
		"paginated": next != nil, "next_starting_token": next, "projects": views})
	return nil
}

// deleteProject is DELETE /v2/projects/{project_id}: the project and its name go at once;
// its log streams, experiments, their signals configurations, traces and metric values are
// purged in the background (the stream consumer). Deleting is an editor's right.
func (h *handlers) deleteProject(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, base.PathID("project_id", 4))
	if err != nil {
		return err
	}
	p, err := h.Project(r.Context(), call.Caller, call.In)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	err = store.DeleteProject(r.Context(), h.Table, p)
	if isNotFound(err) {
		return httpapi.NotFound("Project")
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"message": "Deleted project " + p.Name})
	return nil
}

func sortNewestFirst(ps []store.Project) {
	slices.SortStableFunc(ps, func(a, b store.Project) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
}
