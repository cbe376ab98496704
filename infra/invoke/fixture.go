package main

import (
	"context"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/datasets"
	"github.com/evalobs/evalapi/shared/experiments"
	"github.com/evalobs/evalapi/shared/integrations"
	"github.com/evalobs/evalapi/shared/scorers"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces"
)

// The fixture that the sample events under events/ are written against: an organization
// with one admin, a second user (FixtureUserID), an empty group (FixtureGroupID), and the examples of the operation groups:
// a dataset shared with a group (shared/datasets), a project with a log stream and an
// experiment (shared/experiments), an llm scorer (shared/scorers), a
// project whose log stream holds traces (shared/traces), a model-vendor
// integration of the admin (shared/integrations) and a signals configuration of the
// experiment. Events authenticate as the admin with HTTP Basic (FixtureAuthorization), one
// of the service's four schemes, because its credentials are fixed while Bootstrap's API key
// is random.
const (
	FixtureEmail    = "fixture-admin@example.com"
	FixturePassword = "fixture-password-0123456789"
	// FixtureAuthorization is the header "authorization" of the events that act as the
	// fixture's admin: Basic base64(FixtureEmail ":" FixturePassword).
	FixtureAuthorization = "Basic Zml4dHVyZS1hZG1pbkBleGFtcGxlLmNvbTpmaXh0dXJlLXBhc3N3b3JkLTAxMjM0NTY3ODk="

	// FixtureUserID is a second user of the organization (role user, invited: no password),
	// whom events share datasets and integrations with and add to groups.
	FixtureUserID    = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e50"
	FixtureUserEmail = "fixture-reviewer@example.com"
	// FixtureGroupID is a group with no members that no dataset is shared with yet.
	FixtureGroupID = "6e8a0c2e-4f6b-4d8a-8c2e-4f6a8c0e2b4d"
	// FixtureAPIKeyID is an API key of the admin that events revoke. Its secret is unknown
	// (the record holds a placeholder digest): it is there to be listed and revoked.
	FixtureAPIKeyID = "3b5d7f9a-1c3e-4a5b-8d7f-9a1c3e5b7d9f"
)

