package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Prompt templates of a project and their versions.
//
//	record        PK                    SK                        notes
//	template      PROJECT#<pid>         TEMPLATE#<id>             version_count, selected_version; org_id scopes reads
//	org template  ORGPTEMPLATES#<org>   TEMPLATE#<id>             a template of no project (the global routes)
//	name claim    <the template's PK>   NAME#TEMPLATE#<sha256>    a name is unique in the project (or among the org's)
//	home          PTEMPLATE#<id>        HOME                      project_id, org_id: finds a template by its id alone
//	version       PTEMPLATE#<id>        VERSION#<n, 6 digits>     the template text or messages, settings
//	collaborator  PTEMPLATE#<id>        USER#<uid> | GROUP#<gid>  role (prompt_templates_share.go)
//
// Every template record also carries GSI1 (ORGPTEMPLATES#<org>, TEMPLATE#<id>): the
// organization's templates, of every project and of none, in one query (POST /templates/query).
// Templates stored before the global routes have no home record and no GSI1 attributes:
// the project routes give them both when they read them (IndexPromptTemplate); until then the
// global routes do not find them.
//
// Versions are numbered 0, 1, 2… per template (the original's version indexes start at 0),
// with no gap or repeat: a new version's number comes from version_count on the template,
// changed in the same transaction on the condition that it is still what was read.

// Entities of the template records.
const (
	EntityPromptTemplate        = "prompt_template"
	EntityPromptTemplateVersion = "prompt_template_version"
	EntityPromptTemplateHome    = "prompt_template_home"
)

