package store

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Experiments of a project (the run kind RunExperiment of runs.go).
//
//	record           PK               SK                             notes
//	experiment       PROJECT#<pid>    EXPERIMENT#<id>                org_id scopes every read; metric settings as a log stream's
//	experiment name  PROJECT#<pid>    NAME#EXPERIMENT#<sha256 name>  claims a name within the project
//
// An experiment's counts and metric statistics are not on its record: the writers of traces
// keep them in the run summary (runs.go), so that listing experiments never reads traces.

// EntityExperiment names the experiment records.
const EntityExperiment = "experiment"

// Experiment is an experiment of a project, as created; what its traces add lives in the run
// summary. Optional parts are nil when they were not given.
type Experiment struct {
	ID                string                `json:"id"`
	ProjectID         string                `json:"project_id"`
	OrgID             string                `json:"org_id"`
	Name              string                `json:"name"`
	TaskType          int64                 `json:"task_type"`
	CreatedBy         string                `json:"created_by"`
	CreatedAt         time.Time             `json:"created_at"`
	UpdatedAt         time.Time             `json:"updated_at"`
	Dataset           *ExperimentDataset    `json:"dataset"`
	Prompt            *ExperimentPrompt     `json:"prompt"`
	PromptRunSettings map[string]any        `json:"prompt_run_settings"`
	PromptModel       *string               `json:"prompt_model"`
	Playground        *ExperimentPlayground `json:"playground"`
	Tags              map[string]string     `json:"tags"`
	Group             *ExperimentGroup      `json:"experiment_group"`
	// What the original's clients send besides the specification's fields, kept as sent.
	PromptTemplateVersionID *string `json:"prompt_template_version_id,omitempty"`
	PlaygroundPromptID      *string `json:"playground_prompt_id,omitempty"`
	Trigger                 bool    `json:"trigger,omitempty"`
	// PromptMessages are the prompt the experiment runs (a template version's or inline),
	// resolved at creation; JobID names its latest job (set with the job, experiment_jobs.go).
	PromptMessages []PromptMessage `json:"prompt_messages,omitempty"`
	JobID          string          `json:"job_id,omitempty"`
	MetricSettings
}

// ExperimentDataset names the dataset version an experiment ran on.
type ExperimentDataset struct {
	DatasetID    string `json:"dataset_id"`
	VersionIndex int64  `json:"version_index"`
	Name         string `json:"name"`
}

// ExperimentPrompt names the prompt template version an experiment ran.
type ExperimentPrompt struct {
	PromptTemplateID string `json:"prompt_template_id"`
	VersionIndex     int64  `json:"version_index"`
	Name             string `json:"name"`
	Content          string `json:"content"`
}

// ExperimentPlayground names the playground an experiment came from.
type ExperimentPlayground struct {
	PlaygroundID string `json:"playground_id"`
	Name         string `json:"name"`
}

// ExperimentGroup is the group an experiment belongs to.
type ExperimentGroup struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	IsSystem bool   `json:"is_system"`
}

// CreateExperiment stores a new experiment with its name claim, in one transaction that also
// checks that the project exists. ErrNameTaken when the project has an experiment of that
// name; ErrNotFound when the project is gone.
func CreateExperiment(ctx context.Context, t Table, e Experiment) error {
	if e.Scorers == nil {
		e.Scorers = []ScorerConfig{}
	}
	it, err := Marshal(e)
	if err != nil {
		return err
	}
	k := ExperimentKey(e.ProjectID, e.ID)
	it = it.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntityExperiment)
	claim := nameClaim(k.PK, "EXPERIMENT", e.Name, k)
	if err := create(ctx, t, it, claim, CheckOp(projectKey(e.ProjectID), Exists())); err != nil {
		return fmt.Errorf("create experiment %q: %w", e.Name, err)
	}
	return nil
}

// GetExperiment reads an experiment of the project and organization; ErrNotFound otherwise.
func GetExperiment(ctx context.Context, t Table, orgID, projectID, id string) (Experiment, error) {
	var e Experiment
	if err := getOwned(ctx, t, ExperimentKey(projectID, id), orgID, &e, func() string { return e.OrgID }); err != nil {
		return Experiment{}, fmt.Errorf("get experiment %s: %w", id, err)
	}
	return e, nil
}

// ListExperiments reads every experiment of the project in the organization, newest first
// (ties by id, descending). It is one query of the project partition's EXPERIMENT# range,
// followed page by page: one round trip per megabyte of experiments.
func ListExperiments(ctx context.Context, t Table, orgID, projectID string) ([]Experiment, error) {
	q := Query{PK: ExperimentPartition(projectID), SKOp: SKPrefix, From: "EXPERIMENT#"}
	var out []Experiment
	for {
		page, err := t.Query(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("list experiments of project %s: %w", projectID, err)
		}
		for _, it := range page.Items {
			var e Experiment
			if err := Unmarshal(it, &e); err != nil {
				return nil, fmt.Errorf("list experiments of project %s: %w", projectID, err)
			}
			if e.OrgID != orgID {
				continue
			}
			if e.Scorers == nil {
				e.Scorers = []ScorerConfig{}
			}
			out = append(out, e)
		}
		if page.Next == nil {
			break
		}
		q.Start = page.Next
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// RunTag is one tag of a run as the original's clients read it (their RunTagDB).
type RunTag struct {
	Key       string    `json:"key"`
	Value     string    `json:"value"`
	TagType   string    `json:"tag_type"`
	ProjectID string    `json:"project_id"`
	RunID     string    `json:"run_id"`
	CreatedBy string    `json:"created_by"`
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// RunTags expands a run's tags (key to value) into tag records, by key: each is a generic
// tag with the run's creator and times and an id derived from the run and the key, so that
// every read shows the same id.
func RunTags(projectID, runID, createdBy string, created, updated time.Time, tags map[string]string) []RunTag {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]RunTag, len(keys))
	for i, k := range keys {
		out[i] = RunTag{Key: k, Value: tags[k], TagType: "generic", ProjectID: projectID, RunID: runID,
			CreatedBy: createdBy, ID: DerivedID(runID, "tag", k), CreatedAt: created, UpdatedAt: updated}
	}
	return out
}

// DerivedID is a UUID (version 4 layout) derived from parts: the same parts always give the
// same id, for records the service shows but does not store on their own.
func DerivedID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// SetExperimentRun replaces what e runs — its dataset, prompt, run settings and scorers —
// with e's, on condition that the experiment exists (ErrConditionFailed when it is gone).
// POST /jobs sets them with the job instead (CreateExperimentJobSettingRun), so that a
// start refused leaves them as they were.
func SetExperimentRun(ctx context.Context, t Table, e Experiment) error {
	set, err := runFields(e)
	if err != nil {
		return err
	}
	if _, err := t.Update(ctx, Update{Key: ExperimentKey(e.ProjectID, e.ID), Set: set, Conds: []Cond{Exists()}}); err != nil {
		return fmt.Errorf("set the run of experiment %s: %w", e.ID, err)
	}
	return nil
}

// runFields are the attributes of what e runs, with its updated_at, as stored.
func runFields(e Experiment) (map[string]any, error) {
	if e.Scorers == nil {
		e.Scorers = []ScorerConfig{}
	}
	it, err := Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("the run of experiment %s: %w", e.ID, err)
	}
	set := map[string]any{}
	for _, k := range []string{"dataset", "prompt", "prompt_run_settings", "prompt_template_version_id", "prompt_messages", "scorers", "updated_at"} {
		if v, ok := it[k]; ok {
			set[k] = v
		}
	}
	return set, nil
}
