package datasets

import (
	"context"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// The example dataset the sample events under events/datasets are written against: three
// rows in two columns, owned by the given user and shared with a group of that user. Its ids
// are fixed so that an event can name them.
const (
	ExampleDatasetID = "3f0c2a8e-5b7d-4c1e-9a6f-2d8b7e4c1a90"
	ExampleGroupID   = "7d1e4b2a-9c3f-4e8d-b5a6-1f2e3d4c5b6a"
)

var exampleRows = []store.NewDatasetRow{
	{RowID: "0b6f7c1e-2d3a-4b5c-8d9e-0f1a2b3c4d01", Values: []any{"What is the capital of France?", "Paris"}},
	{RowID: "0b6f7c1e-2d3a-4b5c-8d9e-0f1a2b3c4d02", Values: []any{"2 + 2 =", "4"}},
	{RowID: "0b6f7c1e-2d3a-4b5c-8d9e-0f1a2b3c4d03", Values: []any{"Name a primary colour.", "Red"}},
}

// SeedExample writes the example dataset into organization orgID for user ownerID: what the
// event runner's fixture calls after creating its organization.
func SeedExample(ctx context.Context, t store.Table, orgID, ownerID string, now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	g := store.Group{ID: ExampleGroupID, OrgID: orgID, Name: "fixture-reviewers", Visibility: "public",
		CreatedBy: ownerID, CreatedAt: now}
	if err := store.CreateGroup(ctx, t, g); err != nil {
		return fmt.Errorf("example dataset: %w", err)
	}
	err := store.AddGroupMembers(ctx, t, []store.GroupMember{{GroupID: g.ID, UserID: ownerID, OrgID: orgID, Role: "member", CreatedAt: now}})
	if err != nil {
		return fmt.Errorf("example dataset: %w", err)
	}
	d := store.Dataset{ID: ExampleDatasetID, OrgID: orgID, Name: "fixture-qa", ColumnNames: []string{"input", "output"},
		CreatedBy: ownerID, CreatedAt: now}
	owner := store.DatasetCollaborator{ID: "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c10", DatasetID: d.ID, OrgID: orgID,
		UserID: ownerID, Role: store.DatasetOwner, CreatedBy: ownerID, CreatedAt: now}
	if _, err := store.CreateDataset(ctx, t, d, owner, exampleRows); err != nil {
		return fmt.Errorf("example dataset: %w", err)
	}
	share := store.DatasetCollaborator{ID: "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c11", DatasetID: d.ID, OrgID: orgID,
		GroupID: g.ID, Role: store.DatasetViewer, CreatedBy: ownerID, CreatedAt: now}
	if err := store.ShareDataset(ctx, t, orgID, d.ID, []store.DatasetCollaborator{share}); err != nil {
		return fmt.Errorf("example dataset: %w", err)
	}
	return nil
}
