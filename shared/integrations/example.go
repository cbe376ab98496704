package integrations

import (
	"context"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/credentials"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// ExampleIntegrationID is the model-vendor integration the sample events under
// events/integrations share: the event runner's fixture calls SeedExample.
const ExampleIntegrationID = "2e4f6a8c-0b1d-4e3f-9a5b-7c9d1e3f5a7b"

// SeedExample stores a model-vendor integration of user ownerID, with a placeholder token
// in its secret, as a PUT of it would.
func SeedExample(ctx context.Context, t store.Table, sec secrets.Store, orgID, ownerID string, now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	in := store.Integration{ID: ExampleIntegrationID, OrgID: orgID, OwnerID: ownerID, Provider: "model-vendor",
		Name: "model-vendor", Settings: map[string]any{"organization_id": nil}, Revision: "fixture-revision",
		CreatedAt: now, UpdatedAt: now}
	value, err := credentials.Encode(in.Revision, credentials.Set{Token: secrets.NewValueString("fixture-token-not-a-credential")})
	if err != nil {
		return err
	}
	tags := map[string]string{"organization": orgID, "owner": ownerID, "integration": in.ID}
	if in.SecretRef, err = sec.Put(ctx, SecretName(in.ID), value, tags); err != nil {
		return fmt.Errorf("example integration: %w", err)
	}
	if err := store.CreateIntegration(ctx, t, in); err != nil {
		return fmt.Errorf("example integration: %w", err)
	}
	return nil
}
