package experiments

import (
	"encoding/json"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// The answers of the template routes: BasePromptTemplateResponse and
// BasePromptTemplateVersionResponse of the original.

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
