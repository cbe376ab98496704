package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Projects, log streams with their metric settings, and the column summary of a run.
//
//	record          PK                 SK                            notes
//	project         PROJECT#<id>       META                          org_id scopes every read
//	log stream      PROJECT#<pid>      LOGSTREAM#<id>                holds scorers and segment_filters
//	project name    ORG#<org id>       NAME#PROJECT#<sha256 name>    claims a name within the organization
//	log stream name PROJECT#<pid>      NAME#LOGSTREAM#<sha256 name>  claims a name within the project
//	column summary  RUN#<run id>       COLUMNS                       filled#<column id> = true per column holding a value
//
// Names are claimed by their hash so that a 255-character name of any script stays within
// the 1 KB sort-key limit.

// Entity names of the project records.
const (
	EntityProject       = "project"
	EntityLogStream     = "log_stream"
	EntityColumnSummary = "column_summary"
)

// Project is a project of an organization.
type Project struct {
	ID        string    `json:"id"`
	OrgID     string    `json:"org_id"`
	Name      string    `json:"name"`
	Type      string    `json:"type"` // one of ProjectTypes
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// LogStream is a log stream of a project; it carries the run's metric settings.
type LogStream struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"project_id"`
	OrgID     string    `json:"org_id"`
	Name      string    `json:"name"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	MetricSettings
}

// MetricSettings are the scorers and segment filters of a run (§2.8). Each is its own
// attribute of the log stream, so a PATCH of one never overwrites a concurrent PATCH of the
// other.
type MetricSettings struct {
	Scorers        []ScorerConfig  `json:"scorers"`
	SegmentFilters []SegmentFilter `json:"segment_filters"` // nil: never set (JSON null)
	// JudgeBudget is the optional daily judge budget (beyond the specification, budget.go);
	// nil: unlimited.
	JudgeBudget *JudgeBudget `json:"judge_budget,omitempty"`
}

// SegmentFilter samples the data a run's scorers see (§2.9).
type SegmentFilter struct {
	Filter            *ScorerFilter `json:"filter"`
	SampleRate        float64       `json:"sample_rate"`
	LLMScorers        bool          `json:"llm_scorers"`
	MultimodalScorers bool          `json:"multimodal_scorers"`
}

// Scorer filter kinds, the values of ScorerFilter.Name.
const (
	FilterNodeName = "node_name"
	FilterMetadata = "metadata"
	FilterModality = "modality"
)

// ScorerFilter is one filter of §2.9; Name says which kind, and only that kind's fields are
// written out.
type ScorerFilter struct {
	Name          string
	Operator      string
	Key           string // metadata
	Value         FilterValue
	CaseSensitive bool // node_name
}

type nodeNameFilter struct {
	Name          string      `json:"name"`
	Operator      string      `json:"operator"`
	Value         FilterValue `json:"value"`
	CaseSensitive bool        `json:"case_sensitive"`
}

type metadataFilter struct {
	Name     string      `json:"name"`
	Operator string      `json:"operator"`
	Key      string      `json:"key"`
	Value    FilterValue `json:"value"`
}

type modalityFilter struct {
	Name     string      `json:"name"`
	Operator string      `json:"operator"`
	Value    FilterValue `json:"value"`
}

func (f ScorerFilter) MarshalJSON() ([]byte, error) {
	switch f.Name {
	case FilterNodeName:
		return json.Marshal(nodeNameFilter{f.Name, f.Operator, f.Value, f.CaseSensitive})
	case FilterMetadata:
		return json.Marshal(metadataFilter{f.Name, f.Operator, f.Key, f.Value})
	}
	return json.Marshal(modalityFilter{f.Name, f.Operator, f.Value})
}

func (f *ScorerFilter) UnmarshalJSON(b []byte) error {
	var all struct {
		nodeNameFilter
		Key string `json:"key"`
	}
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	*f = ScorerFilter{Name: all.Name, Operator: all.Operator, Key: all.Key, Value: all.Value, CaseSensitive: all.CaseSensitive}
	return nil
}

// FilterValue is a filter's value: one string, or (List true) a list of strings.
type FilterValue struct {
	Values []string
	List   bool
}

func (v FilterValue) MarshalJSON() ([]byte, error) {
	if v.List {
		if v.Values == nil {
			return []byte("[]"), nil
		}
		return json.Marshal(v.Values)
	}
	if len(v.Values) == 0 {
		return json.Marshal("")
	}
	return json.Marshal(v.Values[0])
}

func (v *FilterValue) UnmarshalJSON(b []byte) error {
	*v = FilterValue{}
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		v.List = true
		return json.Unmarshal(b, &v.Values)
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v.Values = []string{s}
	return nil
}

