package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Scorers and their versions (operation 8 and POST /v2/scorers).
//
//	record          PK                  SK                         notes
//	scorer          SCORER#<id>         META                       version_count and a copy of that version
//	scorer version  SCORER#<id>         VERSION#<n, 10 digits>     one per version, never rewritten
//	scorer name     ORG#<org id>        NAME#SCORER#<sha256 name>  claims a name within the organization
//	scorer label    ORG#<org id>        NAME#SCORER_LABEL#<sha256>  claims a label, lower-cased, within the organization
//
// A new version is one transaction: META's version_count goes from n to n+1 on condition that
// it still is n, and VERSION#n+1 is put on condition that it does not exist. Of two writers
// that read the same n exactly one commits; the other re-reads and tries n+2. Numbers thus
// run 1, 2, 3... per scorer without a gap or a repeat. The same transaction copies the new
// version into META (latest_version), so the one consistent read of META that every attempt
// needs also gives the defaults a new version takes from its predecessor.

// Entity names of the scorer records.
const (
	EntityScorer        = "scorer"
	EntityScorerVersion = "scorer_version"
	EntityNameClaim     = "name_claim"
)

// Vocabularies of scorer records (§2.7, §2.8), in the specification's order. Read only.
var (
	ScorerTypes = []string{"llm", "code", "luna", "preset"}
	OutputTypes = []string{"boolean", "categorical", "count", "discrete", "freeform", "percentage",
		"multilabel", "retrieved_chunk_list_boolean", "boolean_multilabel", "boolean_probability"}
	InputTypes = []string{"basic", "llm_spans", "retriever_spans", "sessions_normalized",
		"sessions_trace_io_only", "tool_spans", "trace_input_only", "trace_io_only", "trace_normalized",
		"trace_output_only", "agent_spans", "workflow_spans"}
)

// ErrNameTaken is returned when a record's name is already used where it must be unique.
var ErrNameTaken = errors.New("store: name already taken")

// ErrLabelTaken is returned when another scorer of the organization has the label, ignoring case.
var ErrLabelTaken = errors.New("store: scorer label already taken")

// ErrVersionRace is returned when another writer took the version number first; the caller
// re-reads the scorer and tries again.
var ErrVersionRace = fmt.Errorf("%w: scorer version taken by a concurrent writer", ErrConditionFailed)

// Scorer is a scorer of an organization.
type Scorer struct {
	ID                 string         `json:"id"`
	OrgID              string         `json:"org_id"`
	Name               string         `json:"name"`
	Label              string         `json:"label"` // "" on scorers stored before labels: the name is theirs
	Description        string         `json:"description"`
	ScorerType         string         `json:"scorer_type"`
	Tags               []string       `json:"tags"`
	Defaults           ScorerDefaults `json:"defaults"`
	OutputType         *string        `json:"output_type"`
	InputType          *string        `json:"input_type"`
	ScoreableNodeTypes []string       `json:"scoreable_node_types"`
	VersionCount       int64          `json:"version_count"`
	LatestVersion      *ScorerVersion `json:"latest_version"` // version VersionCount; nil before the first
	CreatedBy          string         `json:"created_by"`
	CreatedAt          time.Time      `json:"created_at"`
	UpdatedAt          time.Time      `json:"updated_at"`
}

// ScorerDefaults are what a new version takes when neither the request nor an earlier version
// says otherwise.
type ScorerDefaults struct {
	ModelName  *string `json:"model_name"`
	NumJudges  *int64  `json:"num_judges"`
	CotEnabled *bool   `json:"cot_enabled"`
}

