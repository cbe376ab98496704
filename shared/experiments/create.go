package experiments

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// create is POST /v2/projects/{project_id}/experiments. A dataset reference must name a
// dataset of the caller's organization; its name is the dataset's unless the body gives
// one. The answer is the new experiment as operation 12 lists it (no trace yet).
func (h *handlers) create(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	projectID, _ := errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	req := readCreate(errs, raw, present)
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if _, err := h.Project(ctx, c, projectID); err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	e := req.exp
	if e.Dataset != nil {
		// The caller must be able to read the dataset (a role on it, or organization admin):
		// else it is not found, and its name is not disclosed.
		g, err := store.DatasetGrantOf(ctx, h.Table, c.OrgID, c.UserID, e.Dataset.DatasetID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && g.Role == "" && !c.IsAdmin()) {
			return httpapi.NotFound("Dataset")
		}
		if err != nil {
			return err
		}
		if e.Dataset.Name == "" {
			e.Dataset.Name = g.Dataset.Name
		}
	}
	now := h.Stamp()
	e.ID, e.ProjectID, e.OrgID, e.CreatedBy, e.CreatedAt, e.UpdatedAt = uuid.NewString(), projectID, c.OrgID, c.UserID, now, now
	if e.Group != nil && e.Group.ID == "" {
		e.Group.ID = store.DerivedID(projectID, "experiment group", e.Group.Name)
	}
	switch err := store.CreateExperiment(ctx, h.Table, e); {
	case errors.Is(err, store.ErrNameTaken):
		return validate.Single(validate.ValueError([]any{"body", "name"}, e.Name,
			fmt.Sprintf("an experiment named '%s' already exists", e.Name)))
	case errors.Is(err, store.ErrNotFound):
		return httpapi.NotFound("Project")
	case errors.Is(err, store.ErrTooLarge):
		return validate.Single(validate.ValueError([]any{"body"}, nil, "the experiment is larger than a record can hold"))
	case err != nil:
		return err
	}
	creator := &store.User{ID: c.UserID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName}
	httpapi.WriteJSON(w, http.StatusOK, experimentOut(e, store.RunSummary{}, creator, rankResult{}, false))
	return nil
}