// seed writes the fixture into d's (empty) table.
func seed(ctx context.Context, d app.Deps) error {
	res, err := auth.Bootstrap(ctx, d.Table, auth.BootstrapOptions{
		Secrets:       d.Secrets,
		SecretRef:     d.Config.JWTSecretARN,
		OrgName:       "fixture",
		AdminEmail:    FixtureEmail,
		AdminPassword: FixturePassword,
		Now:           d.Now,
	})
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if !res.Created {
		return fmt.Errorf("seed: the table already has an organization")
	}
	now := d.Now().UTC().Truncate(time.Microsecond)
	user := store.User{ID: FixtureUserID, OrgID: res.OrgID, Email: FixtureUserEmail, FirstName: "Grace",
		LastName: "Hopper", Role: string(auth.RoleUser), State: store.UserInvited, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateUser(ctx, d.Table, user, ""); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	key := store.APIKey{ID: FixtureAPIKeyID, OrgID: res.OrgID, UserID: res.UserID, Description: "fixture: ci",
		Truncated: "evo_3b5d7f9a", CreatedAt: now, UpdatedAt: now}
	if err := store.CreateAPIKey(ctx, d.Table, key, "fixture-placeholder-digest"); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	group := store.Group{ID: FixtureGroupID, OrgID: res.OrgID, Name: "fixture-writers", Visibility: "public",
		CreatedBy: res.UserID, CreatedAt: now}
	if err := store.CreateGroup(ctx, d.Table, group); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	for _, example := range []func(context.Context, store.Table, string, string, time.Time) error{
		datasets.SeedExample, experiments.SeedExample, scorers.SeedExample, traces.SeedExample,
	} {
		if err := example(ctx, d.Table, res.OrgID, res.UserID, now); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	if err := integrations.SeedExample(ctx, d.Table, d.Secrets, res.OrgID, res.UserID, now); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	// The organization's example template is shared with the second user and the group
	// (events/experiments/*_template_user.json, *_template_group.json).
	err = store.AddTemplateCollaborators(ctx, d.Table, []store.TemplateCollaborator{
		{ID: "9c8d7e6f-0a1b-4c2d-8e3f-4a5b6c7d8e9f", TemplateID: experiments.ExampleOrgTemplateID, Kind: store.CollaboratorUser,
			PrincipalID: FixtureUserID, Role: "viewer", CreatedAt: now},
		{ID: "0d9e8f7a-1b2c-4d3e-9f4a-5b6c7d8e9f0a", TemplateID: experiments.ExampleOrgTemplateID, Kind: store.CollaboratorGroup,
			PrincipalID: FixtureGroupID, Role: "viewer", CreatedAt: now},
	})
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	_, err = store.PutSignalsConfig(ctx, d.Table, store.SignalsConfig{ID: "5b7d9f1a-3c5e-4a7b-9d1f-3b5d7f9a1c3e",
		OrgID: res.OrgID, ProjectID: experiments.ExampleProjectID, RunID: experiments.ExampleExperimentID,
		RunKind: store.RunExperiment, RunMode: "ON_DEMAND", Model: "gpt-4o-mini", FocusOn: "refusals",
		NotificationSeverities: []string{}, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	// An evaluate job of the example log stream (events/projects/get_evaluate_job.json):
	// the one events/projects/evaluate.json asks for, so both samples name the same job.
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	jobScorers := []string{"6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b70"}
	_, _, err = store.CreateEvalJob(ctx, d.Table, store.EvalJob{ID: store.EvalJobID(traces.ExampleLogStreamID, start, start.Add(time.Hour), jobScorers),
		OrgID: res.OrgID, ProjectID: traces.ExampleProjectID, RunID: traces.ExampleLogStreamID, Start: start, End: start.Add(time.Hour),
		ScorerIDs: jobScorers, CreatedBy: res.UserID, CreatedAt: now, Status: store.EvalJobDispatching})
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	return seedSignalsRun(ctx, d, res.OrgID, now)
}

// Fixture's signals run of the example experiment and its one finding.
const (
	FixtureSignalsRunID = "4a7b1c2d-3e4f-4a50-8b6c-7d8e9f0a1b2c"
	FixtureFindingID    = "5b8c2d3e-4f50-4b61-9c7d-8e9f0a1b2c3d"
)

func seedSignalsRun(ctx context.Context, d app.Deps, orgID string, now time.Time) error {
	run := store.SignalsRun{ID: FixtureSignalsRunID, OrgID: orgID, ProjectID: experiments.ExampleProjectID,
		RunID: experiments.ExampleExperimentID, ConfigurationID: "5b7d9f1a-3c5e-4a7b-9d1f-3b5d7f9a1c3e", Trigger: "ON_DEMAND",
		State: store.SignalsSkipped, Model: "gpt-4o-mini", CreatedAt: now}
	if err := store.StartSignalsRun(ctx, d.Table, run, "", now, now); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	f := store.SignalsFinding{ID: FixtureFindingID, OrgID: orgID, ProjectID: run.ProjectID, RunID: run.RunID,
		ConfigurationID: run.ConfigurationID, SignalsRunID: run.ID, Kind: "quality", Title: "Refusals of refund questions",
		Description: "Two of the sampled answers refuse a refund question the policy covers.", Severity: "HIGH",
		TraceIDs: []string{}, SuggestedAction: "Add the refund policy to the system prompt.", Change: "new",
		FirstSeenRunID: run.ID, CreatedAt: now}
	finished := run
	finished.State, finished.StartedAt, finished.FinishedAt = store.SignalsSucceeded, &now, &now
	finished.FindingIDs, finished.NewCount, finished.Notified = []string{f.ID}, 1, true
	if err := store.FinishSignalsRun(ctx, d.Table, finished, store.SignalsSkipped, []store.SignalsFinding{f}); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	return nil
}
