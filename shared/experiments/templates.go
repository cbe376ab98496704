package experiments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

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

type templateVersionResponse struct {
	Template        any          `json:"template"`
	Raw             bool         `json:"raw"`
	Version         int64        `json:"version"`
	Settings        *runSettings `json:"settings"`
	OutputType      *string      `json:"output_type"`
	ID              string       `json:"id"`
	ModelChanged    bool         `json:"model_changed"`
	LinesAdded      int64        `json:"lines_added"`
	LinesEdited     int64        `json:"lines_edited"`
	LinesRemoved    int64        `json:"lines_removed"`
	SettingsChanged bool         `json:"settings_changed"`
	ContentChanged  bool         `json:"content_changed"`
	CreatedAt       time.Time    `json:"created_at"`
	UpdatedAt       time.Time    `json:"updated_at"`
	CreatedByUser   *userInfo    `json:"created_by_user"`
}

type templateResponse struct {
	ID                   string                    `json:"id"`
	Permissions          []any                     `json:"permissions"`
	Name                 string                    `json:"name"`
	Template             string                    `json:"template"`
	SelectedVersion      templateVersionResponse   `json:"selected_version"`
	SelectedVersionID    string                    `json:"selected_version_id"`
	AllVersions          []templateVersionResponse `json:"all_versions"`
	AllAvailableVersions []int64                   `json:"all_available_versions"`
	TotalVersions        int64                     `json:"total_versions"`
	MaxVersion           int64                     `json:"max_version"`
	CreatedAt            time.Time                 `json:"created_at"`
	UpdatedAt            time.Time                 `json:"updated_at"`
	CreatedByUser        *userInfo                 `json:"created_by_user"`
}

func versionOut(v store.PromptTemplateVersion, prev *store.PromptTemplateVersion, users map[string]store.User) templateVersionResponse {
	settings := runSettingsOut(v.Settings)
	if settings == nil {
		settings = &runSettings{}
	}
	out := templateVersionResponse{Template: v.Template, Raw: v.Raw, Version: v.Version, Settings: settings,
		OutputType: v.OutputType, ID: v.ID, CreatedAt: v.CreatedAt, UpdatedAt: v.CreatedAt, CreatedByUser: userOut(users, v.CreatedBy)}
	if prev != nil {
		a, _ := json.Marshal(prev.Settings)
		b, _ := json.Marshal(v.Settings)
		out.SettingsChanged = string(a) != string(b)
		out.ContentChanged = templateText(prev.Template) != templateText(v.Template)
		out.ModelChanged = prev.Settings["model_alias"] != v.Settings["model_alias"]
	}
	return out
}

func userOut(users map[string]store.User, id string) *userInfo {
	u, ok := users[id]
	if !ok {
		return nil
	}
	return &userInfo{ID: u.ID, Email: u.Email, FirstName: strPtr(u.FirstName), LastName: strPtr(u.LastName)}
}

func templateOut(p store.PromptTemplate, versions []store.PromptTemplateVersion, users map[string]store.User) templateResponse {
	out := templateResponse{ID: p.ID, Permissions: []any{}, Name: p.Name, AllVersions: []templateVersionResponse{},
		AllAvailableVersions: []int64{}, TotalVersions: int64(len(versions)), MaxVersion: p.VersionCount - 1,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, CreatedByUser: userOut(users, p.CreatedBy)}
	for i, v := range versions {
		var prev *store.PromptTemplateVersion
		if i > 0 {
			prev = &versions[i-1]
		}
		vo := versionOut(v, prev, users)
		out.AllVersions = append(out.AllVersions, vo)
		out.AllAvailableVersions = append(out.AllAvailableVersions, v.Version)
		if v.Version == p.SelectedVersion {
			out.SelectedVersion, out.SelectedVersionID, out.Template = vo, v.ID, templateText(v.Template)
		}
	}
	return out
}

// newTemplate is the body of a new template: its name, whether it is hidden, and its
// first version.
type newTemplate struct {
	version templateVersionIn
	name    string
	hidden  bool
}

