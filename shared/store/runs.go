package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Runs: a run is a log stream or an experiment of a project. Traces, metric settings, the
// column summary and signals configurations belong to a run, named by its id alone.
//
//	record        PK                 SK                     notes
//	experiment    PROJECT#<pid>      EXPERIMENT#<id>        org_id scopes every read; may carry metric settings
//	run summary   RUN#<run id>       SUMMARY                trace counts and per-metric statistics, kept by trace writers

// Kinds of run.
const (
	RunLogStream  = "log_stream"
	RunExperiment = "experiment"
)

// EntityRunSummary names the run summary records.
const EntityRunSummary = "run_summary"

// ExperimentKey is the key of an experiment of a project.
func ExperimentKey(projectID, id string) Key {
	return Key{PK: "PROJECT#" + projectID, SK: "EXPERIMENT#" + id}
}

// ExperimentPartition is the partition holding a project's experiments (sort keys
// "EXPERIMENT#<id>"), with its log streams and other project records.
func ExperimentPartition(projectID string) string { return "PROJECT#" + projectID }

func runSummaryKey(runID string) Key { return Key{PK: "RUN#" + runID, SK: "SUMMARY"} }

// Run is a log stream or an experiment, as the operations that take either see it.
type Run struct {
	ID        string `json:"id"`
	ProjectID string `json:"project_id"`
	OrgID     string `json:"org_id"`
	Name      string `json:"name"`
	Kind      string `json:"-"` // RunLogStream or RunExperiment
	MetricSettings
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

// RunSummary is what a run's list entry shows without reading its traces: counts and
// per-metric statistics, kept current by the writers of traces.
type RunSummary struct {
	RunID       string `json:"run_id"`
	NumTraces   int64  `json:"num_traces"`
	NumSpans    int64  `json:"num_spans"`
	NumSessions int64  `json:"num_sessions"`
	// Metrics is keyed by metric name: the scorer's name for scorer metrics, and
	// "latency_ms", "total_tokens", "total_cost" for the system metrics.
	Metrics   map[string]MetricStats `json:"metrics"`
	UpdatedAt time.Time              `json:"updated_at"`
}

// MetricStats are the statistics of one metric over a run: numeric values fold into
// Count, Sum, Min and Max; categorical values count per category in Categories (Count
// counts them too).
type MetricStats struct {
	Count      int64            `json:"count"`
	Sum        float64          `json:"sum"`
	Min        *float64         `json:"min"`
	Max        *float64         `json:"max"`
	Categories map[string]int64 `json:"categories,omitempty"`
}

// Observe folds one numeric value into s.
func (s *MetricStats) Observe(v float64) {
	s.Count++
	s.Sum += v
	if s.Min == nil || v < *s.Min {
		s.Min = &v
	}
	if s.Max == nil || v > *s.Max {
		s.Max = &v
	}
}

// ObserveCategory folds one categorical value into s.
func (s *MetricStats) ObserveCategory(c string) {
	s.Count++
	if s.Categories == nil {
		s.Categories = map[string]int64{}
	}
	s.Categories[c]++
}

// Merge folds o into s.
func (s *MetricStats) Merge(o MetricStats) {
	s.Count += o.Count
	s.Sum += o.Sum
	if o.Min != nil && (s.Min == nil || *o.Min < *s.Min) {
		m := *o.Min
		s.Min = &m
	}
	if o.Max != nil && (s.Max == nil || *o.Max > *s.Max) {
		m := *o.Max
		s.Max = &m
	}
	for c, n := range o.Categories {
		if s.Categories == nil {
			s.Categories = map[string]int64{}
		}
		s.Categories[c] += n
	}
}

// Merge folds the counts and statistics of o into s.
func (s *RunSummary) Merge(o RunSummary) {
	s.NumTraces += o.NumTraces
	s.NumSpans += o.NumSpans
	s.NumSessions += o.NumSessions
	if len(o.Metrics) > 0 && s.Metrics == nil {
		s.Metrics = map[string]MetricStats{}
	}
	for name, st := range o.Metrics {
		cur := s.Metrics[name]
		cur.Merge(st)
		s.Metrics[name] = cur
	}
}

// maxSummaryAttempts bounds the optimistic retries of AddToRunSummary under contention.
const maxSummaryAttempts = 20

// AddToRunSummary folds delta into the run's summary: a strongly consistent read and a
// write conditioned on the revision read, retried when another writer got in between, so
// concurrent writers lose no update. The caller makes delta once per batch of traces, so a
// retried request must not call it twice for the same traces.
func AddToRunSummary(ctx context.Context, t Table, runID string, delta RunSummary, now time.Time) error {
	k := runSummaryKey(runID)
	for range maxSummaryAttempts {
		cur := RunSummary{RunID: runID}
		var rev int64
		it, err := t.Get(ctx, k, true)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return fmt.Errorf("add to summary of run %s: %w", runID, err)
		default:
			if err := Unmarshal(it, &cur); err != nil {
				return fmt.Errorf("add to summary of run %s: %w", runID, err)
			}
			rev, _ = it["rev"].(int64)
		}
		cur.Merge(delta)
		cur.UpdatedAt = now.UTC()
		next, err := Marshal(cur)
		if err != nil {
			return err
		}
		next = next.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntityRunSummary, "rev", rev+1)
		cond := NotExists()
		if rev > 0 {
			cond = Equals("rev", rev)
		}
		err = t.Put(ctx, next, cond)
		if errors.Is(err, ErrConditionFailed) {
			continue
		}
		if err != nil {
			return fmt.Errorf("add to summary of run %s: %w", runID, err)
		}
		return nil
	}
	return fmt.Errorf("add to summary of run %s: %w", runID, ErrConflict)
}

// GetRunSummaries reads the summaries of the runs with one batch read; a run with no
// trace yet has no entry.
func GetRunSummaries(ctx context.Context, t Table, runIDs []string) (map[string]RunSummary, error) {
	keys := make([]Key, len(runIDs))
	for i, id := range runIDs {
		keys[i] = runSummaryKey(id)
	}
	items, err := t.BatchGet(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("read run summaries: %w", err)
	}
	out := make(map[string]RunSummary, len(items))
	for _, it := range items {
		var s RunSummary
		if err := Unmarshal(it, &s); err != nil {
			return nil, fmt.Errorf("read run summaries: %w", err)
		}
		out[s.RunID] = s
	}
	return out, nil
}
