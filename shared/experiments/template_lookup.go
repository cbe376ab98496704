package experiments

import (
	"context"
	"errors"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The template routes' path, and the lookup of the template it names.

// templateRef names a template (and one of its versions) by the path.
type templateRef struct {
	projectID, id string
	version       int64
}

// readTemplatePath reads the path of one template.
func readTemplatePath(in *base.Input) (ref templateRef) {
	ref.projectID, _ = in.Path("project_id").UUID(4)
	ref.id, _ = in.Path("template_id").UUID(4)
	return ref
}

// readVersionPath reads the path of one template version: the version number first (its
// problem comes first in the 422, as it always did), then the template.
func readVersionPath(in *base.Input) templateRef {
	n, _ := in.Path("version").Int(validate.Ge(0))
	ref := readTemplatePath(in)
	ref.version = n
	return ref
}

// template reads the template ref names of the caller's project with its versions: the
// project, the template and its versions at once (one wave).
func (h *handlers) template(ctx context.Context, c auth.Caller, ref templateRef) (store.PromptTemplate, []store.PromptTemplateVersion, error) {
	projectID, id := ref.projectID, ref.id
	var p store.PromptTemplate
	var vs []store.PromptTemplateVersion
	// Each read returns its error: the first that is not a cancellation is answered.
	err := base.Concurrently(ctx,
		func(ctx context.Context) error { _, err := h.Project(ctx, c, projectID); return err },
		func(ctx context.Context) (err error) {
			p, err = store.GetPromptTemplate(ctx, h.Table, c.OrgID, projectID, id)
			if errors.Is(err, store.ErrNotFound) {
				return httpapi.NotFound("Prompt template")
			}
			if err != nil {
				return err
			}
			// A template stored before the global routes becomes findable by them.
			p, err = store.IndexPromptTemplate(ctx, h.Table, p)
			return err
		},
		func(ctx context.Context) (err error) {
			vs, err = store.PromptTemplateVersions(ctx, h.Table, id)
			return err
		})
	return p, vs, err
}

// creators reads the users who created the templates and versions.
func (h *handlers) creators(ctx context.Context, orgID string, ids ...string) (map[string]store.User, error) {
	users, err := store.OrgUsers(ctx, h.Table, orgID, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]store.User, len(users))
	for _, u := range users {
		out[u.ID] = u
	}
	return out, nil
}

func versionCreators(p store.PromptTemplate, vs []store.PromptTemplateVersion) []string {
	ids := []string{p.CreatedBy}
	for _, v := range vs {
		ids = append(ids, v.CreatedBy)
	}
	return ids
}