func readNewTemplate(errs *validate.Errors, raw any, present bool) (t newTemplate) {
	if o, ok := errs.Body(raw, present).Required().Object(); ok {
		t.version = readTemplateVersion(o)
		t.name, _ = o.Get("name").Required().String(validate.MinLen(1), validate.MaxLen(maxNameLen))
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
	in, name, hidden := call.In.Req.version, call.In.Req.name, call.In.Req.hidden
	if _, err := h.Project(ctx, c, projectID); err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	now := h.Stamp()
	p := store.PromptTemplate{ID: uuid.NewString(), ProjectID: projectID, OrgID: c.OrgID, Name: name, Hidden: hidden,
		CreatedBy: c.UserID, CreatedAt: now, UpdatedAt: now}
	v := store.PromptTemplateVersion{ID: uuid.NewString(), Template: in.template, Raw: in.raw, Settings: in.settings,
		OutputType: in.outputType, CreatedBy: c.UserID, CreatedAt: now}
	p, v, err = store.CreatePromptTemplate(ctx, h.Table, p, v)
	switch {
	case errors.Is(err, store.ErrNameTaken):
		return validate.Single(validate.ValueError([]any{"body", "name"}, name, fmt.Sprintf("a prompt template named '%s' already exists", name)))
	case errors.Is(err, store.ErrNotFound):
		return httpapi.NotFound("Project")
	case err != nil:
		return err
	}
	users := map[string]store.User{c.UserID: {ID: c.UserID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName}}
	httpapi.WriteJSON(w, http.StatusOK, templateOut(p, []store.PromptTemplateVersion{v}, users))
	return nil
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
	// The versions of every template at once: a second wave whatever their number.
	all := make([][]store.PromptTemplateVersion, len(ps))
	reads := make([]func(context.Context) error, len(ps))
	for i, p := range ps {
		reads[i] = func(ctx context.Context) (err error) {
			all[i], err = store.PromptTemplateVersions(ctx, h.Table, p.ID)
			return err
		}
	}
	if err := base.Concurrently(ctx, reads...); err != nil {
		return err
	}
	var ids []string
	for i, p := range ps {
		ids = append(ids, versionCreators(p, all[i])...)
	}
	users, err := h.creators(ctx, c.OrgID, ids...)
	if err != nil {
		return err
	}
	out := make([]templateResponse, len(ps))
	for i, p := range ps {
		out[i] = templateOut(p, all[i], users)
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
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
	v := store.PromptTemplateVersion{ID: uuid.NewString(), Template: in.template, Raw: in.raw, Settings: in.settings,
		OutputType: in.outputType, CreatedBy: c.UserID, CreatedAt: h.Stamp()}
	for attempt := 0; ; attempt++ {
		got, err := store.PutNextPromptVersion(ctx, h.Table, p, v, v.CreatedAt)
		if err == nil {
			v = got
			break
		}
		if !errors.Is(err, store.ErrVersionRace) || attempt >= maxVersionRetries {
			return err
		}
		if p, err = store.GetPromptTemplate(ctx, h.Table, c.OrgID, p.ProjectID, p.ID); err != nil {
			return err
		}
	}
	var prev *store.PromptTemplateVersion
	if n := len(vs); n > 0 {
		prev = &vs[n-1]
	}
	users := map[string]store.User{c.UserID: {ID: c.UserID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName}}
	httpapi.WriteJSON(w, http.StatusOK, versionOut(v, prev, users))
	return nil
}

// getTemplateVersion is GET /v2/projects/{project_id}/templates/{template_id}/versions/{version}.
func (h *handlers) getTemplateVersion(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readVersionPath)
	if err != nil {
		return err
	}
	c, n := call.Caller, call.In.version
	p, vs, err := h.template(r.Context(), c, call.In)
	if err != nil {
		return err
	}
	for i, v := range vs {
		if v.Version != n {
			continue
		}
		var prev *store.PromptTemplateVersion
		if i > 0 {
			prev = &vs[i-1]
		}
		users, err := h.creators(r.Context(), c.OrgID, v.CreatedBy)
		if err != nil {
			return err
		}
		_ = p
		httpapi.WriteJSON(w, http.StatusOK, versionOut(v, prev, users))
		return nil
	}
	return httpapi.NotFound("Prompt template version")
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
	now := h.Stamp()
	switch err := store.SelectPromptVersion(ctx, h.Table, p, n, now); {
	case errors.Is(err, store.ErrVersionGone):
		return httpapi.NotFound("Prompt template version")
	case errors.Is(err, store.ErrNotFound):
		return httpapi.NotFound("Prompt template")
	case err != nil:
		return err
	}
	p.SelectedVersion, p.UpdatedAt = n, now
	users, err := h.creators(ctx, c.OrgID, versionCreators(p, vs)...)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, templateOut(p, vs, users))
	return nil
}
