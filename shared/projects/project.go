package projects

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

// Names of projects and log streams are 1 to 255 characters, like the original's short names.
const maxNameLen = 255

// readName reads a body {"name": ...} of a create operation.
func readName(errs *validate.Errors, raw any, present bool) string {
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok { // missing or not an object: reported in errs, and there is no name to read
		return ""
	}
	name, _ := o.Get("name").Required().String(validate.MinLen(1), validate.MaxLen(maxNameLen))
	return name
}

// nameTaken is the 422 of a duplicate name, at the name's loc as the original reports it.
func nameTaken(kind, name string) error {
	return validate.Single(validate.ValueError([]any{"body", "name"}, name,
		fmt.Sprintf("a %s named '%s' already exists", kind, name)))
}

// createProject is POST /v2/projects: name (required), type (one of the original's project
// types, gen_ai by default); the original's created_by and create_example_templates are
// accepted and ignored (the creator is the caller; there are no example templates).
func (h *handlers) createProject(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	name := readName(errs, raw, present)
	typ := store.DefaultProjectType
	if o, ok := errs.Body(raw, present).Object(); ok {
		if t, ok := o.Get("type").Enum(store.ProjectTypes...); ok {
			typ = t
		}
		o.Get("created_by").Nullable().UUID(4)
		o.Get("create_example_templates").Bool()
	}
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	now := h.Stamp()
	p := store.Project{ID: uuid.NewString(), OrgID: c.OrgID, Name: name, Type: typ, CreatedBy: c.UserID, CreatedAt: now, UpdatedAt: now}
	err = store.CreateProject(r.Context(), h.Table, p)
	if errors.Is(err, store.ErrNameTaken) {
		return nameTaken("project", name)
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, projectOut(p))
	return nil
}

// getProject is GET /v2/projects/{project_id}: the project with its creator and runs.
func (h *handlers) getProject(w http.ResponseWriter, r *http.Request) error {
	errs := validate.New()
	id, _ := errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	p, runs, err := store.ProjectRuns(r.Context(), h.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Project")
	}
	if err != nil {
		return err
	}
	views, err := h.projectViews(r.Context(), c.OrgID, []store.Project{p}, map[string][]store.RunInfo{p.ID: runs})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, views[0])
	return nil
}

// createLogStream is POST /v2/projects/{project_id}/log_streams.
func (h *handlers) createLogStream(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	projectID, _ := errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	name := readName(errs, raw, present)
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	if _, err := h.Project(r.Context(), c, projectID); err != nil {
		return err
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	now := h.Stamp()
	ls := store.LogStream{ID: uuid.NewString(), ProjectID: projectID, OrgID: c.OrgID, Name: name,
		CreatedBy: c.UserID, CreatedAt: now, UpdatedAt: now}
	switch err := store.CreateLogStream(r.Context(), h.Table, ls); {
	case errors.Is(err, store.ErrNameTaken):
		return nameTaken("log stream", name)
	case errors.Is(err, store.ErrNotFound):
		return httpapi.NotFound("Project")
	case err != nil:
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, logStreamOut(ls, nil, nil))
	return nil
}
