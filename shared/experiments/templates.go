package experiments

import (
	"context"
	"encoding/json"
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

// Prompt templates of a project (beyond the specification, shaped like the original's
// BasePromptTemplateResponse): a template holds versions numbered 0, 1, 2… and one selected
// version, the one an experiment runs when it names the template without a version.

// Bounds of a template version.
const (
	maxTemplateMessages = 100
	maxVersionRetries   = 8
)

// messageRoles are the roles a template message may take.
var messageRoles = []string{"system", "user", "assistant", "tool", "function", "developer"}

// templateVersionIn is a validated version body.
type templateVersionIn struct {
	template   any // string or []map[string]any{role, content}
	raw        bool
	settings   map[string]any
	outputType *string
}

func readTemplateVersion(o validate.Obj) templateVersionIn {
	var in templateVersionIn
	in.template = readTemplateValue(o.Get("template").Required())
	o.Get("version").Nullable().Int() // checked, then ignored: versions are numbered here
	in.raw, _ = o.Get("raw").Nullable().Bool()
	in.settings = readRunSettings(o.Get("settings"))
	if s, ok := o.Get("output_type").Nullable().String(validate.MaxLen(maxNameLen)); ok {
		in.outputType = &s
	}
	return in
}

// readTemplateValue reads a template: a non-empty text, or 1 to 100 chat messages
// {role, content}.
func readTemplateValue(tv validate.Value) any {
	switch tv.Raw().(type) {
	case string:
		s, _ := tv.String(validate.MinLen(1))
		return s
	case []any:
		items, _ := tv.List(validate.MinLen(1), validate.MaxLen(maxTemplateMessages))
		msgs := make([]any, 0, len(items))
		for _, it := range items {
			mo, ok := it.Object()
			if !ok {
				continue
			}
			role, _ := mo.Get("role").Required().Enum(messageRoles...)
			content, _ := mo.Get("content").Required().String()
			msgs = append(msgs, map[string]any{"role": role, "content": content})
		}
		return msgs
	}
	if tv.Present() && !tv.IsNull() {
		tv.Add(validate.StringType(tv.Loc(), tv.Raw()))
	} else {
		tv.String() // reports a missing required template
	}
	return nil
}

// PromptMessages are a version's template as chat messages: a text is one user message.
func PromptMessages(tmpl any) []store.PromptMessage {
	switch t := tmpl.(type) {
	case string:
		return []store.PromptMessage{{Role: "user", Content: t}}
	case []any:
		out := make([]store.PromptMessage, 0, len(t))
		for _, m := range t {
			mm, _ := m.(map[string]any)
			role, _ := mm["role"].(string)
			content, _ := mm["content"].(string)
			out = append(out, store.PromptMessage{Role: role, Content: content})
		}
		return out
	}
	return nil
}

// templateText is the template as the response's `template` string: the text, or the
// messages' JSON.
func templateText(tmpl any) string {
	if s, ok := tmpl.(string); ok {
		return s
	}
	b, _ := json.Marshal(tmpl)
	return string(b)
}

// newTemplate is the body of a new template: its name (with a suffix when it is taken and
// the body asks for one), whether it is hidden, and its first version.
type newTemplate struct {
	version templateVersionIn
	name    string
	suffix  bool // append_suffix_if_duplicate of a Name object
	hidden  bool
}

func readNewTemplate(errs *validate.Errors, raw any, present bool) (t newTemplate) {
	if o, ok := errs.Body(raw, present).Required().Object(); ok {
		t.version = readTemplateVersion(o)
		t.name, t.suffix = readTemplateName(o.Get("name").Required())
		t.hidden, _ = o.Get("hidden").Nullable().Bool()
	}
	return t
}

// createTemplate is POST /v2/projects/{project_id}/templates: a template with its version 0.
func (h *handlers) createTemplate(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("project_id", 4, readNewTemplate))
	if err != nil {
		return err
	}
	c, projectID, ctx := call.Caller, call.In.ID, r.Context()
	if _, err := h.Project(ctx, c, projectID); err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	out, err := h.newTemplate(ctx, c, projectID, call.In.Req)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// newTemplate stores t with its version 0 in the project (in no project when projectID is
// "") and answers it.
func (h *handlers) newTemplate(ctx context.Context, c auth.Caller, projectID string, t newTemplate) (templateResponse, error) {
	in := t.version
	now := h.Stamp()
	p := store.PromptTemplate{ID: uuid.NewString(), ProjectID: projectID, OrgID: c.OrgID, Name: t.name, Hidden: t.hidden,
		CreatedBy: c.UserID, CreatedAt: now, UpdatedAt: now}
	v := store.PromptTemplateVersion{ID: uuid.NewString(), Template: in.template, Raw: in.raw, Settings: in.settings,
		OutputType: in.outputType, CreatedBy: c.UserID, CreatedAt: now}
	var err error
	if t.suffix {
		p, v, err = h.createSuffixed(ctx, p, v)
	} else {
		p, v, err = store.CreatePromptTemplate(ctx, h.Table, p, v)
	}
	switch {
	case errors.Is(err, store.ErrNameTaken):
		return templateResponse{}, errNameTaken(t.name)
	case errors.Is(err, store.ErrNotFound):
		return templateResponse{}, httpapi.NotFound("Project")
	case err != nil:
		return templateResponse{}, err
	}
	return templateOut(p, []store.PromptTemplateVersion{v}, callerAsUser(c)), nil
}

func errNameTaken(name string) error {
	return validate.Single(validate.ValueError([]any{"body", "name"}, name, fmt.Sprintf("a prompt template named '%s' already exists", name)))
}

// callerAsUser is the caller as the creator of what it just wrote.
func callerAsUser(c auth.Caller) map[string]store.User {
	return map[string]store.User{c.UserID: {ID: c.UserID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName}}
}

// getTemplate is GET /v2/projects/{project_id}/templates/{template_id}.
func (h *handlers) getTemplate(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readTemplatePath)
	if err != nil {
		return err
	}
	c := call.Caller
	p, vs, err := h.template(r.Context(), c, call.In)
	if err != nil {
		return err
	}
	users, err := h.creators(r.Context(), c.OrgID, versionCreators(p, vs)...)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, templateOut(p, vs, users))
	return nil
}