func projectKey(id string) Key { return Key{PK: "PROJECT#" + id, SK: "META"} }

func logStreamKey(projectID, id string) Key {
	return Key{PK: "PROJECT#" + projectID, SK: "LOGSTREAM#" + id}
}

func columnSummaryKey(runID string) Key { return Key{PK: "RUN#" + runID, SK: "COLUMNS"} }

// nameClaim is the item that reserves name for one record of a kind within a scope.
func nameClaim(scope, kind, name string, owner Key) Item {
	sum := sha256.Sum256([]byte(name))
	return Item{
		AttrPK: scope, AttrSK: "NAME#" + kind + "#" + hex.EncodeToString(sum[:]),
		AttrEntity: EntityNameClaim, "name": name, "owner_pk": owner.PK, "owner_sk": owner.SK,
	}
}

// getOwned reads the record at k into v strongly consistently and hides another
// organization's record as ErrNotFound.
func getOwned(ctx context.Context, t Table, k Key, orgID string, v any, org func() string) error {
	if err := getRecord(ctx, t, k, true, v); err != nil {
		return err
	}
	if org() != orgID {
		return ErrNotFound
	}
	return nil
}

// create puts a record and its name claim in one transaction; ErrNameTaken when the claim
// exists. extra actions (checks) join the same transaction.
func create(ctx context.Context, t Table, it Item, claim Item, extra ...Op) error {
	ops := append([]Op{PutOp(it, NotExists()), PutOp(claim, NotExists())}, extra...)
	err := t.Transact(ctx, ops)
	var tx *TxCanceledError
	if errors.As(err, &tx) {
		switch tx.Failed() {
		case 1:
			return ErrNameTaken
		case 2:
			return ErrNotFound
		}
	}
	return err
}

// CreateProject stores a new project; ErrNameTaken when the organization has one of that name.
func CreateProject(ctx context.Context, t Table, p Project) error {
	it, err := Marshal(p)
	if err != nil {
		return err
	}
	k := projectKey(p.ID)
	it = it.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntityProject)
	if err := create(ctx, t, it, nameClaim("ORG#"+p.OrgID, "PROJECT", p.Name, k)); err != nil {
		return fmt.Errorf("create project %q: %w", p.Name, err)
	}
	return nil
}

// GetProject reads a project of the organization; ErrNotFound when it does not exist or
// belongs to another organization.
func GetProject(ctx context.Context, t Table, orgID, id string) (Project, error) {
	var p Project
	if err := getOwned(ctx, t, projectKey(id), orgID, &p, func() string { return p.OrgID }); err != nil {
		return Project{}, fmt.Errorf("get project %s: %w", id, err)
	}
	if p.Type == "" {
		p.Type = DefaultProjectType
	}
	return p, nil
}

// CreateLogStream stores a new log stream with empty metric settings. ErrNameTaken when the
// project has one of that name; ErrNotFound when the project is gone.
func CreateLogStream(ctx context.Context, t Table, ls LogStream) error {
	ls.Scorers, ls.SegmentFilters = []ScorerConfig{}, nil
	it, err := Marshal(ls)
	if err != nil {
		return err
	}
	k := logStreamKey(ls.ProjectID, ls.ID)
	it = it.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntityLogStream)
	claim := nameClaim(k.PK, "LOGSTREAM", ls.Name, k)
	if err := create(ctx, t, it, claim, CheckOp(projectKey(ls.ProjectID), Exists())); err != nil {
		return fmt.Errorf("create log stream %q: %w", ls.Name, err)
	}
	return nil
}

// GetLogStream reads a log stream of the project and organization; ErrNotFound otherwise.
func GetLogStream(ctx context.Context, t Table, orgID, projectID, id string) (LogStream, error) {
	var ls LogStream
	if err := getOwned(ctx, t, logStreamKey(projectID, id), orgID, &ls, func() string { return ls.OrgID }); err != nil {
		return LogStream{}, fmt.Errorf("get log stream %s: %w", id, err)
	}
	return ls, nil
}

// SetMetricSettings replaces the parts of a log stream's settings that are not nil and
// returns the settings as stored afterwards. ErrNotFound when the log stream is gone.
func SetMetricSettings(ctx context.Context, t Table, ls LogStream, scorers *[]ScorerConfig, segments *[]SegmentFilter, now time.Time) (MetricSettings, error) {
	return SetMetricSettingsBy(ctx, t, ls, "", scorers, segments, now)
}

