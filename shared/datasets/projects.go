package datasets

import (
	"fmt"
	"net/http"
	"time"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/collection"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// datasetProject is the client's DatasetProject.
type datasetProject struct {
	ID            string    `json:"id"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	Name          string    `json:"name"`
	CreatedByUser *userInfo `json:"created_by_user"`
}

// listProjects is GET /v2/datasets/{dataset_id}/projects (the original client's
// ListDatasetProjectsResponse): the projects that use the dataset — the one it was created
// in and those with an experiment on it — most recently used first, a page at a time, for
// anyone who may read the dataset.
func (h *handlers) listProjects(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readDatasetPage)
	if err != nil {
		return err
	}
	c, p := call.Caller, call.In
	g, err := h.grant(r.Context(), c, p.id)
	if err != nil {
		return err
	}
	all, err := store.DatasetProjects(r.Context(), h.Table, g.Dataset)
	if err != nil {
		return fmt.Errorf("list the projects of dataset %s: %w", p.id, err)
	}
	page, next := collection.Page(all, p.start, p.limit)
	ids := make([]string, len(page))
	for i, dp := range page {
		ids[i] = dp.CreatedBy
	}
	users, err := h.usersOf(r, c, ids)
	if err != nil {
		return err
	}
	out := make([]datasetProject, len(page))
	for i, dp := range page {
		out[i] = datasetProject{ID: dp.ID, CreatedAt: dp.CreatedAt, UpdatedAt: dp.UpdatedAt,
			Name: dp.Name, CreatedByUser: users[dp.CreatedBy]}
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": p.start, "limit": p.limit,
		"paginated": next != nil, "next_starting_token": next, "projects": out})
	return nil
}