// ScorerVersion is one numbered version of a scorer, of one kind: a decision version holds
// its Decision, an llm version its Generated scorer (the judges' prompt), a code version its
// Registered scorer and Code, a preset version only the common settings.
type ScorerVersion struct {
	ID                 string             `json:"id"`
	ScorerID           string             `json:"scorer_id"`
	OrgID              string             `json:"org_id"`
	Version            int64              `json:"version"`
	Kind               string             `json:"kind,omitempty"` // VersionDecision (also when empty), VersionLLM, VersionCode, VersionPreset
	Generated          *GeneratedScorer   `json:"generated_scorer,omitempty"`
	Registered         *RegisteredScorer  `json:"registered_scorer,omitempty"`
	Code               string             `json:"code,omitempty"` // the code of a code version
	ModelName          *string            `json:"model_name"`
	NumJudges          *int64             `json:"num_judges"`
	CotEnabled         *bool              `json:"cot_enabled"`
	ScoreableNodeTypes []string           `json:"scoreable_node_types"`
	OutputType         *string            `json:"output_type"`
	InputType          *string            `json:"input_type"`
	ChainPollTemplate  *ChainPollTemplate `json:"chain_poll_template"`
	Decision           *DecisionScorer    `json:"decision_scorer"`
	Runtime            *string            `json:"runtime"`
	CreatedBy          string             `json:"created_by"`
	CreatedAt          time.Time          `json:"created_at"`
	UpdatedAt          time.Time          `json:"updated_at"`
}

// Kinds of scorer version.
const (
	VersionDecision = "decision"
	VersionLLM      = "llm"
	VersionCode     = "code"
	VersionPreset   = "preset"
)

// GeneratedScorer is the prompt of an llm version: its chain-poll template (what the judges
// answer), and the instructions and user prompt it was written from.
type GeneratedScorer struct {
	ID                string            `json:"id"`
	Name              string            `json:"name"`
	Instructions      *string           `json:"instructions"`
	ChainPollTemplate ChainPollTemplate `json:"chain_poll_template"`
	UserPrompt        *string           `json:"user_prompt"`
	CreatedBy         string            `json:"created_by"`
	CreatedAt         time.Time         `json:"created_at"`
	UpdatedAt         time.Time         `json:"updated_at"`
}

