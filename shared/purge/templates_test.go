package purge_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/purge"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// newTemplate creates a template of org (of project pid, or of the organization when pid is
// "") with three versions, a user and a group collaborator: six items in its partition
// (home, versions, collaborators).
func newTemplate(t *testing.T, tbl store.Table, org, pid, name string) store.PromptTemplate {
	t.Helper()
	ctx := t.Context()
	p := store.PromptTemplate{ID: uuid.NewString(), OrgID: org, ProjectID: pid, Name: name, CreatedBy: "alice", CreatedAt: t0, UpdatedAt: t0}
	p, _, err := store.CreatePromptTemplate(ctx, tbl, p, store.PromptTemplateVersion{ID: uuid.NewString(), Template: "v0", CreatedBy: "alice", CreatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := store.PutNextPromptVersion(ctx, tbl, p, store.PromptTemplateVersion{ID: uuid.NewString(), Template: "vn", CreatedAt: t0}, t0); err != nil {
			t.Fatal(err)
		}
		p.VersionCount++
	}
	err = store.AddTemplateCollaborators(ctx, tbl, []store.TemplateCollaborator{
		{ID: uuid.NewString(), TemplateID: p.ID, Kind: store.CollaboratorUser, PrincipalID: "bob", Role: "editor", CreatedAt: t0},
		{ID: uuid.NewString(), TemplateID: p.ID, Kind: store.CollaboratorGroup, PrincipalID: "g1", Role: "viewer", CreatedAt: t0},
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := templateSize(t, tbl, p.ID); n != 6 {
		t.Fatalf("a new template's partition has %d items, want 6", n)
	}
	return p
}

// templateSize counts the items of a template's partition (home, versions, collaborators).
func templateSize(t *testing.T, tbl store.Table, id string) int {
	t.Helper()
	items, err := store.QueryAll(t.Context(), tbl, store.Query{PK: "PTEMPLATE#" + id, Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	return len(items)
}

// templateRecord is the template's record as the stream reports its removal (its last image).
func templateRecord(t *testing.T, tbl store.Table, p store.PromptTemplate) stream.Record {
	t.Helper()
	pk := "ORGPTEMPLATES#" + p.OrgID
	if p.ProjectID != "" {
		pk = "PROJECT#" + p.ProjectID
	}
	old, err := tbl.Get(t.Context(), store.Key{PK: pk, SK: "TEMPLATE#" + p.ID}, true)
	if err != nil {
		t.Fatal(err)
	}
	return stream.Record{ID: "seq-" + p.ID, Old: old}
}

// TestPurgeDeletedTemplates: deleting a template (of a project or of the organization)
// removes its record, name and home record and leaves its versions and collaborators to the
// stream, whose purge removes them all; a delivery again changes nothing, the records of the
// template's other items purge nothing, and the purge of a template that exists is refused
// and reported.
func TestPurgeDeletedTemplates(t *testing.T) {
	backends(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		pid := uuid.NewString()
		if err := store.CreateProject(ctx, tbl, store.Project{ID: pid, OrgID: "org", Name: "p", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		ofOrg, ofProject := newTemplate(t, tbl, "org", "", "a"), newTemplate(t, tbl, "org", pid, "b")
		kept := newTemplate(t, tbl, "org", "", "kept")
		var recs []stream.Record
		for _, p := range []store.PromptTemplate{ofOrg, ofProject} {
			recs = append(recs, templateRecord(t, tbl, p))
			if err := store.DeletePromptTemplate(ctx, tbl, p); err != nil {
				t.Fatal(err)
			}
			if _, err := store.FindPromptTemplate(ctx, tbl, "org", p.ID); err == nil {
				t.Errorf("template %s found after its delete", p.Name)
			}
			// The home record went with the template; the rest waits for the stream.
			if n := templateSize(t, tbl, p.ID); n != 5 {
				t.Errorf("template %s: %d items in its partition after the delete, want its 3 versions and 2 collaborators", p.Name, n)
			}
		}
		keptRec := templateRecord(t, tbl, kept)
		recs = append(recs,
			stream.Record{ID: "renamed", Old: keptRec.Old, New: keptRec.Old},
			stream.Record{ID: "version", Old: store.Item{"PK": "PTEMPLATE#" + kept.ID, "SK": "VERSION#000000", "entity": store.EntityPromptTemplateVersion}},
			stream.Record{ID: "home", Old: store.Item{"PK": "PTEMPLATE#" + kept.ID, "SK": "HOME", "entity": store.EntityPromptTemplateHome}},
		)
		w := purge.New(tbl, nil)
		for round := range 2 {
			if failed := w.Handle(ctx, recs); len(failed) != 0 {
				t.Fatalf("round %d: failed records %v", round, failed)
			}
			for _, p := range []store.PromptTemplate{ofOrg, ofProject} {
				if n := templateSize(t, tbl, p.ID); n != 0 {
					t.Errorf("round %d: %d items of deleted template %s left", round, n, p.Name)
				}
			}
			if n := templateSize(t, tbl, kept.ID); n != 6 {
				t.Errorf("round %d: the template not deleted has %d items, want 6", round, n)
			}
		}
		// A record naming a live template (a stray one) purges nothing and is reported.
		if failed := w.Handle(ctx, []stream.Record{keptRec}); len(failed) != 1 || failed[0] != keptRec.ID {
			t.Errorf("purge of a live template: failed records %v, want [%s]", failed, keptRec.ID)
		}
		if n := templateSize(t, tbl, kept.ID); n != 6 {
			t.Errorf("a stray record emptied a live template: %d items left", n)
		}
	})
}

// TestPurgedProjectTakesItsTemplates: a deleted project's purge removes its templates'
// records, and their removal (each a stream record) purges the templates' partitions.
func TestPurgedProjectTakesItsTemplates(t *testing.T) {
	tbl := testenv.Embedded(t)
	ctx := t.Context()
	p := store.Project{ID: uuid.NewString(), OrgID: "org", Name: "p", CreatedAt: t0}
	if err := store.CreateProject(ctx, tbl, p); err != nil {
		t.Fatal(err)
	}
	tpl := newTemplate(t, tbl, "org", p.ID, "t")
	projectOld, err := tbl.Get(ctx, store.Key{PK: "PROJECT#" + p.ID, SK: "META"}, true)
	if err != nil {
		t.Fatal(err)
	}
	rec := templateRecord(t, tbl, tpl)
	if err := store.DeleteProject(ctx, tbl, p); err != nil {
		t.Fatal(err)
	}
	w := purge.New(tbl, nil)
	if failed := w.Handle(ctx, []stream.Record{{ID: "project", Old: projectOld}}); len(failed) != 0 {
		t.Fatalf("project purge: failed records %v", failed)
	}
	if _, err := tbl.Get(ctx, store.Key{PK: rec.Old.Key().PK, SK: rec.Old.Key().SK}, true); err == nil {
		t.Fatal("the project's purge left its template's record")
	}
	if n := templateSize(t, tbl, tpl.ID); n != 6 {
		t.Fatalf("the template's partition before its own record's purge: %d items, want 6", n)
	}
	if failed := w.Handle(ctx, []stream.Record{rec}); len(failed) != 0 {
		t.Fatalf("template purge: failed records %v", failed)
	}
	if n := templateSize(t, tbl, tpl.ID); n != 0 {
		t.Errorf("%d items of the purged project's template left", n)
	}
}
