package scorers

import (
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// The answers of the group in the shapes of the original's clients: ScorerResponse for a
// scorer, BaseScorerVersionResponse for a version (which the specification's §2.7 extends
// with decision_scorer, luna3_scorer and runtime).

// scorerResponse is ScorerResponse. The fields the service does not keep answer their
// original defaults (no color pickers); the label is the name unless set; every scorer is global to its
// organization.
type scorerResponse struct {
	ID                      string               `json:"id"`
	Permissions             []any                `json:"permissions"`
	Name                    string               `json:"name"`
	ScorerType              string               `json:"scorer_type"`
	Description             string               `json:"description"`
	Tags                    []string             `json:"tags"`
	Defaults                store.ScorerDefaults `json:"defaults"`
	LatestVersion           *versionRecord       `json:"latest_version"`
	ModelType               *string              `json:"model_type"`
	DefaultVersionID        *string              `json:"default_version_id"`
	DefaultVersion          *versionRecord       `json:"default_version"`
	OutputType              *string              `json:"output_type"`
	InputType               *string              `json:"input_type"`
	ScoreableNodeTypes      []string             `json:"scoreable_node_types"`
	Label                   string               `json:"label"`
	IncludedFields          []string             `json:"included_fields"`
	IsGlobal                bool                 `json:"is_global"`
	ScopeProjects           []any                `json:"scope_projects"`
	MetricColorPickerConfig any                  `json:"metric_color_picker_config"`
	ColorThresholdConfig    any                  `json:"color_threshold_config"`
	VersionCount            int64                `json:"version_count"`
	CreatedBy               string               `json:"created_by"`
	CreatedAt               time.Time            `json:"created_at"`
	UpdatedAt               time.Time            `json:"updated_at"`
}

// modelTypes maps a scorer type to the original's model type (slm is its luna).
var modelTypes = map[string]string{"llm": "llm", "code": "code", "luna": "slm", "preset": "llm"}

func scorerOut(s store.Scorer) scorerResponse {
	out := scorerResponse{ID: s.ID, Permissions: []any{}, Name: s.Name, ScorerType: s.ScorerType,
		Description: s.Description, Tags: s.Tags, Defaults: s.Defaults, OutputType: s.OutputType,
		InputType: s.InputType, ScoreableNodeTypes: s.ScoreableNodeTypes, Label: store.ScorerLabel(s), IncludedFields: []string{},
		IsGlobal: true, ScopeProjects: []any{}, VersionCount: s.VersionCount, CreatedBy: s.CreatedBy,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if mt, ok := modelTypes[s.ScorerType]; ok {
		out.ModelType = &mt
	}
	if s.LatestVersion != nil {
		r := recordOf(*s.LatestVersion)
		out.LatestVersion, out.DefaultVersion, out.DefaultVersionID = &r, &r, &r.ID
	}
	return out
}

// versionRecord is BaseScorerVersionDB: a version in brief, inside a scorer.
type versionRecord struct {
	ID                 string          `json:"id"`
	Version            int64           `json:"version"`
	ScorerID           string          `json:"scorer_id"`
	GeneratedScorer    *generatedBrief `json:"generated_scorer"`
	RegisteredScorer   *registered     `json:"registered_scorer"`
	FinetunedScorer    any             `json:"finetuned_scorer"`
	ModelName          *string         `json:"model_name"`
	NumJudges          *int64          `json:"num_judges"`
	ScoreableNodeTypes []string        `json:"scoreable_node_types"`
	CotEnabled         *bool           `json:"cot_enabled"`
	OutputType         *string         `json:"output_type"`
	InputType          *string         `json:"input_type"`
}

type generatedBrief struct {
	ID                string                  `json:"id"`
	Name              string                  `json:"name"`
	Instructions      *string                 `json:"instructions"`
	ChainPollTemplate store.ChainPollTemplate `json:"chain_poll_template"`
	UserPrompt        *string                 `json:"user_prompt"`
}

func recordOf(v store.ScorerVersion) versionRecord {
	r := versionRecord{ID: v.ID, Version: v.Version, ScorerID: v.ScorerID, ModelName: v.ModelName,
		NumJudges: v.NumJudges, ScoreableNodeTypes: v.ScoreableNodeTypes, CotEnabled: v.CotEnabled,
		OutputType: v.OutputType, InputType: v.InputType, RegisteredScorer: registeredOut(v)}
	if g := v.Generated; g != nil {
		r.GeneratedScorer = &generatedBrief{ID: g.ID, Name: g.Name, Instructions: g.Instructions,
			ChainPollTemplate: g.ChainPollTemplate, UserPrompt: g.UserPrompt}
	}
	return r
}

// versionResponse is the scorer version of §2.7 (the original's BaseScorerVersionResponse
// with the specification's decision_scorer, luna3_scorer and runtime): the object of the
// version's kind is filled, the others are null.
type versionResponse struct {
	ID                 string                   `json:"id"`
	Version            int64                    `json:"version"`
	ScorerID           string                   `json:"scorer_id"`
	CreatedAt          time.Time                `json:"created_at"`
	UpdatedAt          time.Time                `json:"updated_at"`
	GeneratedScorer    *generated               `json:"generated_scorer"`
	RegisteredScorer   *registered              `json:"registered_scorer"`
	FinetunedScorer    any                      `json:"finetuned_scorer"`
	Luna3Scorer        any                      `json:"luna3_scorer"`
	DecisionScorer     *store.DecisionScorer    `json:"decision_scorer"`
	ModelName          *string                  `json:"model_name"`
	NumJudges          *int64                   `json:"num_judges"`
	CotEnabled         *bool                    `json:"cot_enabled"`
	Runtime            *string                  `json:"runtime"`
	ChainPollTemplate  *store.ChainPollTemplate `json:"chain_poll_template"`
	ScoreableNodeTypes []string                 `json:"scoreable_node_types"`
	OutputType         *string                  `json:"output_type"`
	InputType          *string                  `json:"input_type"`
	AllowedModel       bool                     `json:"allowed_model"`
	CreatedBy          string                   `json:"created_by"`
}

// generated is GeneratedScorerResponse: an llm version's prompt and its configuration.
type generated struct {
	generatedBrief
	CreatedBy           string              `json:"created_by"`
	CreatedAt           time.Time           `json:"created_at"`
	UpdatedAt           time.Time           `json:"updated_at"`
	ScoreableNodeTypes  []string            `json:"scoreable_node_types"`
	ScorerConfiguration scorerConfiguration `json:"scorer_configuration"`
}

// scorerConfiguration is GeneratedScorerConfiguration; a setting the version does not have
// is left out (the original's clients take no null there).
type scorerConfiguration struct {
	ModelAlias         *string  `json:"model_alias,omitempty"`
	NumJudges          *int64   `json:"num_judges,omitempty"`
	OutputType         *string  `json:"output_type,omitempty"`
	ScoreableNodeTypes []string `json:"scoreable_node_types,omitempty"`
	CotEnabled         *bool    `json:"cot_enabled,omitempty"`
	GroundTruth        bool     `json:"ground_truth"`
}

// registered is CreateUpdateRegisteredScorerResponse: a code version's code record.
type registered struct {
	ID                 string    `json:"id"`
	Name               string    `json:"name"`
	ScoreType          *string   `json:"score_type"`
	DataType           *string   `json:"data_type"`
	ScoreableNodeTypes []string  `json:"scoreable_node_types"`
	CreatedBy          string    `json:"created_by"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
}

func registeredOut(v store.ScorerVersion) *registered {
	r := v.Registered
	if r == nil {
		return nil
	}
	return &registered{ID: r.ID, Name: r.Name, ScoreType: r.ScoreType, DataType: r.DataType,
		ScoreableNodeTypes: r.ScoreableNodeTypes, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func versionOut(v store.ScorerVersion) versionResponse {
	out := versionResponse{ID: v.ID, Version: v.Version, ScorerID: v.ScorerID, CreatedAt: v.CreatedAt,
		UpdatedAt: v.UpdatedAt, DecisionScorer: v.Decision, ModelName: v.ModelName, NumJudges: v.NumJudges,
		CotEnabled: v.CotEnabled, Runtime: v.Runtime, ChainPollTemplate: v.ChainPollTemplate,
		ScoreableNodeTypes: v.ScoreableNodeTypes, OutputType: v.OutputType, InputType: v.InputType,
		AllowedModel: true, CreatedBy: v.CreatedBy, RegisteredScorer: registeredOut(v)}
	if g := v.Generated; g != nil {
		out.GeneratedScorer = &generated{
			generatedBrief: generatedBrief{ID: g.ID, Name: g.Name, Instructions: g.Instructions,
				ChainPollTemplate: g.ChainPollTemplate, UserPrompt: g.UserPrompt},
			CreatedBy: g.CreatedBy, CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt,
			ScoreableNodeTypes: v.ScoreableNodeTypes,
			ScorerConfiguration: scorerConfiguration{ModelAlias: v.ModelName, NumJudges: v.NumJudges,
				OutputType: v.OutputType, ScoreableNodeTypes: v.ScoreableNodeTypes, CotEnabled: v.CotEnabled},
		}
	}
	return out
}
