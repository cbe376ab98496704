package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// TestDeletePromptTemplateAfterRename: a delete given the template as read before a rename
// removes the name claim the template has now, so that the new name is free again (the claim
// of the name it was read with is gone with the rename); a delete of a template gone is
// ErrNotFound.
func TestDeletePromptTemplateAfterRename(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
		org := "org-tdel-" + t.Name()
		create := func(id, name string) (store.PromptTemplate, error) {
			p := store.PromptTemplate{ID: id, OrgID: org, Name: name, CreatedBy: "alice", CreatedAt: now, UpdatedAt: now}
			p, _, err := store.CreatePromptTemplate(ctx, tbl, p, store.PromptTemplateVersion{ID: id + "-v0", Template: "t", CreatedAt: now})
			return p, err
		}
		stale, err := create("tpl-1", "before")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.RenamePromptTemplate(ctx, tbl, stale, "after", now); err != nil {
			t.Fatal(err)
		}
		if err := store.DeletePromptTemplate(ctx, tbl, stale); err != nil {
			t.Fatalf("delete as read before the rename: %v", err)
		}
		for _, name := range []string{"before", "after"} {
			if _, err := create("tpl-"+name, name); err != nil {
				t.Errorf("name %q after the delete: %v", name, err)
			}
		}
		if err := store.DeletePromptTemplate(ctx, tbl, stale); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("delete again: %v, want ErrNotFound", err)
		}
	})
}
