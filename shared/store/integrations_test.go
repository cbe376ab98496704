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

// SharedIntegrations lists what a share put under the user, and leaves out an entry whose
// integration is of another organization or whose share is gone; ListIntegrationShare gives
// an entry to a viewer item without one, once.
func TestSharedIntegrations(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		org, viewer := uuid.NewString(), uuid.NewString()
		now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
		var ins []store.Integration
		for i, p := range []string{"model-vendor", "custom"} {
			in := store.Integration{ID: uuid.NewString(), OrgID: org, OwnerID: uuid.NewString(), Provider: p, Name: p,
				Settings: map[string]any{}, SecretRef: "integrations/" + p, Revision: "r", CreatedAt: now, UpdatedAt: now}
			if err := store.CreateIntegration(ctx, tbl, in); err != nil {
				t.Fatal(err)
			}
			c := store.IntegrationCollaborator{ID: uuid.NewString(), IntegrationID: in.ID, OrgID: org, UserID: viewer,
				Role: "viewer", CreatedBy: in.OwnerID, CreatedAt: now}
			if i == 0 { // the second share names no record key, as shares written before did
				c.OwnerID, c.Provider = in.OwnerID, in.Provider
			}
			ops, checked, err := store.ShareIntegrationOps(org, in.ID, []store.IntegrationCollaborator{c}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := store.ShareIntegrationError(tbl.Transact(ctx, ops), in.ID, 1, checked); err != nil {
				t.Fatal(err)
			}
			ins = append(ins, in)
		}
		ids := func(user string) []string {
			t.Helper()
			got, err := store.SharedIntegrations(ctx, tbl, org, user)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]string, len(got))
			for i, in := range got {
				out[i] = in.ID
				if in.SecretRef == "" || in.OwnerID == "" {
					t.Errorf("integration %s read without its record: %+v", in.ID, in)
				}
			}
			return out
		}
		want := []string{ins[0].ID, ins[1].ID}
		if want[0] > want[1] {
			want[0], want[1] = want[1], want[0]
		}
		if got := ids(viewer); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("shared with the viewer: %v, want %v", got, want)
		}
		if got := ids(ins[0].OwnerID); len(got) != 0 {
			t.Fatalf("shared with the owner: %v, want none", got)
		}
		if got, err := store.SharedIntegrations(ctx, tbl, uuid.NewString(), viewer); err != nil || len(got) != 0 {
			t.Fatalf("another organization: %v %v", got, err)
		}

		// A share gone is not listed; a viewer item without its entry is not listed until
		// ListIntegrationShare gives it one, which a second call leaves as it is.
		gone := store.Key{PK: "INTEGRATION#" + ins[0].ID, SK: "USER#" + viewer}
		if err := tbl.Delete(ctx, gone); err != nil {
			t.Fatal(err)
		}
		old := store.Key{PK: "INTEGRATION#" + ins[1].ID, SK: "USER#" + viewer}
		if _, err := tbl.Update(ctx, store.Update{Key: old, Remove: []string{store.AttrGSI1PK, store.AttrGSI1SK}}); err != nil { // as written before
			t.Fatal(err)
		}
		if got := ids(viewer); len(got) != 0 {
			t.Fatalf("after the removals: %v, want none", got)
		}
		for range 2 {
			if err := store.ListIntegrationShare(ctx, tbl, ins[1], viewer); err != nil {
				t.Fatal(err)
			}
			if got := ids(viewer); len(got) != 1 || got[0] != ins[1].ID {
				t.Fatalf("after the repair: %v, want %s", got, ins[1].ID)
			}
		}
		if it, err := tbl.Get(ctx, old, true); err != nil || it["owner_id"] != ins[1].OwnerID || it["provider"] != ins[1].Provider {
			t.Fatalf("the repaired share names no record key: %v %v", it, err)
		}
		// Neither another organization's caller nor a missing share creates an item.
		stranger := ins[1]
		stranger.OrgID = uuid.NewString()
		for _, in := range []store.Integration{stranger, ins[0]} {
			if err := store.ListIntegrationShare(ctx, tbl, in, viewer); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tbl.Get(ctx, gone, true); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the repair wrote a share that was gone: %v", err)
		}
	})
}
