package store_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// TestSetExperimentRunAndRunJobs: what POST /jobs writes to an experiment (with its job, on
// condition of the experiment as read), the projects that use a dataset, and a run's
// evaluate jobs, on each adapter.
func TestSetExperimentRunAndRunJobs(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
		org := "org-run-" + t.Name()
		p := store.Project{ID: "p-run-" + t.Name(), OrgID: org, Name: "runs", CreatedAt: now, UpdatedAt: now}
		unused := store.Project{ID: "p-unused-" + t.Name(), OrgID: org, Name: "unused", CreatedAt: now, UpdatedAt: now}
		for _, pr := range []store.Project{p, unused} {
			if err := store.CreateProject(ctx, tbl, pr); err != nil {
				t.Fatal(err)
			}
		}
		e := store.Experiment{ID: "e-run", ProjectID: p.ID, OrgID: org, Name: "client", TaskType: 16, CreatedAt: now, UpdatedAt: now}
		if err := store.CreateExperiment(ctx, tbl, e); err != nil {
			t.Fatal(err)
		}
		version, name := "v-1", "quality"
		e.Dataset = &store.ExperimentDataset{DatasetID: "d-run", VersionIndex: 0, Name: "qa"}
		e.PromptTemplateVersionID, e.PromptMessages = &version, []store.PromptMessage{{Role: "user", Content: "Q: {{input}}"}}
		e.PromptRunSettings = map[string]any{"model_alias": "m1"}
		e.Scorers, e.UpdatedAt = []store.ScorerConfig{{ID: "s-1", Name: &name}}, now.Add(time.Minute)
		if err := store.SetExperimentRun(ctx, tbl, e); err != nil {
			t.Fatal(err)
		}
		got, err := store.GetExperiment(ctx, tbl, org, p.ID, e.ID)
		if err != nil || !reflect.DeepEqual(got.Dataset, e.Dataset) || *got.PromptTemplateVersionID != version ||
			!reflect.DeepEqual(got.PromptMessages, e.PromptMessages) || got.PromptRunSettings["model_alias"] != "m1" ||
			len(got.Scorers) != 1 || got.Scorers[0].ID != "s-1" || !got.UpdatedAt.Equal(e.UpdatedAt) || got.Name != "client" {
			t.Fatalf("after SetExperimentRun: %+v, %v", got, err)
		}
		// The run set with a job (POST /jobs): only if updated_at is as read, else nothing.
		set := e
		set.PromptRunSettings, set.UpdatedAt = map[string]any{"model_alias": "m2"}, now.Add(2*time.Minute)
		j := store.ExperimentJob{ID: "j-run-" + t.Name(), OrgID: org, ProjectID: p.ID, ExperimentID: e.ID, State: store.JobQueued, Attempt: 1, CreatedAt: now}
		if err := store.CreateExperimentJobSettingRun(ctx, tbl, j, "", set, now); !errors.Is(err, store.ErrConditionFailed) {
			t.Errorf("a run set on an experiment changed since read: %v", err)
		}
		if got, err := store.GetExperiment(ctx, tbl, org, p.ID, e.ID); err != nil || got.JobID != "" || got.PromptRunSettings["model_alias"] != "m1" {
			t.Errorf("after a refused job: job %q settings %v, %v", got.JobID, got.PromptRunSettings, err)
		}
		if err := store.CreateExperimentJobSettingRun(ctx, tbl, j, "", set, e.UpdatedAt); err != nil {
			t.Fatal(err)
		}
		if got, err := store.GetExperiment(ctx, tbl, org, p.ID, e.ID); err != nil || got.JobID != j.ID || got.PromptRunSettings["model_alias"] != "m2" ||
			!got.UpdatedAt.Equal(set.UpdatedAt) {
			t.Errorf("after the job: job %q settings %v updated %v, %v", got.JobID, got.PromptRunSettings, got.UpdatedAt, err)
		}
		// Every job of the experiment, newest first: a second supersedes the first as its
		// latest, and a job from before the list (named only by job_id) is still found.
		second := j
		second.ID, second.CreatedAt = "j-run2-"+t.Name(), now.Add(time.Hour)
		if err := store.CreateExperimentJob(ctx, tbl, second, j.ID); err != nil {
			t.Fatal(err)
		}
		e, err = store.GetExperiment(ctx, tbl, org, p.ID, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		ids := func(jobs []store.ExperimentJob) (out []string) {
			for _, j := range jobs {
				out = append(out, j.ID)
			}
			return out
		}
		if got, err := store.ExperimentJobs(ctx, tbl, org, e); err != nil || !reflect.DeepEqual(ids(got), []string{second.ID, j.ID}) {
			t.Errorf("jobs of the experiment: %v, %v", ids(got), err)
		}
		if got, err := store.ExperimentJobs(ctx, tbl, "org-other", e); err != nil || len(got) != 0 {
			t.Errorf("another organization's view of the jobs: %v, %v", ids(got), err)
		}
		unlisted := store.ExperimentJob{ID: "j-old-" + t.Name(), OrgID: org, ProjectID: p.ID, ExperimentID: e.ID, State: store.JobCompleted, Attempt: 1, CreatedAt: now.Add(-time.Hour)}
		it, err := store.Marshal(unlisted)
		if err != nil {
			t.Fatal(err)
		}
		jk := store.ExperimentJobKey(unlisted.ID)
		if err := tbl.Put(ctx, it.With(store.AttrPK, jk.PK, store.AttrSK, jk.SK, store.AttrEntity, store.EntityExperimentJob)); err != nil {
			t.Fatal(err)
		}
		old := e
		old.JobID = unlisted.ID
		if got, err := store.ExperimentJobs(ctx, tbl, org, old); err != nil || !reflect.DeepEqual(ids(got), []string{second.ID, j.ID, unlisted.ID}) {
			t.Errorf("jobs of an experiment whose latest job predates the list: %v, %v", ids(got), err)
		}
		gone := e
		gone.ID = "e-gone"
		if err := store.SetExperimentRun(ctx, tbl, gone); !errors.Is(err, store.ErrConditionFailed) {
			t.Errorf("an experiment that does not exist: %v", err)
		}
		used, err := store.DatasetProjects(ctx, tbl, store.Dataset{ID: "d-run", OrgID: org})
		if err != nil || len(used) != 1 || used[0].ID != p.ID {
			t.Errorf("projects of the dataset: %+v, %v", used, err)
		}

		run := "ls-run-" + t.Name()
		for i, scorer := range []string{"s-1", "s-2"} {
			j := store.EvalJob{ID: store.EvalJobID(run, now, now.Add(time.Hour), []string{scorer}), OrgID: org, ProjectID: p.ID, RunID: run,
				Start: now, End: now.Add(time.Hour), ScorerIDs: []string{scorer}, CreatedAt: now.Add(time.Duration(i) * time.Second),
				Status: store.EvalJobDispatching}
			if _, _, err := store.CreateEvalJob(ctx, tbl, j); err != nil {
				t.Fatal(err)
			}
		}
		jobs, err := store.RunEvalJobs(ctx, tbl, org, run)
		if err != nil || len(jobs) != 2 {
			t.Fatalf("evaluate jobs of the run: %+v, %v", jobs, err)
		}
		if other, err := store.RunEvalJobs(ctx, tbl, "org-other", run); err != nil || len(other) != 0 {
			t.Errorf("another organization's view: %+v, %v", other, err)
		}
		// Each evaluate job by its id alone, through its pointer; not for another organization.
		for _, want := range jobs {
			if got, err := store.EvalJobByID(ctx, tbl, org, want.ID); err != nil || got.RunID != run || got.ID != want.ID {
				t.Errorf("evaluate job %s by id: %+v, %v", want.ID, got, err)
			}
			if _, err := store.EvalJobByID(ctx, tbl, "org-other", want.ID); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("another organization's evaluate job by id: %v", err)
			}
		}
		// A job stored before pointers is not found by id until the same request is made again.
		legacy := store.EvalJob{ID: store.EvalJobID(run, now, now.Add(2*time.Hour), nil), OrgID: org, ProjectID: p.ID, RunID: run,
			Start: now, End: now.Add(2 * time.Hour), CreatedAt: now, Status: store.EvalJobDispatching}
		it, err = store.Marshal(legacy)
		if err != nil {
			t.Fatal(err)
		}
		k := store.EvalJobKey(run, legacy.ID)
		if err := tbl.Put(ctx, it.With(store.AttrPK, k.PK, store.AttrSK, k.SK, store.AttrEntity, store.EntityEvalJob)); err != nil {
			t.Fatal(err)
		}
		if _, err := store.EvalJobByID(ctx, tbl, org, legacy.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a job stored before pointers, by id: %v", err)
		}
		if _, created, err := store.CreateEvalJob(ctx, tbl, legacy); err != nil || created {
			t.Fatalf("the same request again: created %v, %v", created, err)
		}
		if got, err := store.EvalJobByID(ctx, tbl, org, legacy.ID); err != nil || got.ID != legacy.ID {
			t.Errorf("a job stored before pointers, after the request again: %+v, %v", got, err)
		}
	})
}