// PromptTemplate is a template as stored.
type PromptTemplate struct {
	ID              string    `json:"id"`
	ProjectID       string    `json:"project_id"`
	OrgID           string    `json:"org_id"`
	Name            string    `json:"name"`
	Hidden          bool      `json:"hidden,omitempty"`
	VersionCount    int64     `json:"version_count"`
	SelectedVersion int64     `json:"selected_version"`
	CreatedBy       string    `json:"created_by"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	// Indexed: the template has its home record and its GSI1 attributes (every template
	// created since the global routes; IndexPromptTemplate gives them to an older one).
	Indexed bool `json:"indexed,omitempty"`
}

// PromptTemplateVersion is one version: Template is a string or a list of messages
// ({role, content}), as sent.
type PromptTemplateVersion struct {
	ID         string         `json:"id"`
	TemplateID string         `json:"template_id"`
	Version    int64          `json:"version"`
	Template   any            `json:"template"`
	Raw        bool           `json:"raw"`
	Settings   map[string]any `json:"settings"`
	OutputType *string        `json:"output_type"`
	CreatedBy  string         `json:"created_by"`
	CreatedAt  time.Time      `json:"created_at"`
}

// ErrVersionGone is a selected version the template does not have.
var ErrVersionGone = errors.New("store: no such template version")

// promptTemplateKey is the key of a template of the project, or of the organization when
// projectID is "".
func promptTemplateKey(orgID, projectID, id string) Key {
	if projectID == "" {
		return Key{PK: orgTemplatesPK(orgID), SK: "TEMPLATE#" + id}
	}
	return Key{PK: "PROJECT#" + projectID, SK: "TEMPLATE#" + id}
}

func orgTemplatesPK(orgID string) string { return "ORGPTEMPLATES#" + orgID }

// promptTemplateHomeKey is the record that names a template's project (or none).
func promptTemplateHomeKey(id string) Key { return Key{PK: "PTEMPLATE#" + id, SK: "HOME"} }

func promptVersionKey(templateID string, v int64) Key {
	return Key{PK: "PTEMPLATE#" + templateID, SK: "VERSION#" + Pad(v, 6)}
}

// CreatePromptTemplate stores a template with its version 0, selected, in one transaction
// with its name claim, its home record and a check that the project exists (p.ProjectID ""
// is a template of the organization, no project). ErrNameTaken, ErrNotFound.
func CreatePromptTemplate(ctx context.Context, t Table, p PromptTemplate, v PromptTemplateVersion) (PromptTemplate, PromptTemplateVersion, error) {
	p.VersionCount, p.SelectedVersion, p.Indexed = 1, 0, true
	v.TemplateID, v.Version = p.ID, 0
	it, err := Marshal(p)
	if err != nil {
		return p, v, err
	}
	vit, err := Marshal(v)
	if err != nil {
		return p, v, err
	}
	k, vk, hk := promptTemplateKey(p.OrgID, p.ProjectID, p.ID), promptVersionKey(p.ID, 0), promptTemplateHomeKey(p.ID)
	it = it.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntityPromptTemplate, AttrGSI1PK, orgTemplatesPK(p.OrgID), AttrGSI1SK, k.SK)
	vit = vit.With(AttrPK, vk.PK, AttrSK, vk.SK, AttrEntity, EntityPromptTemplateVersion, AttrGSI1PK, promptVersionIndex(v.ID), AttrGSI1SK, EntityPromptTemplateVersion)
	home := Item{AttrPK: hk.PK, AttrSK: hk.SK, AttrEntity: EntityPromptTemplateHome, "project_id": p.ProjectID, "org_id": p.OrgID}
	extra := []Op{CheckOp(projectKey(p.ProjectID), Exists()), PutOp(vit, NotExists()), PutOp(home, NotExists())}
	if p.ProjectID == "" {
		extra = extra[1:] // no project to check
	}
	err = create(ctx, t, it, nameClaim(k.PK, "TEMPLATE", p.Name, k), extra...)
	if err != nil {
		return p, v, fmt.Errorf("create prompt template %q: %w", p.Name, err)
	}
	return p, v, nil
}

// GetPromptTemplate reads a template of the project (of no project when projectID is "")
// and organization; ErrNotFound otherwise.
func GetPromptTemplate(ctx context.Context, t Table, orgID, projectID, id string) (PromptTemplate, error) {
	var p PromptTemplate
	if err := getOwned(ctx, t, promptTemplateKey(orgID, projectID, id), orgID, &p, func() string { return p.OrgID }); err != nil {
		return PromptTemplate{}, fmt.Errorf("get prompt template %s: %w", id, err)
	}
	return p, nil
}

// ListPromptTemplates reads the templates of a project in the organization, newest first.
func ListPromptTemplates(ctx context.Context, t Table, orgID, projectID string) ([]PromptTemplate, error) {
	items, err := queryAllStored(ctx, t, Query{PK: "PROJECT#" + projectID, SKOp: SKPrefix, From: "TEMPLATE#"})
	if err != nil {
		return nil, fmt.Errorf("list prompt templates: %w", err)
	}
	out := []PromptTemplate{}
	for _, it := range items {
		var p PromptTemplate
		if err := it.Decode(&p); err != nil {
			return nil, err
		}
		if p.OrgID == orgID {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// PromptTemplateVersions reads every version of a template, in order.
func PromptTemplateVersions(ctx context.Context, t Table, templateID string) ([]PromptTemplateVersion, error) {
	items, err := queryAllStored(ctx, t, Query{PK: "PTEMPLATE#" + templateID, SKOp: SKPrefix, From: "VERSION#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("versions of prompt template %s: %w", templateID, err)
	}
	out := make([]PromptTemplateVersion, 0, len(items))
	for _, it := range items {
		var v PromptTemplateVersion
		if err := it.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// GetPromptTemplateVersion reads version n of a template; ErrNotFound when it has none.
func GetPromptTemplateVersion(ctx context.Context, t Table, templateID string, n int64) (PromptTemplateVersion, error) {
	it, err := t.Get(ctx, promptVersionKey(templateID, n), true)
	if err != nil {
		return PromptTemplateVersion{}, fmt.Errorf("version %d of prompt template %s: %w", n, templateID, err)
	}
	var v PromptTemplateVersion
	return v, Unmarshal(it, &v)
}

// PutNextPromptVersion stores v as version p.VersionCount of p (p as last read) and selects
// it. ErrVersionRace when another writer took that number: read again and retry.
func PutNextPromptVersion(ctx context.Context, t Table, p PromptTemplate, v PromptTemplateVersion, now time.Time) (PromptTemplateVersion, error) {
	v.TemplateID, v.Version = p.ID, p.VersionCount
	vit, err := Marshal(v)
	if err != nil {
		return v, err
	}
	vk := promptVersionKey(p.ID, v.Version)
	err = t.Transact(ctx, []Op{
		UpdateOp(Update{Key: promptTemplateKey(p.OrgID, p.ProjectID, p.ID),
			Set:   map[string]any{"version_count": v.Version + 1, "selected_version": v.Version, "updated_at": now.UTC().Format(time.RFC3339Nano)},
			Conds: []Cond{Equals("version_count", p.VersionCount)}}),
		PutOp(vit.With(AttrPK, vk.PK, AttrSK, vk.SK, AttrEntity, EntityPromptTemplateVersion,
			AttrGSI1PK, promptVersionIndex(v.ID), AttrGSI1SK, EntityPromptTemplateVersion), NotExists()),
	})
	switch {
	case errors.Is(err, ErrConditionFailed), errors.Is(err, ErrConflict):
		return v, fmt.Errorf("version %d of prompt template %s: %w (%v)", v.Version, p.ID, ErrVersionRace, err)
	case err != nil:
		return v, fmt.Errorf("put version %d of prompt template %s: %w", v.Version, p.ID, err)
	}
	return v, nil
}

// SelectPromptVersion makes version n the template's selected one; ErrVersionGone when
// the template has no such version, ErrNotFound when the template is gone.
func SelectPromptVersion(ctx context.Context, t Table, p PromptTemplate, n int64, now time.Time) error {
	err := t.Transact(ctx, []Op{
		UpdateOp(Update{Key: promptTemplateKey(p.OrgID, p.ProjectID, p.ID), Conds: []Cond{Exists()},
			Set: map[string]any{"selected_version": n, "updated_at": now.UTC().Format(time.RFC3339Nano)}}),
		CheckOp(promptVersionKey(p.ID, n), Exists()),
	})
	var tx *TxCanceledError
	if errors.As(err, &tx) {
		switch tx.Failed() {
		case 0:
			return fmt.Errorf("select version %d of prompt template %s: %w", n, p.ID, ErrNotFound)
		case 1:
			return fmt.Errorf("select version %d of prompt template %s: %w", n, p.ID, ErrVersionGone)
		}
	}
	if err != nil {
		return fmt.Errorf("select version %d of prompt template %s: %w", n, p.ID, err)
	}
	return nil
}

// promptVersionIndex is the GSI1 partition of a version: found by its id in one query.
func promptVersionIndex(id string) string { return "PTVER#" + id }

// PromptTemplateByVersionID finds a version of the project's templates by its id (the
// experiment's prompt_template_version_id) with its template: a query of GSI1 and a read.
func PromptTemplateByVersionID(ctx context.Context, t Table, orgID, projectID, versionID string) (PromptTemplate, PromptTemplateVersion, error) {
	page, err := t.Query(ctx, Query{Index: IndexGSI1, PK: promptVersionIndex(versionID), Limit: 1})
	if err != nil {
		return PromptTemplate{}, PromptTemplateVersion{}, fmt.Errorf("prompt template version %s: %w", versionID, err)
	}
	if len(page.Items) == 0 {
		return PromptTemplate{}, PromptTemplateVersion{}, fmt.Errorf("prompt template version %s: %w", versionID, ErrNotFound)
	}
	var v PromptTemplateVersion
	if err := Unmarshal(page.Items[0], &v); err != nil {
		return PromptTemplate{}, v, err
	}
	p, err := GetPromptTemplate(ctx, t, orgID, projectID, v.TemplateID)
	return p, v, err
}
