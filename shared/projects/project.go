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
	call, err := base.Open(r, base.Opening{Body: true, Write: true}, func(in *base.Input) (p store.Project) {
		p.Name, p.Type = readName(in.Errs, in.Raw, in.Present), store.DefaultProjectType
		if o, ok := in.Body().Object(); ok {
			if t, ok := o.Get("type").Enum(store.ProjectTypes...); ok {
				p.Type = t
			}
			o.Get("created_by").Nullable().UUID(4)
			o.Get("create_example_templates").Bool()
		}
		return p
	})
	if err != nil {
		return err
	}
	c, p, name, now := call.Caller, call.In, call.In.Name, h.Stamp()
	p.ID, p.OrgID, p.CreatedBy, p.CreatedAt, p.UpdatedAt = uuid.NewString(), c.OrgID, c.UserID, now, now
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
	call, err := base.Open(r, base.Opening{}, base.PathID("project_id", 4))
	if err != nil {
		return err
	}
	c := call.Caller
	p, runs, err := store.ProjectRuns(r.Context(), h.Table, c.OrgID, call.In)
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
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("project_id", 4, readName))
	if err != nil {
		return err
	}
	c, projectID, name := call.Caller, call.In.ID, call.In.Req
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