// listTemplates is GET /v2/projects/{project_id}/templates, newest first.
func (h *handlers) listTemplates(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, base.PathID("project_id", 4))
	if err != nil {
		return err
	}
	c, projectID, ctx := call.Caller, call.In, r.Context()
	var ps []store.PromptTemplate
	err = base.Concurrently(ctx,
		func(ctx context.Context) error { _, err := h.Project(ctx, c, projectID); return err },
		func(ctx context.Context) (err error) {
			ps, err = store.ListPromptTemplates(ctx, h.Table, c.OrgID, projectID)
			return err
		})
	if err != nil {
		return err
	}
	out, err := h.templatesOut(ctx, c, ps)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// templatesOut answers templates with their versions: the versions of every template at
// once, a second wave whatever their number.
func (h *handlers) templatesOut(ctx context.Context, c auth.Caller, ps []store.PromptTemplate) ([]templateResponse, error) {
	all := make([][]store.PromptTemplateVersion, len(ps))
	reads := make([]func(context.Context) error, len(ps))
	for i, p := range ps {
		reads[i] = func(ctx context.Context) (err error) {
			// A template stored before the global routes becomes findable by them.
			if _, err := store.IndexPromptTemplate(ctx, h.Table, p); err != nil {
				return err
			}
			all[i], err = store.PromptTemplateVersions(ctx, h.Table, p.ID)
			return err
		}
	}
	if err := base.Concurrently(ctx, reads...); err != nil {
		return nil, err
	}
	var ids []string
	for i, p := range ps {
		ids = append(ids, versionCreators(p, all[i])...)
	}
	users, err := h.creators(ctx, c.OrgID, ids...)
	if err != nil {
		return nil, err
	}
	out := make([]templateResponse, len(ps))
	for i, p := range ps {
		out[i] = templateOut(p, all[i], users)
	}
	return out, nil
}

