package experiments

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The global template routes of the original's client (/templates/...): the same templates
// as the project routes, found by id alone, and templates of the organization (no project).
// Any member reads them; writing takes a role that writes (not read-only), as the project
// routes do.

// globalTemplate reads template id of the caller's organization with its versions (one
// wave); 404 when there is none.
func (h *handlers) globalTemplate(ctx context.Context, c auth.Caller, id string) (store.PromptTemplate, []store.PromptTemplateVersion, error) {
	var p store.PromptTemplate
	var vs []store.PromptTemplateVersion
	err := base.Concurrently(ctx,
		func(ctx context.Context) (err error) {
			p, err = store.FindPromptTemplate(ctx, h.Table, c.OrgID, id)
			if errors.Is(err, store.ErrNotFound) {
				return httpapi.NotFound("Prompt template")
			}
			return err
		},
		func(ctx context.Context) (err error) {
			vs, err = store.PromptTemplateVersions(ctx, h.Table, id)
			return err
		})
	return p, vs, err
}

// findTemplate reads template id of the caller's organization without its versions; 404
// when there is none.
func (h *handlers) findTemplate(ctx context.Context, c auth.Caller, id string) (store.PromptTemplate, error) {
	p, err := store.FindPromptTemplate(ctx, h.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return p, httpapi.NotFound("Prompt template")
	}
	return p, err
}

// readGlobalPath reads the template id of a global route, then its version when the route
// has one.
func readGlobalPath(withVersion bool) func(*base.Input) templateRef {
	return func(in *base.Input) (ref templateRef) {
		ref.id, _ = in.Path("template_id").UUID(4)
		if withVersion {
			ref.version, _ = in.Path("version").Int(validate.Ge(0))
		}
		return ref
	}
}

// createGlobalTemplate is POST /v2/templates?project_id=: a template of that project, or of
// the organization when no project is named.
func (h *handlers) createGlobalTemplate(w http.ResponseWriter, r *http.Request) error {
	type createIn struct {
		projectID string
		t         newTemplate
	}
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (x createIn) {
		x.projectID, _ = in.Query("project_id").Nullable().UUID(4)
		x.t = readNewTemplate(in.Errs, in.Raw, in.Present)
		return x
	})
	if err != nil {
		return err
	}
	c, ctx := call.Caller, r.Context()
	if call.In.projectID != "" {
		if _, err := h.Project(ctx, c, call.In.projectID); err != nil {
			return err
		}
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	out, err := h.newTemplate(ctx, c, call.In.projectID, call.In.t)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// getGlobalTemplate is GET /v2/templates/{template_id}.
func (h *handlers) getGlobalTemplate(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readGlobalPath(false))
	if err != nil {
		return err
	}
	c, ctx := call.Caller, r.Context()
	p, vs, err := h.globalTemplate(ctx, c, call.In.id)
	if err != nil {
		return err
	}
	users, err := h.creators(ctx, c.OrgID, versionCreators(p, vs)...)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, templateOut(p, vs, users))
	return nil
}

// patchTemplate is PATCH /v2/templates/{template_id}: {"name"} renames it (null: as it is).
func (h *handlers) patchTemplate(w http.ResponseWriter, r *http.Request) error {
	type patchIn struct {
		ref  templateRef
		name string
	}
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (x patchIn) {
		x.ref = readGlobalPath(false)(in)
		if o, ok := in.Body().Required().Object(); ok {
			x.name, _ = o.Get("name").Nullable().String(validate.MinLen(1), validate.MaxLen(maxNameLen))
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
	if name := call.In.name; name != "" {
		switch p, err = store.RenamePromptTemplate(ctx, h.Table, p, name, h.Stamp()); {
		case errors.Is(err, store.ErrNameTaken):
			return errNameTaken(name)
		case errors.Is(err, store.ErrNotFound):
			return httpapi.NotFound("Prompt template")
		case err != nil:
			return err
		}
	}
	users, err := h.creators(ctx, c.OrgID, versionCreators(p, vs)...)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, templateOut(p, vs, users))
	return nil
}

// deleteGlobalTemplate is DELETE /v2/templates/{template_id}: the template, its versions and
// collaborators. Experiments that ran it keep their copy of its prompt.
func (h *handlers) deleteGlobalTemplate(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readGlobalPath(false))
	if err != nil {
		return err
	}
	c, ctx := call.Caller, r.Context()
	p, err := h.findTemplate(ctx, c, call.In.id)
	if err != nil {
		return err
	}
	return h.writeTemplateDelete(ctx, w, p)
}

// maxBulkDelete bounds the ids of one bulk delete (as datasets' bulk delete).
const maxBulkDelete = 100

type bulkDeleteFailure struct {
	TemplateID string `json:"template_id"`
	Reason     string `json:"reason"`
}

// bulkDeleteTemplates is DELETE /v2/templates/bulk_delete: {"template_ids": [1..100]};
// repeats count once, and each id that names no template of the organization is reported
// in failed_deletions while the others are deleted.
func (h *handlers) bulkDeleteTemplates(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Write: true}, base.ReadBody(func(errs *validate.Errors, raw any, present bool) (ids []string) {
		o, ok := errs.Body(raw, present).Required().Object()
		if !ok {
			return nil
		}
		items, _ := o.Get("template_ids").Required().List(validate.MinLen(1), validate.MaxLen(maxBulkDelete))
		seen := map[string]bool{}
		for _, it := range items {
			if id, ok := it.UUID(4); ok && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		return ids
	}))
	if err != nil {
		return err
	}
	c, ids, ctx := call.Caller, call.In, r.Context()
	reasons := make([]string, len(ids))
	dels := make([]func(context.Context) error, len(ids))
	for i, id := range ids {
		dels[i] = func(ctx context.Context) error {
			p, err := store.FindPromptTemplate(ctx, h.Table, c.OrgID, id)
			if err == nil {
				err = store.DeletePromptTemplate(ctx, h.Table, p)
			}
			if errors.Is(err, store.ErrNotFound) {
				reasons[i] = "Prompt template not found"
				return nil
			}
			return err
		}
	}
	if err := base.Concurrently(ctx, dels...); err != nil {
		return err
	}
	failed := []bulkDeleteFailure{}
	for i, id := range ids {
		if reasons[i] != "" {
			failed = append(failed, bulkDeleteFailure{TemplateID: id, Reason: reasons[i]})
		}
	}
	deleted := len(ids) - len(failed)
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"deleted_count": deleted, "failed_deletions": failed,
		"message": fmt.Sprintf("Deleted %d of %d prompt templates", deleted, len(ids))})
	return nil
}

// writeTemplateDelete deletes a template the caller found, as both deletes do: write access, then
// the one transaction (the stream consumer purges its versions and collaborators).
func (h *handlers) writeTemplateDelete(ctx context.Context, w http.ResponseWriter, p store.PromptTemplate) error {
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	if err := store.DeletePromptTemplate(ctx, h.Table, p); errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Prompt template")
	} else if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"message": fmt.Sprintf("Deleted prompt template '%s'", p.Name)})
	return nil
}
