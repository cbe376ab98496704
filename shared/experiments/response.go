package experiments

import (
	"time"

	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/store"
)

// experimentResponse is ExperimentResponse (§2.12). Every field is present; a pointer or map
// that is nil is JSON null where the original's field is nullable.
type experimentResponse struct {
	ID                         string                      `json:"id"`
	ProjectID                  string                      `json:"project_id"`
	TaskType                   int64                       `json:"task_type"`
	CreatedAt                  time.Time                   `json:"created_at"`
	UpdatedAt                  *time.Time                  `json:"updated_at"`
	Name                       string                      `json:"name"`
	CreatedBy                  *string                     `json:"created_by"`
	CreatedByUser              *userInfo                   `json:"created_by_user"`
	NumSpans                   *int64                      `json:"num_spans"`
	NumTraces                  *int64                      `json:"num_traces"`
	NumSessions                *int64                      `json:"num_sessions"`
	Dataset                    *store.ExperimentDataset    `json:"dataset"`
	AggregateMetrics           map[string]any              `json:"aggregate_metrics"`
	StructuredAggregateMetrics map[string]metricAggregates `json:"structured_aggregate_metrics"`
	AggregateFeedback          map[string]any              `json:"aggregate_feedback"`
	RatingAggregates           map[string]any              `json:"rating_aggregates"`
	RankingScore               *float64                    `json:"ranking_score"`
	Rank                       *int64                      `json:"rank"`
	Winner                     *bool                       `json:"winner"`
	PlaygroundID               *string                     `json:"playground_id"`
	Playground                 *store.ExperimentPlayground `json:"playground"`
	PromptRunSettings          *runSettings                `json:"prompt_run_settings"`
	PromptModel                *string                     `json:"prompt_model"`
	Prompt                     *store.ExperimentPrompt     `json:"prompt"`
	Tags                       map[string][]store.RunTag   `json:"tags"`
	Status                     experimentStatus            `json:"status"`
	ExperimentGroupID          *string                     `json:"experiment_group_id"`
	ExperimentGroupName        *string                     `json:"experiment_group_name"`
	ExperimentGroupIsSystem    *bool                       `json:"experiment_group_is_system"`
	// Kept as the original's clients sent them at creation.
	PromptTemplateVersionID *string `json:"prompt_template_version_id"`
	PlaygroundPromptID      *string `json:"playground_prompt_id"`
	Trigger                 bool    `json:"trigger"`
	// JobID names the experiment's latest job (GET .../jobs/{job_id}); null when it never ran.
	JobID *string `json:"job_id"`
}

// userInfo is UserInfo: the creator of a record.
type userInfo struct {
	ID        string  `json:"id"`
	Email     string  `json:"email"`
	FirstName *string `json:"first_name"`
	LastName  *string `json:"last_name"`
}

// metricAggregates is MetricAggregates: the statistics of one metric over the experiment's
// traces. Average, min, max and sum are null for a categorical metric.
type metricAggregates struct {
	Average *float64 `json:"average"`
	Min     *float64 `json:"min"`
	Max     *float64 `json:"max"`
	Sum     *float64 `json:"sum"`
	Count   int64    `json:"count"`
}

type experimentStatus struct {
	LogGeneration logGeneration `json:"log_generation"`
}

type logGeneration struct {
	ProgressPercent int64 `json:"progress_percent"`
}

// runSettings is PromptRunSettings: the fields that were set. A field that was not is
// left out where the original's clients take no null (they apply their default), and is
// null where they do.
type runSettings struct {
	Logprobs         *bool          `json:"logprobs,omitempty"`
	TopLogprobs      *int64         `json:"top_logprobs,omitempty"`
	Echo             *bool          `json:"echo,omitempty"`
	N                *int64         `json:"n,omitempty"`
	ReasoningEffort  *string        `json:"reasoning_effort,omitempty"`
	Verbosity        *string        `json:"verbosity,omitempty"`
	DeploymentName   *string        `json:"deployment_name"`
	ModelAlias       *string        `json:"model_alias,omitempty"`
	Temperature      *float64       `json:"temperature"`
	MaxTokens        *int64         `json:"max_tokens,omitempty"`
	StopSequences    []string       `json:"stop_sequences"`
	TopP             *float64       `json:"top_p,omitempty"`
	TopK             *int64         `json:"top_k,omitempty"`
	FrequencyPenalty *float64       `json:"frequency_penalty,omitempty"`
	PresencePenalty  *float64       `json:"presence_penalty,omitempty"`
	Tools            *string        `json:"tools"`
	ToolChoice       *string        `json:"tool_choice"`
	ResponseFormat   map[string]any `json:"response_format"`
}

// rankResult is an experiment's place among the project's experiments (rank.go).
type rankResult struct {
	score  *float64
	rank   *int64
	winner *bool
}