// addTemplateVersion is POST /v2/projects/{project_id}/templates/{template_id}/versions:
// the next number, selected. A `version` in the body is ignored (numbers are the service's).
func (h *handlers) addTemplateVersion(w http.ResponseWriter, r *http.Request) error {
	type versionIn struct {
		ref  templateRef
		body templateVersionIn
	}
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (x versionIn) {
		// The body before the path: its problems come first in the 422 (as they always did).
		if o, ok := in.Body().Required().Object(); ok {
			x.body = readTemplateVersion(o)
		}
		x.ref = readTemplatePath(in)
		return x
	})
	if err != nil {
		return err
	}
	c, in, ctx := call.Caller, call.In.body, r.Context()
	p, vs, err := h.template(ctx, c, call.In.ref)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	out, err := h.addVersion(ctx, c, p, vs, in)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// addVersion stores in as the next version of p (whose versions are vs), selected.
func (h *handlers) addVersion(ctx context.Context, c auth.Caller, p store.PromptTemplate, vs []store.PromptTemplateVersion, in templateVersionIn) (templateVersionResponse, error) {
	v := store.PromptTemplateVersion{ID: uuid.NewString(), Template: in.template, Raw: in.raw, Settings: in.settings,
		OutputType: in.outputType, CreatedBy: c.UserID, CreatedAt: h.Stamp()}
	for attempt := 0; ; attempt++ {
		got, err := store.PutNextPromptVersion(ctx, h.Table, p, v, v.CreatedAt)
		if err == nil {
			v = got
			break
		}
		if !errors.Is(err, store.ErrVersionRace) || attempt >= maxVersionRetries {
			return templateVersionResponse{}, err
		}
		if p, err = store.GetPromptTemplate(ctx, h.Table, c.OrgID, p.ProjectID, p.ID); err != nil {
			return templateVersionResponse{}, err
		}
	}
	var prev *store.PromptTemplateVersion
	if n := len(vs); n > 0 {
		prev = &vs[n-1]
	}
	return versionOut(v, prev, callerAsUser(c)), nil
}

// getTemplateVersion is GET /v2/projects/{project_id}/templates/{template_id}/versions/{version}.
func (h *handlers) getTemplateVersion(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readVersionPath)
	if err != nil {
		return err
	}
	c, n := call.Caller, call.In.version
	_, vs, err := h.template(r.Context(), c, call.In)
	if err != nil {
		return err
	}
	out, err := h.versionN(r.Context(), c, vs, n)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// versionN answers version n of the versions vs; 404 when there is none.
func (h *handlers) versionN(ctx context.Context, c auth.Caller, vs []store.PromptTemplateVersion, n int64) (templateVersionResponse, error) {
	for i, v := range vs {
		if v.Version != n {
			continue
		}
		var prev *store.PromptTemplateVersion
		if i > 0 {
			prev = &vs[i-1]
		}
		users, err := h.creators(ctx, c.OrgID, v.CreatedBy)
		if err != nil {
			return templateVersionResponse{}, err
		}
		return versionOut(v, prev, users), nil
	}
	return templateVersionResponse{}, httpapi.NotFound("Prompt template version")
}

// selectTemplateVersion is PUT /v2/projects/{project_id}/templates/{template_id}/versions/{version}:
// that version becomes the selected one; the answer is the template.
func (h *handlers) selectTemplateVersion(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readVersionPath)
	if err != nil {
		return err
	}
	c, n := call.Caller, call.In.version
	p, vs, err := h.template(r.Context(), c, call.In)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	out, err := h.selectVersion(ctx, c, p, vs, n)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// selectVersion makes version n of p the selected one and answers p.
func (h *handlers) selectVersion(ctx context.Context, c auth.Caller, p store.PromptTemplate, vs []store.PromptTemplateVersion, n int64) (templateResponse, error) {
	now := h.Stamp()
	switch err := store.SelectPromptVersion(ctx, h.Table, p, n, now); {
	case errors.Is(err, store.ErrVersionGone):
		return templateResponse{}, httpapi.NotFound("Prompt template version")
	case errors.Is(err, store.ErrNotFound):
		return templateResponse{}, httpapi.NotFound("Prompt template")
	case err != nil:
		return templateResponse{}, err
	}
	p.SelectedVersion, p.UpdatedAt = n, now
	users, err := h.creators(ctx, c.OrgID, versionCreators(p, vs)...)
	if err != nil {
		return templateResponse{}, err
	}
	return templateOut(p, vs, users), nil
}
