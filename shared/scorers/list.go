package scorers

import (
	"net/http"
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/collection"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// The filters and sorts of POST /v2/scorers/list (the original's ListScorersRequest).
var (
	scorerFilters = []collection.FilterSpec{
		{Name: "name", Kind: collection.Text, Ops: collection.TextOps, CaseFolded: true},
		{Name: "scorer_type", Kind: collection.Strs, Ops: collection.EnumOps},
		{Name: "model_type", Kind: collection.Strs, Ops: collection.EnumOps},
		{Name: "exclude_slm_scorers", Kind: collection.Flag},
		{Name: "exclude_multimodal_scorers", Kind: collection.Flag},
		{Name: "tags", Kind: collection.List, Ops: collection.ListOps},
		{Name: "creator", Kind: collection.ID, Ops: collection.IDOps, DefaultOp: "eq"},
		{Name: "created_at", Kind: collection.Date, Ops: collection.DateOps},
		{Name: "updated_at", Kind: collection.Date, Ops: collection.DateOps},
		{Name: "label", Kind: collection.Text, Ops: collection.TextOps},
		{Name: "scoreable_node_types", Kind: collection.List, Ops: collection.ListOps},
		{Name: "multimodal_capabilities", Kind: collection.List, Ops: collection.ListOps},
		{Name: "id", Kind: collection.ID, Ops: collection.IDOps, DefaultOp: "eq"},
		{Name: "is_global", Kind: collection.Bool, Ops: collection.BoolOps, DefaultOp: "eq"},
		{Name: "scope_projects", Kind: collection.Scope},
	}
	scorerSorts = []collection.SortSpec{
		{Name: "name", SortType: "column"}, {Name: "updated_at", SortType: "column"},
		{Name: "enabled_in_run", SortType: "custom_uuid"}, {Name: "enabled_in_playground", SortType: "custom_uuid"},
	}
)

// listScorers is POST /v2/scorers/list: the organization's scorers that pass the filters,
// sorted (by name unless told), a page at a time. Every scorer is global to its
// organization and has no multimodal capabilities; its label is its name unless set; the sorts by use in a run or
// playground are accepted and order by name. The original's actions parameter is accepted:
// every member may read every scorer.
func (h *handlers) listScorers(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ReadList(scorerFilters, scorerSorts, collection.Sort{Name: "name", Ascending: true}))
	if err != nil {
		return err
	}
	q := call.In
	if q.Sort.Name == "enabled_in_run" || q.Sort.Name == "enabled_in_playground" {
		q.Sort.Name = "name"
	}
	all, err := store.ListScorers(r.Context(), h.Table, call.Caller.OrgID)
	if err != nil {
		return err
	}
	slices.SortFunc(all, func(a, b store.Scorer) int { return strings.Compare(a.ID, b.ID) })
	all = collection.Apply(all, q.Filters, q.Sort, scorerRecord)
	start, limit := q.Start, q.Limit
	page, next := collection.Page(all, start, limit)
	out := make([]scorerResponse, len(page))
	for i, s := range page {
		out[i] = scorerOut(s)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": start, "limit": limit,
		"paginated": next != nil, "next_starting_token": next, "scorers": out})
	return nil
}

func scorerRecord(s store.Scorer) collection.Record {
	return func(field string) any {
		switch field {
		case "name":
			return s.Name
		case "scorer_type":
			return s.ScorerType
		case "model_type":
			return modelTypes[s.ScorerType]
		case "exclude_slm_scorers":
			return s.ScorerType != "luna"
		case "exclude_multimodal_scorers", "is_global":
			return true
		case "tags":
			return s.Tags
		case "creator":
			return s.CreatedBy
		case "created_at":
			return s.CreatedAt
		case "updated_at":
			return s.UpdatedAt
		case "label":
			return store.ScorerLabel(s)
		case "scoreable_node_types":
			return s.ScoreableNodeTypes
		case "multimodal_capabilities":
			return []string(nil)
		case "id":
			return s.ID
		case "scope_projects":
			return collection.Scoped{Global: true}
		}
		return ""
	}
}
