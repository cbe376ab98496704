package experiments

import (
	"context"
	"errors"
	"net/http"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The project routes of the original's client that reach a template other than by its id
// in the path: its deletion, and a version of the template found by its name.

// deleteTemplate is DELETE /v2/projects/{project_id}/templates/{template_id}: the global
// delete's transaction (template record, name claim, home record at once; the stream
// consumer purges its versions and collaborators), for a template of that project only.
func (h *handlers) deleteTemplate(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readTemplatePath)
	if err != nil {
		return err
	}
	c, ref, ctx := call.Caller, call.In, r.Context()
	var p store.PromptTemplate
	err = base.Concurrently(ctx,
		func(ctx context.Context) error { _, err := h.Project(ctx, c, ref.projectID); return err },
		func(ctx context.Context) (err error) {
			p, err = store.GetPromptTemplate(ctx, h.Table, c.OrgID, ref.projectID, ref.id)
			if errors.Is(err, store.ErrNotFound) {
				return httpapi.NotFound("Prompt template")
			}
			return err
		})
	if err != nil {
		return err
	}
	return h.writeTemplateDelete(ctx, w, p)
}

// versionByName is GET /v2/projects/{project_id}/templates/versions?template_name=&version=:
// a version of the project's template of that name (exact, case-sensitive, as names are
// unique), its selected version when no version is named.
func (h *handlers) versionByName(w http.ResponseWriter, r *http.Request) error {
	type byNameIn struct {
		projectID, name string
		version         *int64
	}
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) (x byNameIn) {
		x.projectID, _ = in.Path("project_id").UUID(4)
		x.name, _ = in.Query("template_name").Required().String(validate.MinLen(1), validate.MaxLen(maxNameLen))
		if n, ok := in.Query("version").Nullable().Int(validate.Ge(0)); ok && in.Query("version").Present() {
			x.version = &n
		}
		return x
	})
	if err != nil {
		return err
	}
	c, q, ctx := call.Caller, call.In, r.Context()
	// The project beside the name, then the template beside its versions: two waves.
	var p store.PromptTemplate
	var vs []store.PromptTemplateVersion
	err = base.Concurrently(ctx,
		func(ctx context.Context) error { _, err := h.Project(ctx, c, q.projectID); return err },
		func(ctx context.Context) error {
			id, err := store.PromptTemplateIDByName(ctx, h.Table, c.OrgID, q.projectID, q.name)
			if err != nil {
				return err
			}
			return base.Concurrently(ctx,
				func(ctx context.Context) (err error) {
					p, err = store.GetPromptTemplate(ctx, h.Table, c.OrgID, q.projectID, id)
					return err
				},
				func(ctx context.Context) (err error) {
					vs, err = store.PromptTemplateVersions(ctx, h.Table, id)
					return err
				})
		})
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Prompt template")
	}
	if err != nil {
		return err
	}
	n := p.SelectedVersion
	if q.version != nil {
		n = *q.version
	}
	out, err := h.versionN(ctx, c, vs, n)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
