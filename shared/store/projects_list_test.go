package store_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

func TestListAndLookUpProjects(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		org := "org-list-" + t.Name()
		var ids []string
		for i, name := range []string{"alpha", "beta", "gamma"} {
			p := store.Project{ID: name + "-" + t.Name(), OrgID: org, Name: name, Type: store.ProjectTypes[i], CreatedAt: now, UpdatedAt: now}
			if err := store.CreateProject(ctx, tbl, p); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		if err := store.CreateProject(ctx, tbl, store.Project{ID: "other-" + t.Name(), OrgID: "elsewhere-" + t.Name(), Name: "alpha"}); err != nil {
			t.Fatal(err)
		}
		got, _, err := store.ListProjects(ctx, tbl, org)
		if err != nil {
			t.Fatal(err)
		}
		var gotIDs []string
		for _, p := range got {
			gotIDs = append(gotIDs, p.ID)
		}
		slices.Sort(gotIDs)
		slices.Sort(ids)
		if !slices.Equal(gotIDs, ids) {
			t.Errorf("ListProjects = %v, want %v", gotIDs, ids)
		}
		p, _, err := store.ProjectByName(ctx, tbl, org, "beta")
		if err != nil || p.ID != "beta-"+t.Name() || p.Type != store.ProjectTypes[1] {
			t.Errorf("ProjectByName(beta) = %+v, %v", p, err)
		}
		if _, _, err := store.ProjectByName(ctx, tbl, org, "delta"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("ProjectByName(delta): %v, want ErrNotFound", err)
		}
	})
}

// Deleting a project frees its name at once; the purges of the project and of each of its
// runs (which the stream consumer runs) remove everything it held, and refuse while the
// record they purge for exists.
func TestDeleteProjectAndPurge(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		org := "org-del-" + t.Name()
		p := store.Project{ID: "pd-" + t.Name(), OrgID: org, Name: "doomed", CreatedAt: now, UpdatedAt: now}
		if err := store.CreateProject(ctx, tbl, p); err != nil {
			t.Fatal(err)
		}
		ls := store.LogStream{ID: "lsd-" + t.Name(), ProjectID: p.ID, OrgID: org, Name: "prod", CreatedAt: now, UpdatedAt: now.Add(time.Second)}
		if err := store.CreateLogStream(ctx, tbl, ls); err != nil {
			t.Fatal(err)
		}
		e := store.Experiment{ID: "exd-" + t.Name(), ProjectID: p.ID, OrgID: org, Name: "e1", TaskType: 16, CreatedAt: now.Add(time.Minute), UpdatedAt: now}
		if err := store.CreateExperiment(ctx, tbl, e); err != nil {
			t.Fatal(err)
		}
		for _, k := range []store.Key{store.RunSummaryKey(ls.ID), store.RollupKey(ls.ID, store.RollupHour, "model", now, "m")} {
			if err := tbl.Put(ctx, store.Item{store.AttrPK: k.PK, store.AttrSK: k.SK, "n": int64(1)}); err != nil {
				t.Fatal(err)
			}
		}
		_, runs, err := store.ProjectRuns(ctx, tbl, org, p.ID)
		if err != nil || len(runs) != 2 || runs[0].ID != ls.ID || runs[0].Kind != store.RunLogStream ||
			runs[1].ID != e.ID || runs[1].Kind != store.RunExperiment || runs[1].TaskType != 16 {
			t.Fatalf("ProjectRuns = %+v, %v", runs, err)
		}
		if _, err := store.PurgeProject(ctx, tbl, p.ID); err == nil {
			t.Error("PurgeProject ran on a live project")
		}
		if err := store.DeleteProject(ctx, tbl, store.Project{ID: p.ID, OrgID: "another-org", Name: p.Name}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another organization deleted it: %v", err)
		}
		if err := store.DeleteProject(ctx, tbl, p); err != nil {
			t.Fatal(err)
		}
		if _, err := store.GetProject(ctx, tbl, org, p.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleted project still read: %v", err)
		}
		if err := store.CreateProject(ctx, tbl, store.Project{ID: "pd2-" + t.Name(), OrgID: org, Name: "doomed"}); err != nil {
			t.Errorf("the name of a deleted project is not free: %v", err)
		}
		if n, err := store.PurgeProject(ctx, tbl, p.ID); err != nil || n < 4 { // 2 runs, 2 name claims
			t.Errorf("PurgeProject = %d, %v", n, err)
		}
		if n, err := store.PurgeRun(ctx, tbl, p.ID, ls.ID); err != nil || n != 2 {
			t.Errorf("PurgeRun = %d, %v; want the summary and the roll-up", n, err)
		}
		for _, k := range []store.Key{store.RunSummaryKey(ls.ID), store.RollupKey(ls.ID, store.RollupHour, "model", now, "m")} {
			if _, err := tbl.Get(ctx, k, true); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s survived the purge: %v", k, err)
			}
		}
		if n, err := store.PurgeProject(ctx, tbl, p.ID); err != nil || n != 0 {
			t.Errorf("second PurgeProject = %d, %v", n, err)
		}
	})
}