// RegisteredScorer is the record of a code version's code.
type RegisteredScorer struct {
	ID                 string    `json:"id"`
	Name               string    `json:"name"`
	ScoreType          *string   `json:"score_type"`
	DataType           *string   `json:"data_type"`
	ScoreableNodeTypes []string  `json:"scoreable_node_types"`
	ValidationResult   string    `json:"validation_result"`
	CreatedBy          string    `json:"created_by"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
}

// DecisionScorer is the decision row of a version: the question and its answers.
type DecisionScorer struct {
	ID             string        `json:"id"`
	OrganizationID string        `json:"organization_id"`
	Question       string        `json:"question"`
	AnswerOptions  AnswerOptions `json:"answer_options"`
	CreatedAt      time.Time     `json:"created_at"`
	CreatedBy      string        `json:"created_by"`
}

// ChainPollTemplate is the prompt a judge model answers (§2.7).
type ChainPollTemplate struct {
	Template              string           `json:"template"`
	MetricSystemPrompt    *string          `json:"metric_system_prompt"`
	MetricDescription     *string          `json:"metric_description"`
	ValueFieldName        string           `json:"value_field_name"`
	ExplanationFieldName  string           `json:"explanation_field_name"`
	MetricFewShotExamples []FewShotExample `json:"metric_few_shot_examples"`
	ResponseSchema        map[string]any   `json:"response_schema"`
}

// FewShotExample is one worked example of a chain-poll template.
type FewShotExample struct {
	GenerationPromptAndResponse string `json:"generation_prompt_and_response"`
	EvaluatingResponse          string `json:"evaluating_response"`
}

func scorerKey(id string) Key { return Key{PK: "SCORER#" + id, SK: "META"} }

func scorerVersionKey(scorerID string, n int64) Key {
	return Key{PK: "SCORER#" + scorerID, SK: "VERSION#" + Pad(n, 10)}
}

// ScorerLabel is the label of s: its own, else its name (the original's clients look
// scorers up by it).
func ScorerLabel(s Scorer) string {
	if s.Label != "" {
		return s.Label
	}
	return s.Name
}

// CreateScorer stores a new scorer (version_count 0) and claims its name and its label,
// lower-cased, in the organization, in one transaction; ErrNameTaken when another scorer of
// the organization has the name, ErrLabelTaken when one has the label ignoring case.
func CreateScorer(ctx context.Context, t Table, s Scorer) error {
	s.VersionCount, s.LatestVersion = 0, nil
	s.Label = ScorerLabel(s)
	it, err := Marshal(s)
	if err != nil {
		return err
	}
	k := scorerKey(s.ID)
	it = it.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntityScorer)
	scope := "ORG#" + s.OrgID
	err = t.Transact(ctx, []Op{PutOp(it, NotExists()),
		PutOp(nameClaim(scope, "SCORER", s.Name, k), NotExists()),
		PutOp(nameClaim(scope, "SCORER_LABEL", strings.ToLower(s.Label), k), NotExists())})
	var tx *TxCanceledError
	if errors.As(err, &tx) {
		switch tx.Failed() {
		case 1:
			err = ErrNameTaken
		case 2:
			err = ErrLabelTaken
		}
	}
	if err != nil {
		return fmt.Errorf("create scorer %q: %w", s.Name, err)
	}
	return nil
}

// GetScorer reads a scorer of the organization strongly consistently; ErrNotFound when it does
// not exist or belongs to another organization.
func GetScorer(ctx context.Context, t Table, orgID, id string) (Scorer, error) {
	var s Scorer
	if err := getOwned(ctx, t, scorerKey(id), orgID, &s, func() string { return s.OrgID }); err != nil {
		return Scorer{}, fmt.Errorf("get scorer %s: %w", id, err)
	}
	return s, nil
}

// PutNextScorerVersion stores v as version s.VersionCount+1 of s, where s is the scorer as
// last read, and makes it the scorer's latest version. ErrVersionRace (which is also
// ErrConditionFailed) means another writer took that number: read the scorer again and retry.
func PutNextScorerVersion(ctx context.Context, t Table, s Scorer, v ScorerVersion) (ScorerVersion, error) {
	v.ScorerID, v.Version = s.ID, s.VersionCount+1
	it, err := Marshal(v)
	if err != nil {
		return ScorerVersion{}, err
	}
	vk := scorerVersionKey(s.ID, v.Version)
	latest := map[string]any(it.With())
	delete(latest, "code") // the code stays in the version's own item: the scorer is read often
	err = t.Transact(ctx, []Op{
		UpdateOp(Update{
			Key:   scorerKey(s.ID),
			Set:   map[string]any{"version_count": v.Version, "updated_at": it["created_at"], "latest_version": latest},
			Conds: []Cond{Equals("version_count", s.VersionCount)},
		}),
		PutOp(it.With(AttrPK, vk.PK, AttrSK, vk.SK, AttrEntity, EntityScorerVersion), NotExists()),
	})
	switch {
	case errors.Is(err, ErrConditionFailed), errors.Is(err, ErrConflict):
		return ScorerVersion{}, fmt.Errorf("version %d of scorer %s: %w (%v)", v.Version, s.ID, ErrVersionRace, err)
	case err != nil:
		return ScorerVersion{}, fmt.Errorf("put version %d of scorer %s: %w", v.Version, s.ID, err)
	}
	return v, nil
}

// GetScorerVersion reads version n of a scorer, strongly consistently; ErrNotFound when it
// has none of that number.
func GetScorerVersion(ctx context.Context, t Table, scorerID string, n int64) (ScorerVersion, error) {
	it, err := t.Get(ctx, scorerVersionKey(scorerID, n), true)
	if err != nil {
		return ScorerVersion{}, fmt.Errorf("version %d of scorer %s: %w", n, scorerID, err)
	}
	var v ScorerVersion
	if err := Unmarshal(it, &v); err != nil {
		return ScorerVersion{}, err
	}
	return v, nil
}

// ListScorers reads every scorer of the organization (through its name claims, then one
// batch read), in no particular order.
func ListScorers(ctx context.Context, t Table, orgID string) ([]Scorer, error) {
	claims, err := QueryAll(ctx, t, Query{PK: "ORG#" + orgID, SKOp: SKPrefix, From: "NAME#SCORER#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("list scorers: %w", err)
	}
	ids := make([]string, 0, len(claims))
	for _, c := range claims {
		if id, ok := strings.CutPrefix(str(c["owner_pk"]), "SCORER#"); ok {
			ids = append(ids, id)
		}
	}
	byID, err := ScorersByID(ctx, t, orgID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]Scorer, 0, len(byID))
	for _, s := range byID {
		out = append(out, s)
	}
	return out, nil
}

// ScorerVersions reads every version of a scorer in version order (bounded by design: tests
// and small listings).
func ScorerVersions(ctx context.Context, t Table, scorerID string) ([]ScorerVersion, error) {
	items, err := queryAllStored(ctx, t, Query{PK: "SCORER#" + scorerID, SKOp: SKPrefix, From: "VERSION#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("list versions of scorer %s: %w", scorerID, err)
	}
	out := make([]ScorerVersion, len(items))
	for i, it := range items {
		if err := it.Decode(&out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DecisionLevel is one answer of a discrete decision: its label and its 0-based position.
type DecisionLevel struct {
	Label string `json:"label"`
	Value int64  `json:"value"`
}

// AnswerOptions are the answers of a decision: labels (categorical, multilabel, boolean),
// decision levels (discrete), or none (JSON null).
type AnswerOptions struct {
	Labels []string
	Levels []DecisionLevel
}

// IsZero reports whether there are no answers.
func (a AnswerOptions) IsZero() bool { return a.Labels == nil && a.Levels == nil }

// Names returns the answers' labels in order, whichever form they take.
func (a AnswerOptions) Names() []string {
	if a.Levels == nil {
		return a.Labels
	}
	out := make([]string, len(a.Levels))
	for i, l := range a.Levels {
		out[i] = l.Label
	}
	return out
}

func (a AnswerOptions) MarshalJSON() ([]byte, error) {
	switch {
	case a.Levels != nil:
		return json.Marshal(a.Levels)
	case a.Labels != nil:
		return json.Marshal(a.Labels)
	}
	return []byte("null"), nil
}

func (a *AnswerOptions) UnmarshalJSON(b []byte) error {
	*a = AnswerOptions{}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return err
	}
	if len(raw) > 0 && bytes.HasPrefix(bytes.TrimSpace(raw[0]), []byte("{")) {
		return json.Unmarshal(b, &a.Levels)
	}
	return json.Unmarshal(b, &a.Labels)
}

// ScorerConfig is one scorer of a run's metric settings (§2.8), stored field for field as
// PATCH .../metric_settings validated it and returned as is. Only ID is required; nil is
// JSON null.
type ScorerConfig struct {
	ID                     string                `json:"id"`
	ScorerVersionID        *string               `json:"scorer_version_id"`
	Filters                []ScorerFilter        `json:"filters"`
	RollUpMethod           *string               `json:"roll_up_method"`
	Name                   *string               `json:"name"`
	ScorerType             *string               `json:"scorer_type"`
	ModelName              *string               `json:"model_name"`
	NumJudges              *int64                `json:"num_judges"`
	ScorerVersion          *ScorerVersionRecord  `json:"scorer_version"`
	ScoreableNodeTypes     []string              `json:"scoreable_node_types"`
	CotEnabled             *bool                 `json:"cot_enabled"`
	OutputType             *string               `json:"output_type"`
	InputType              *string               `json:"input_type"`
	MultimodalCapabilities []string              `json:"multimodal_capabilities"`
	RollUpConfig           *RollUpConfig         `json:"roll_up_config"`
	ScoreType              *string               `json:"score_type"`
	ModelType              *string               `json:"model_type"`
	ChainpollTemplate      *ChainPollTemplate    `json:"chainpoll_template"`
	MetricName             *string               `json:"metric_name"`
	ScorerPathName         *string               `json:"scorer_path_name"`
	UserCode               *string               `json:"user_code"`
	ModelAlias             *string               `json:"model_alias"`
	DefaultModelAlias      *string               `json:"default_model_alias"`
	Prompt                 *string               `json:"prompt"`
	LoraWeightsPath        *string               `json:"lora_weights_path"`
	RegisteredScorerID     *string               `json:"registered_scorer_id"`
	GroundTruth            *bool                 `json:"ground_truth"`
	RequiresToolsInLLMSpan *bool                 `json:"requires_tools_in_llm_span"`
	RollUpStrategy         *string               `json:"roll_up_strategy"`
	RequiredScorers        []string              `json:"required_scorers"`
	RequiredMetricIDs      []string              `json:"required_metric_ids"`
	LoraTaskID             *int64                `json:"lora_task_id"`
	LunaInputType          *string               `json:"luna_input_type"`
	LunaOutputType         *string               `json:"luna_output_type"`
	ClassNameToVocabIx     map[string]VocabIndex `json:"class_name_to_vocab_ix"`
}

// MetricKey names the metric the scorer produces: its name, else its id. Column ids
// (`metrics/<key>`), metric values on traces and metrics-search results all use it.
func (c ScorerConfig) MetricKey() string {
	if c.Name != nil && *c.Name != "" {
		return *c.Name
	}
	return c.ID
}

// RollUpConfig lists how a metric is rolled up: all numeric methods or all categorical.
type RollUpConfig struct {
	RollUpMethods []string `json:"roll_up_methods"`
}

// ScorerVersionRecord is the version a scorer config pins (§2.8).
type ScorerVersionRecord struct {
	ID               string                  `json:"id"`
	Version          int64                   `json:"version"`
	ScorerID         string                  `json:"scorer_id"`
	GeneratedScorer  *GeneratedScorerRecord  `json:"generated_scorer"`
	RegisteredScorer *RegisteredScorerRecord `json:"registered_scorer"`
	FinetunedScorer  *FinetunedScorerRecord  `json:"finetuned_scorer"`
	ModelName        *string                 `json:"model_name"`
	NumJudges        *int64                  `json:"num_judges"`
	CotEnabled       *bool                   `json:"cot_enabled"`
}

// GeneratedScorerRecord is an LLM-generated scorer of a pinned version.
type GeneratedScorerRecord struct {
	ID                string             `json:"id"`
	Name              string             `json:"name"`
	Instructions      *string            `json:"instructions"`
	ChainPollTemplate *ChainPollTemplate `json:"chain_poll_template"`
	UserPrompt        *string            `json:"user_prompt"`
}

// RegisteredScorerRecord is a registered (code) scorer of a pinned version.
type RegisteredScorerRecord struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	ScoreType *string `json:"score_type"`
}

// FinetunedScorerRecord is a fine-tuned scorer of a pinned version.
type FinetunedScorerRecord struct {
	ID                 string                `json:"id"`
	Name               string                `json:"name"`
	LoraTaskID         int64                 `json:"lora_task_id"`
	Prompt             string                `json:"prompt"`
	CreatedBy          *string               `json:"created_by"`
	LoraWeightsPath    *string               `json:"lora_weights_path"`
	LunaInputType      *string               `json:"luna_input_type"`
	LunaOutputType     *string               `json:"luna_output_type"`
	ClassNameToVocabIx map[string]VocabIndex `json:"class_name_to_vocab_ix"`
	Executor           *string               `json:"executor"`
}

// VocabIndex is one value of class_name_to_vocab_ix: an integer, or (Set non-nil) an array
// of distinct integers.
type VocabIndex struct {
	One int64
	Set []int64
}

func (v VocabIndex) MarshalJSON() ([]byte, error) {
	if v.Set != nil {
		return json.Marshal(v.Set)
	}
	return json.Marshal(v.One)
}

func (v *VocabIndex) UnmarshalJSON(b []byte) error {
	*v = VocabIndex{}
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		v.Set = []int64{}
		return json.Unmarshal(b, &v.Set)
	}
	return json.Unmarshal(b, &v.One)
}

// ScorersByID reads the organization's scorers among ids, by id, strongly consistently;
// absent ones and other organizations' are left out.
func ScorersByID(ctx context.Context, t Table, orgID string, ids []string) (map[string]Scorer, error) {
	keys := make([]Key, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			keys = append(keys, scorerKey(id))
		}
	}
	items, err := t.BatchGet(ctx, keys, true)
	if err != nil {
		return nil, fmt.Errorf("read scorers: %w", err)
	}
	out := make(map[string]Scorer, len(items))
	for _, it := range items {
		var s Scorer
		if err := Unmarshal(it, &s); err != nil {
			return nil, err
		}
		if s.OrgID == orgID {
			out[s.ID] = s
		}
	}
	return out, nil
}
