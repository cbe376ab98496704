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
	return nil
}