func TestLogStreamRenameListDelete(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		org := "org-ls-" + t.Name()
		p := store.Project{ID: "pl-" + t.Name(), OrgID: org, Name: "p", CreatedAt: now, UpdatedAt: now}
		if err := store.CreateProject(ctx, tbl, p); err != nil {
			t.Fatal(err)
		}
		var streams []store.LogStream
		for i, name := range []string{"one", "two"} {
			ls := store.LogStream{ID: name + "-" + t.Name(), ProjectID: p.ID, OrgID: org, Name: name,
				CreatedAt: now.Add(time.Duration(i) * time.Second), UpdatedAt: now}
			if err := store.CreateLogStream(ctx, tbl, ls); err != nil {
				t.Fatal(err)
			}
			streams = append(streams, ls)
		}
		if _, err := store.RenameLogStream(ctx, tbl, streams[0], "two", now); !errors.Is(err, store.ErrNameTaken) {
			t.Errorf("rename onto a taken name: %v", err)
		}
		renamed, err := store.RenameLogStream(ctx, tbl, streams[0], "uno", now.Add(time.Hour))
		if err != nil || renamed.Name != "uno" {
			t.Fatalf("rename: %+v, %v", renamed, err)
		}
		if err := store.CreateLogStream(ctx, tbl, store.LogStream{ID: "again-" + t.Name(), ProjectID: p.ID, OrgID: org, Name: "one", CreatedAt: now.Add(time.Hour)}); err != nil {
			t.Errorf("the old name is not free: %v", err)
		}
		if _, err := store.RenameLogStream(ctx, tbl, streams[0], "dos", now); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("rename from a stale name: %v, want ErrNotFound", err)
		}
		all, err := store.ListLogStreams(ctx, tbl, org, p.ID)
		if err != nil || len(all) != 3 || all[0].Name != "uno" || all[1].Name != "two" || all[2].Name != "one" {
			t.Fatalf("ListLogStreams = %+v, %v", all, err)
		}
		if other, err := store.ListLogStreams(ctx, tbl, "another-org", p.ID); err != nil || len(other) != 0 {
			t.Errorf("another organization lists %d, %v", len(other), err)
		}
		if err := store.DeleteLogStream(ctx, tbl, all[1]); err != nil {
			t.Fatal(err)
		}
		if err := store.DeleteLogStream(ctx, tbl, all[1]); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("second delete: %v, want ErrNotFound", err)
		}
		if err := store.CreateLogStream(ctx, tbl, store.LogStream{ID: "two-again-" + t.Name(), ProjectID: p.ID, OrgID: org, Name: "two"}); err != nil {
			t.Errorf("the deleted log stream's name is not free: %v", err)
		}
	})
}