// experimentOut builds the list entry of e from its summary (the zero summary when it has no
// trace yet), its creator (nil when unknown) and its rank. Counts are filled only when
// withCounts.
func experimentOut(e store.Experiment, sum store.RunSummary, creator *store.User, r rankResult, withCounts bool, job *store.ExperimentJob) experimentResponse {
	updated := e.UpdatedAt
	out := experimentResponse{
		ID: e.ID, ProjectID: e.ProjectID, TaskType: e.TaskType, CreatedAt: e.CreatedAt, UpdatedAt: &updated,
		Name: e.Name, CreatedBy: strPtr(e.CreatedBy), Dataset: e.Dataset, Playground: e.Playground,
		PromptModel: promptModel(e), Prompt: e.Prompt, PromptRunSettings: runSettingsOut(e.PromptRunSettings),
		AggregateMetrics: map[string]any{}, StructuredAggregateMetrics: map[string]metricAggregates{},
		AggregateFeedback: map[string]any{}, RatingAggregates: map[string]any{},
		RankingScore: r.score, Rank: r.rank, Winner: r.winner, Tags: tagsOut(e),
		PromptTemplateVersionID: e.PromptTemplateVersionID, PlaygroundPromptID: e.PlaygroundPromptID, Trigger: e.Trigger,
		JobID: strPtr(e.JobID),
	}
	if creator != nil {
		out.CreatedByUser = &userInfo{ID: creator.ID, Email: creator.Email,
			FirstName: strPtr(creator.FirstName), LastName: strPtr(creator.LastName)}
	}
	if withCounts {
		out.NumSpans, out.NumTraces, out.NumSessions = &sum.NumSpans, &sum.NumTraces, &sum.NumSessions
	}
	if e.Playground != nil {
		out.PlaygroundID = &e.Playground.PlaygroundID
	}
	if e.Group != nil {
		out.ExperimentGroupID, out.ExperimentGroupName = &e.Group.ID, strPtr(e.Group.Name)
		out.ExperimentGroupIsSystem = &e.Group.IsSystem
	}
	for name, st := range sum.Metrics {
		agg := aggregatesOf(st)
		out.StructuredAggregateMetrics[name] = agg
		if agg.Average != nil {
			out.AggregateMetrics[name] = *agg.Average
		}
	}
	// An experiment that ran a job is as far as its job's counters; one whose traces its
	// client sent is done once the first trace is in.
	switch {
	case job != nil:
		out.Status.LogGeneration.ProgressPercent = exprun.Progress(*job)
	case sum.NumTraces > 0:
		out.Status.LogGeneration.ProgressPercent = 100
	}
	return out
}

// aggregatesOf turns a metric's folded statistics into MetricAggregates.
func aggregatesOf(st store.MetricStats) metricAggregates {
	agg := metricAggregates{Count: st.Count}
	if st.Min == nil || st.Max == nil { // categorical only: no numeric statistics
		return booleanAggregates(st, agg)
	}
	lo, hi, sum := st.Min.Float64(), st.Max.Float64(), st.Sum.Float64()
	agg.Min, agg.Max, agg.Sum = &lo, &hi, &sum
	numeric := st.Count
	for _, n := range st.Categories {
		numeric -= n
	}
	if numeric > 0 {
		avg := st.Sum.Quo(numeric)
		agg.Average = &avg
	}
	return agg
}

// booleanAggregates are a boolean scorer's statistics, its values read as 1 and 0 (the
// average is the share of true): those of a metric whose only categories are true and
// false; other categorical metrics have none.
func booleanAggregates(st store.MetricStats, agg metricAggregates) metricAggregates {
	trues, falses := st.Categories["true"], st.Categories["false"]
	if len(st.Categories) == 0 || trues+falses != st.Count || st.Count == 0 {
		return agg
	}
	sum, avg := float64(trues), float64(trues)/float64(st.Count)
	lo, hi := 1.0, 0.0
	if falses > 0 {
		lo = 0
	}
	if trues > 0 {
		hi = 1
	}
	agg.Sum, agg.Average, agg.Min, agg.Max = &sum, &avg, &lo, &hi
	return agg
}

// tagsOut shows the experiment's tags as the original's clients read them: by key, the
// list of that key's tag records.
func tagsOut(e store.Experiment) map[string][]store.RunTag {
	out := make(map[string][]store.RunTag, len(e.Tags))
	for _, t := range store.RunTags(e.ProjectID, e.ID, e.CreatedBy, e.CreatedAt, e.UpdatedAt, e.Tags) {
		out[t.Key] = append(out[t.Key], t)
	}
	return out
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// promptModel is the experiment's model as its responses show it: prompt_model, else the run
// settings' model_alias, where the original's clients name it (exprun.PromptModel, the model
// its rows run with); nil when neither names one.
func promptModel(e store.Experiment) *string {
	if m := exprun.PromptModel(e); m != "" {
		return &m
	}
	return nil
}
