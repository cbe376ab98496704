package store

import (
	"context"
	"errors"
	"fmt"
)

// Runs: a run is a log stream or an experiment of a project. Traces, metric settings, the
// column summary and signals configurations belong to a run, named by its id alone.
//
//	record        PK                 SK                     notes
//	experiment    PROJECT#<pid>      EXPERIMENT#<id>        org_id scopes every read; may carry metric settings
//	run summary   RUN#<run id>       SUMMARY                trace counts and per-metric statistics (runs_summary.go)

// Kinds of run.
const (
	RunLogStream  = "log_stream"
	RunExperiment = "experiment"
)

// ExperimentKey is the key of an experiment of a project.
func ExperimentKey(projectID, id string) Key {
	return Key{PK: "PROJECT#" + projectID, SK: "EXPERIMENT#" + id}
}

// ExperimentPartition is the partition holding a project's experiments (sort keys
// "EXPERIMENT#<id>"), with its log streams and other project records.
func ExperimentPartition(projectID string) string { return "PROJECT#" + projectID }

// Run is a log stream or an experiment, as the operations that take either see it.
type Run struct {
	ID        string `json:"id"`
	ProjectID string `json:"project_id"`
	OrgID     string `json:"org_id"`
	Name      string `json:"name"`
	Kind      string `json:"-"` // RunLogStream or RunExperiment
	// CreatedBy is the run's creator; SettingsBy the user who last changed its metric
	// settings (empty before the first change). The run's judges use the provider
	// integrations of SettingsBy, else of CreatedBy (JudgeUser).
	CreatedBy  string `json:"created_by,omitempty"`
	SettingsBy string `json:"settings_by,omitempty"`
	MetricSettings
}

// JudgeUser is the user whose provider integrations the run's judges use.
func (r Run) JudgeUser() string {
	if r.SettingsBy != "" {
		return r.SettingsBy
	}
	return r.CreatedBy
}

// GetRun finds the run id of the project in the organization, a log stream or an
// experiment, with two strongly consistent reads made at once. ErrNotFound when neither
// exists or the run belongs to another organization.
func GetRun(ctx context.Context, t Table, orgID, projectID, id string) (Run, error) {
	keys := []Key{logStreamKey(projectID, id), ExperimentKey(projectID, id)}
	kinds := []string{RunLogStream, RunExperiment}
	type got struct {
		it  Item
		err error
	}
	results := make([]got, len(keys))
	done := make(chan struct{}, len(keys))
	for i, k := range keys {
		go func() {
			it, err := t.Get(ctx, k, true)
			results[i] = got{it, err}
			done <- struct{}{}
		}()
	}
	for range keys {
		<-done
	}
	for i, r := range results {
		if errors.Is(r.err, ErrNotFound) {
			continue
		}
		if r.err != nil {
			return Run{}, fmt.Errorf("get run %s: %w", id, r.err)
		}
		var run Run
		if err := Unmarshal(r.it, &run); err != nil {
			return Run{}, fmt.Errorf("get run %s: %w", id, err)
		}
		if run.OrgID != orgID {
			break
		}
		run.Kind = kinds[i]
		if run.Scorers == nil {
			run.Scorers = []ScorerConfig{}
		}
		return run, nil
	}
	return Run{}, fmt.Errorf("get run %s: %w", id, ErrNotFound)
}
