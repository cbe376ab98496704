package experiments

import (
	"context"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// The example project the sample events under events/experiments and events/signals are
// written against: a project with one log stream and one experiment, owned by the given
// user. Their ids are fixed so that an event can name them.
const (
	ExampleProjectID    = "6b1f0c9e-3d2a-4e5b-9c8d-7a6f5e4d3c2b"
	ExampleLogStreamID  = "8c2d1e0f-4a3b-4c5d-8e9f-0a1b2c3d4e5f"
	ExampleExperimentID = "9d3e2f1a-5b4c-4d6e-9f0a-1b2c3d4e5f60"
	// A prompt template (version 0) and two experiments that run it on the example dataset:
	// the first with a finished job (two rows done, one failed), the second never started.
	ExampleTemplateID        = "5e4f3a2b-6c5d-4e7f-8a9b-0c1d2e3f4a5b"
	ExampleTemplateVersionID = "6f5a4b3c-7d6e-4f8a-9b0c-1d2e3f4a5b6c"
	ExampleRunExperimentID   = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c51"
	ExampleRunExperiment2ID  = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c52"
	ExampleJobID             = "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d61"
	// A template of the organization (no project), for the global template routes.
	ExampleOrgTemplateID        = "7a6b5c4d-8e9f-4a0b-9c1d-2e3f4a5b6c7d"
	ExampleOrgTemplateVersionID = "8b7c6d5e-9f0a-4b1c-8d2e-3f4a5b6c7d8e"
	// exampleDatasetID is shared/datasets' example dataset (input, output; three rows),
	// seeded before this one.
	exampleDatasetID = "3f0c2a8e-5b7d-4c1e-9a6f-2d8b7e4c1a90"
)

// SeedExample writes the example project, log stream and experiment into organization orgID
// for user userID: what the event runner's fixture calls after creating its organization.
func SeedExample(ctx context.Context, t store.Table, orgID, userID string, now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	p := store.Project{ID: ExampleProjectID, OrgID: orgID, Name: "fixture-project", CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateProject(ctx, t, p); err != nil {
		return fmt.Errorf("example project: %w", err)
	}
	ls := store.LogStream{ID: ExampleLogStreamID, ProjectID: p.ID, OrgID: orgID, Name: "fixture-stream",
		CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateLogStream(ctx, t, ls); err != nil {
		return fmt.Errorf("example project: %w", err)
	}
	e := store.Experiment{ID: ExampleExperimentID, ProjectID: p.ID, OrgID: orgID, Name: "fixture-experiment",
		TaskType: DefaultTaskType, CreatedBy: userID, CreatedAt: now, UpdatedAt: now,
		Tags: map[string]string{"suite": "fixture"}}
	if err := store.CreateExperiment(ctx, t, e); err != nil {
		return fmt.Errorf("example project: %w", err)
	}
	return seedRuns(ctx, t, orgID, userID, now)
}

// seedRuns writes the example template, the two experiments on it and the finished job.
func seedRuns(ctx context.Context, t store.Table, orgID, userID string, now time.Time) error {
	msgs := []any{map[string]any{"role": "system", "content": "Answer briefly."}, map[string]any{"role": "user", "content": "{{input}}"}}
	p := store.PromptTemplate{ID: ExampleTemplateID, ProjectID: ExampleProjectID, OrgID: orgID, Name: "fixture-template",
		CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	v := store.PromptTemplateVersion{ID: ExampleTemplateVersionID, Template: msgs, Settings: map[string]any{"temperature": 0.2},
		CreatedBy: userID, CreatedAt: now}
	if _, _, err := store.CreatePromptTemplate(ctx, t, p, v); err != nil {
		return fmt.Errorf("example template: %w", err)
	}
	org := store.PromptTemplate{ID: ExampleOrgTemplateID, OrgID: orgID, Name: "fixture-org-template",
		CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	ov := store.PromptTemplateVersion{ID: ExampleOrgTemplateVersionID, Template: "Summarize: {{input}}", CreatedBy: userID, CreatedAt: now}
	if _, _, err := store.CreatePromptTemplate(ctx, t, org, ov); err != nil {
		return fmt.Errorf("example template: %w", err)
	}
	model := "gpt-4o-mini"
	for _, ex := range []struct{ id, name string }{{ExampleRunExperimentID, "fixture-run-a"}, {ExampleRunExperiment2ID, "fixture-run-b"}} {
		e := store.Experiment{ID: ex.id, ProjectID: ExampleProjectID, OrgID: orgID, Name: ex.name, TaskType: DefaultTaskType,
			CreatedBy: userID, CreatedAt: now, UpdatedAt: now, PromptModel: &model, PromptRunSettings: v.Settings,
			Dataset:        &store.ExperimentDataset{DatasetID: exampleDatasetID, Name: "fixture-qa"},
			Prompt:         &store.ExperimentPrompt{PromptTemplateID: p.ID, Name: p.Name, Content: templateText(msgs)},
			PromptMessages: PromptMessages(msgs), PromptTemplateVersionID: &v.ID}
		if err := store.CreateExperiment(ctx, t, e); err != nil {
			return fmt.Errorf("example experiment: %w", err)
		}
	}
	j := store.ExperimentJob{ID: ExampleJobID, OrgID: orgID, ProjectID: ExampleProjectID, ExperimentID: ExampleRunExperimentID,
		CreatedBy: userID, CreatedAt: now, UpdatedAt: now, State: store.JobRunning, Attempt: 1, Total: 3,
		Plan: store.JobPlan{DatasetID: exampleDatasetID, DatasetVersion: 1, Messages: PromptMessages(msgs), Model: model,
			Settings: v.Settings, TokenEstimate: 780, ChunkRows: 20}}
	if err := store.CreateExperimentJob(ctx, t, j, ""); err != nil {
		return fmt.Errorf("example job: %w", err)
	}
	outs := []store.RowOutcome{
		{Row: store.JobRow{Index: 0, State: store.RowDone, TraceID: store.DerivedID(j.ID, "row", "0", "1"), Attempt: 1}, Tokens: 21},
		{Row: store.JobRow{Index: 1, State: store.RowDone, TraceID: store.DerivedID(j.ID, "row", "1", "1"), Attempt: 1}, Tokens: 17},
		{Row: store.JobRow{Index: 2, State: store.RowFailed, TraceID: store.DerivedID(j.ID, "row", "2", "1"), Attempt: 1,
			ErrorType: "rate_limit_error"}},
	}
	if err := store.RecordRowOutcomes(ctx, t, j.ID, outs, now); err != nil {
		return fmt.Errorf("example job: %w", err)
	}
	return store.SetJobState(ctx, t, j.ID, []string{store.JobRunning}, store.JobCompleted, now, nil)
}
