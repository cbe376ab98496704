package store_test

import (
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// TestPromptTemplateNames: the names of a scope follow creates, renames and deletes, and a
// name finds its template's id in its own scope only (a project's, or the organization's
// templates of no project).
func TestPromptTemplateNames(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
		org := "org-tname-" + t.Name()
		create := func(id, name string) store.PromptTemplate {
			t.Helper()
			p := store.PromptTemplate{ID: id, OrgID: org, Name: name, CreatedBy: "alice", CreatedAt: now, UpdatedAt: now}
			p, _, err := store.CreatePromptTemplate(ctx, tbl, p, store.PromptTemplateVersion{ID: id + "-v0", Template: "t", CreatedAt: now})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		names := func() []string {
			t.Helper()
			taken, err := store.PromptTemplateNames(ctx, tbl, org, "")
			if err != nil {
				t.Fatal(err)
			}
			return slices.Sorted(maps.Keys(taken))
		}
		a, b := create("tpl-a", "n"), create("tpl-b", "n (1)")
		if got := names(); !slices.Equal(got, []string{"n", "n (1)"}) {
			t.Errorf("names: %v", got)
		}
		if id, err := store.PromptTemplateIDByName(ctx, tbl, org, "", "n (1)"); err != nil || id != b.ID {
			t.Errorf("by name: %q %v, want %q", id, err, b.ID)
		}
		if _, err := store.PromptTemplateIDByName(ctx, tbl, org, "some-project", "n"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another scope by name: %v, want ErrNotFound", err)
		}
		if _, err := store.RenamePromptTemplate(ctx, tbl, a, "m", now); err != nil {
			t.Fatal(err)
		}
		if err := store.DeletePromptTemplate(ctx, tbl, b); err != nil {
			t.Fatal(err)
		}
		if got := names(); !slices.Equal(got, []string{"m"}) {
			t.Errorf("names after a rename and a delete: %v", got)
		}
		if _, err := store.PromptTemplateIDByName(ctx, tbl, org, "", "n"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a name given up: %v, want ErrNotFound", err)
		}
	})
}
