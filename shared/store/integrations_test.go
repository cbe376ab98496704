package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

func TestIntegrationRecords(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		org, owner := uuid.NewString(), uuid.NewString()
		now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
		in := store.Integration{ID: uuid.NewString(), OrgID: org, OwnerID: owner, Provider: "cloud-host", Name: "cloud-host",
			Settings:  map[string]any{"endpoint": "https://example.com", "proxy": true, "available_deployments": []any{map[string]any{"id": "a", "model": "m"}}},
			SecretRef: "integrations/x", Revision: "r1", CreatedAt: now, UpdatedAt: now}
		if err := store.CreateIntegration(ctx, tbl, in); err != nil {
			t.Fatal(err)
		}
		again := in
		again.ID = uuid.NewString()
		if err := store.CreateIntegration(ctx, tbl, again); !errors.Is(err, store.ErrAlreadyExists) {
			t.Fatalf("second create: %v", err)
		}
		got, err := store.GetIntegration(ctx, tbl, org, in.ID)
		if err != nil || got.ID != in.ID || got.Settings["proxy"] != true || got.SecretRef != "integrations/x" || !got.CreatedAt.Equal(now) {
			t.Fatalf("get: %+v %v", got, err)
		}
		for _, id := range []string{again.ID, uuid.NewString()} {
			if _, err := store.GetIntegration(ctx, tbl, org, id); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("unknown id: %v", err)
			}
		}
		if _, err := store.GetIntegration(ctx, tbl, uuid.NewString(), in.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other organization: %v", err)
		}
		if _, err := store.OwnIntegration(ctx, tbl, uuid.NewString(), owner, "cloud-host"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("other organization: %v", err)
		}

		next := in
		next.Revision, next.UpdatedAt = "r2", now.Add(time.Minute)
		if err := store.ReplaceIntegration(ctx, tbl, next, "stale"); !errors.Is(err, store.ErrConditionFailed) {
			t.Fatalf("stale replace: %v", err)
		}
		if err := store.ReplaceIntegration(ctx, tbl, next, "r1"); err != nil {
			t.Fatal(err)
		}
		if got, _ := store.OwnIntegration(ctx, tbl, org, owner, "cloud-host"); got.Revision != "r2" || !got.UpdatedAt.Equal(next.UpdatedAt) {
			t.Fatalf("after replace: %+v", got)
		}

		viewer, second := uuid.NewString(), uuid.NewString()
		share := func(users ...string) error {
			cs := make([]store.IntegrationCollaborator, len(users))
			for i, u := range users {
				cs[i] = store.IntegrationCollaborator{ID: uuid.NewString(), IntegrationID: in.ID, OrgID: org, UserID: u,
					Role: "viewer", CreatedBy: owner, CreatedAt: now}
			}
			ops, checked, err := store.ShareIntegrationOps(org, in.ID, cs, 0)
			if err != nil {
				return err
			}
			return store.ShareIntegrationError(tbl.Transact(ctx, ops), in.ID, len(cs), checked)
		}
		if err := share(viewer); err != nil {
			t.Fatal(err)
		}
		var exists *store.IntegrationShareError
		if err := share(second, viewer); !errors.As(err, &exists) || exists.Index != 1 || !errors.Is(err, store.ErrAlreadyExists) {
			t.Fatalf("share again: %v", err)
		}
		if _, err := store.IntegrationCollaboratorOf(ctx, tbl, org, in.ID, second); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a refused share stored a collaborator: %v", err)
		}
		c, err := store.IntegrationCollaboratorOf(ctx, tbl, org, in.ID, viewer)
		if err != nil || c.Role != "viewer" || c.UserID != viewer {
			t.Fatalf("collaborator %+v %v", c, err)
		}
		// The check on the integration: an id of another organization shares nothing.
		ops, checked, err := store.ShareIntegrationOps(uuid.NewString(), in.ID, nil, 0)
		if err != nil || !checked {
			t.Fatal(err)
		}
		if err := store.ShareIntegrationError(tbl.Transact(ctx, ops), in.ID, 0, checked); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("share of another organization's integration: %v", err)
		}
	})
}

func TestUserIntegrations(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		org, owner := uuid.NewString(), uuid.NewString()
		now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
		for _, p := range []string{"model-vendor", "custom", "cloud-host"} {
			in := store.Integration{ID: uuid.NewString(), OrgID: org, OwnerID: owner, Provider: p, Name: p,
				Settings: map[string]any{}, SecretRef: "integrations/" + p, Revision: "r", CreatedAt: now, UpdatedAt: now}
			if err := store.CreateIntegration(ctx, tbl, in); err != nil {
				t.Fatal(err)
			}
		}
		got, err := store.UserIntegrations(ctx, tbl, org, owner)
		if err != nil || len(got) != 3 || got[0].Provider != "cloud-host" || got[1].Provider != "custom" || got[2].Provider != "model-vendor" {
			t.Fatalf("%+v %v", got, err)
		}
		if got, err := store.UserIntegrations(ctx, tbl, uuid.NewString(), owner); err != nil || len(got) != 0 {
			t.Fatalf("other organization: %+v %v", got, err)
		}
	})
}
