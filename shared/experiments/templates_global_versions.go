package experiments

import (
	"net/http"
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/collection"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// The versions of a template and the lists of the global routes.

// addGlobalVersion is POST /v2/templates/{template_id}/versions: the next number, selected.
func (h *handlers) addGlobalVersion(w http.ResponseWriter, r *http.Request) error {
	type versionIn struct {
		ref  templateRef
		body templateVersionIn
	}
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (x versionIn) {
		x.ref = readGlobalPath(false)(in)
		if o, ok := in.Body().Required().Object(); ok {
			x.body = readTemplateVersion(o)
		}
		return x
	})
	if err != nil {
		return err
	}
	c, ctx := call.Caller, r.Context()
	p, vs, err := h.globalTemplate(ctx, c, call.In.ref.id)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	out, err := h.addVersion(ctx, c, p, vs, call.In.body)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// getGlobalVersion is GET /v2/templates/{template_id}/versions/{version}.
func (h *handlers) getGlobalVersion(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readGlobalPath(true))
	if err != nil {
		return err
	}
	c, ctx := call.Caller, r.Context()
	_, vs, err := h.globalTemplate(ctx, c, call.In.id)
	if err != nil {
		return err
	}
	out, err := h.versionN(ctx, c, vs, call.In.version)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// selectGlobalVersion is PUT /v2/templates/{template_id}/versions/{version}: that version
// becomes the selected one; the answer is the template.
func (h *handlers) selectGlobalVersion(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readGlobalPath(true))
	if err != nil {
		return err
	}
	c, ctx := call.Caller, r.Context()
	p, vs, err := h.globalTemplate(ctx, c, call.In.id)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	out, err := h.selectVersion(ctx, c, p, vs, call.In.version)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// The filters and sorts of POST /v2/templates/query (ListPromptTemplateParams) and of
// POST /v2/templates/{template_id}/versions/query (ListPromptTemplateVersionParams).
var (
	templateFilters = []collection.FilterSpec{
		{Name: "name", Kind: collection.Text, Ops: collection.TextOps},
		{Name: "creator", Kind: collection.ID, Ops: collection.IDOps, DefaultOp: "eq"},
		{Name: "used_in_project", Kind: collection.Ref},
		{Name: "not_in_project", Kind: collection.Ref, Negate: true},
	}
	templateSorts = []collection.SortSpec{
		{Name: "name", SortType: "column"}, {Name: "created_at", SortType: "column"}, {Name: "updated_at", SortType: "column"},
	}
	versionSorts = []collection.SortSpec{
		{Name: "version", SortType: "column"}, {Name: "created_at", SortType: "column"}, {Name: "updated_at", SortType: "column"},
	}
)

// queryTemplates is POST /v2/templates/query: the organization's templates (of every
// project and of none) that pass the filters, newest first unless sorted, a page at a time.
func (h *handlers) queryTemplates(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ReadList(templateFilters, templateSorts, collection.Sort{Name: "created_at"}))
	if err != nil {
		return err
	}
	c, q, ctx := call.Caller, call.In, r.Context()
	all, err := store.OrgPromptTemplates(ctx, h.Table, c.OrgID)
	if err != nil {
		return err
	}
	// By id first: templates of one creation time keep one order from page to page.
	slices.SortFunc(all, func(a, b store.PromptTemplate) int { return strings.Compare(b.ID, a.ID) })
	all = collection.Apply(all, q.Filters, q.Sort, templateRecord)
	page, next := collection.Page(all, q.Start, q.Limit)
	out, err := h.templatesOut(ctx, c, page)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": q.Start, "limit": q.Limit,
		"paginated": next != nil, "next_starting_token": next, "templates": out})
	return nil
}

func templateRecord(p store.PromptTemplate) collection.Record {
	return func(field string) any {
		switch field {
		case "name":
			return p.Name
		case "creator":
			return p.CreatedBy
		case "used_in_project", "not_in_project":
			if p.ProjectID == "" {
				return []string{}
			}
			return []string{p.ProjectID}
		case "created_at":
			return p.CreatedAt
		case "updated_at":
			return p.UpdatedAt
		}
		return nil
	}
}

// queryVersions is POST /v2/templates/{template_id}/versions/query: the template's
// versions, by number unless sorted, a page at a time.
func (h *handlers) queryVersions(w http.ResponseWriter, r *http.Request) error {
	type queryIn struct {
		ref  templateRef
		list base.List
	}
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (x queryIn) {
		x.ref = readGlobalPath(false)(in)
		x.list = base.ReadList(nil, versionSorts, collection.Sort{Name: "version", Ascending: true})(in)
		return x
	})
	if err != nil {
		return err
	}
	c, q, ctx := call.Caller, call.In.list, r.Context()
	_, vs, err := h.globalTemplate(ctx, c, call.In.ref.id)
	if err != nil {
		return err
	}
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i] = v.CreatedBy
	}
	users, err := h.creators(ctx, c.OrgID, ids...)
	if err != nil {
		return err
	}
	// Each version's changes are against the one before it by number, whatever the order.
	outs := make([]templateVersionResponse, len(vs))
	for i, v := range vs {
		var prev *store.PromptTemplateVersion
		if i > 0 {
			prev = &vs[i-1]
		}
		outs[i] = versionOut(v, prev, users)
	}
	outs = collection.Apply(outs, nil, q.Sort, func(v templateVersionResponse) collection.Record {
		return func(field string) any {
			switch field {
			case "version":
				return float64(v.Version)
			case "created_at":
				return v.CreatedAt
			}
			return v.UpdatedAt
		}
	})
	page, next := collection.Page(outs, q.Start, q.Limit)
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": q.Start, "limit": q.Limit,
		"paginated": next != nil, "next_starting_token": next, "versions": page})
	return nil
}