// SetMetricSettingsBy is SetMetricSettings by user by (when not empty): the run's judges
// then use by's provider integrations (Run.SettingsBy).
func SetMetricSettingsBy(ctx context.Context, t Table, ls LogStream, by string, scorers *[]ScorerConfig, segments *[]SegmentFilter, now time.Time) (MetricSettings, error) {
	return ChangeMetricSettings(ctx, t, ls, by, SettingsChange{Scorers: scorers, Segments: segments}, now)
}

// SettingsChange is a change of a log stream's metric settings: a nil part is left as it is.
type SettingsChange struct {
	Scorers  *[]ScorerConfig
	Segments *[]SegmentFilter
	Budget   **JudgeBudget // *Budget nil: the budget is removed (unlimited)
}

// ChangeMetricSettings applies c by user by (when not empty) in one conditional update and
// returns the settings as stored afterwards.
func ChangeMetricSettings(ctx context.Context, t Table, ls LogStream, by string, c SettingsChange, now time.Time) (MetricSettings, error) {
	s, err := changeSettings(ctx, t, logStreamKey(ls.ProjectID, ls.ID), by, c, now)
	if err != nil {
		return MetricSettings{}, fmt.Errorf("set metric settings of log stream %s: %w", ls.ID, err)
	}
	return s, nil
}

// ChangeRunSettings is ChangeMetricSettings for a run of either kind (GetRun): a log
// stream's and an experiment's settings are the same attributes of their records, which the
// judges read the same way.
func ChangeRunSettings(ctx context.Context, t Table, r Run, by string, c SettingsChange, now time.Time) (MetricSettings, error) {
	k := logStreamKey(r.ProjectID, r.ID)
	if r.Kind == RunExperiment {
		k = ExperimentKey(r.ProjectID, r.ID)
	}
	s, err := changeSettings(ctx, t, k, by, c, now)
	if err != nil {
		return MetricSettings{}, fmt.Errorf("set metric settings of run %s: %w", r.ID, err)
	}
	return s, nil
}

// changeSettings applies c to the record at k, which must exist (ErrNotFound otherwise).
func changeSettings(ctx context.Context, t Table, k Key, by string, c SettingsChange, now time.Time) (MetricSettings, error) {
	var patch struct {
		Scorers        *[]ScorerConfig  `json:"scorers,omitempty"`
		SegmentFilters *[]SegmentFilter `json:"segment_filters,omitempty"`
		JudgeBudget    *JudgeBudget     `json:"judge_budget,omitempty"`
		SettingsBy     string           `json:"settings_by,omitempty"`
		UpdatedAt      time.Time        `json:"updated_at"`
	}
	patch.Scorers, patch.SegmentFilters, patch.SettingsBy, patch.UpdatedAt = c.Scorers, c.Segments, by, now
	var remove []string
	if c.Budget != nil {
		patch.JudgeBudget = *c.Budget
		if *c.Budget == nil {
			remove = []string{"judge_budget"}
		}
	}
	set, err := Marshal(patch)
	if err != nil {
		return MetricSettings{}, err
	}
	it, err := t.Update(ctx, Update{Key: k, Set: set, Remove: remove, Conds: []Cond{Exists()}})
	if errors.Is(err, ErrConditionFailed) {
		err = ErrNotFound
	}
	if err != nil {
		return MetricSettings{}, err
	}
	var after MetricSettings
	if err := Unmarshal(it, &after); err != nil {
		return MetricSettings{}, err
	}
	return after, nil
}

// filledPrefix starts the attribute that marks a column of a run as holding a value.
const filledPrefix = "filled#"

// MarkColumnsFilled records that the run holds a value in each of the columns. Writers of
// traces call it; it is idempotent and needs no read, so concurrent writers never conflict.
func MarkColumnsFilled(ctx context.Context, t Table, runID string, columnIDs ...string) error {
	if len(columnIDs) == 0 {
		return nil
	}
	set := map[string]any{AttrEntity: EntityColumnSummary, "run_id": runID}
	for _, id := range columnIDs {
		set[filledPrefix+id] = true
	}
	if _, err := t.Update(ctx, Update{Key: columnSummaryKey(runID), Set: set}); err != nil {
		return fmt.Errorf("mark columns of run %s: %w", runID, err)
	}
	return nil
}

// FilledColumns returns the ids of the columns in which the run holds a value; none when no
// trace was written yet.
func FilledColumns(ctx context.Context, t Table, runID string) (map[string]bool, error) {
	it, err := t.Get(ctx, columnSummaryKey(runID), false)
	if errors.Is(err, ErrNotFound) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read columns of run %s: %w", runID, err)
	}
	out := make(map[string]bool, len(it))
	for name, v := range it {
		if id, ok := strings.CutPrefix(name, filledPrefix); ok && v == true {
			out[id] = true
		}
	}
	return out, nil
}
