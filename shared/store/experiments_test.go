package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

func TestExperiments(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
		p := store.Project{ID: "p-exp", OrgID: "org-1", Name: "exp project", CreatedAt: now, UpdatedAt: now}
		if err := store.CreateProject(ctx, tbl, p); err != nil {
			t.Fatal(err)
		}
		name := "scored"
		e := store.Experiment{ID: "e-1", ProjectID: p.ID, OrgID: p.OrgID, Name: "first", TaskType: 16, CreatedAt: now, UpdatedAt: now,
			Dataset: &store.ExperimentDataset{DatasetID: "d", VersionIndex: 2, Name: "ds"}, Tags: map[string]string{"k": "v"},
			MetricSettings: store.MetricSettings{Scorers: []store.ScorerConfig{{ID: "s-1", Name: &name}}}}
		if err := store.CreateExperiment(ctx, tbl, e); err != nil {
			t.Fatal(err)
		}
		later := e
		later.ID, later.Name, later.CreatedAt, later.Scorers = "e-2", "second", now.Add(time.Second), nil
		if err := store.CreateExperiment(ctx, tbl, later); err != nil {
			t.Fatal(err)
		}
		dup := later
		dup.ID = "e-3"
		if err := store.CreateExperiment(ctx, tbl, dup); !errors.Is(err, store.ErrNameTaken) {
			t.Fatalf("same name: %v", err)
		}
		orphan := later
		orphan.ID, orphan.ProjectID, orphan.Name = "e-4", "p-missing", "orphan"
		if err := store.CreateExperiment(ctx, tbl, orphan); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("missing project: %v", err)
		}

		got, err := store.ListExperiments(ctx, tbl, "org-1", p.ID)
		if err != nil || len(got) != 2 || got[0].ID != "e-2" || got[1].ID != "e-1" {
			t.Fatalf("list: %+v %v", got, err)
		}
		if got[1].Dataset == nil || got[1].Dataset.VersionIndex != 2 || got[1].Tags["k"] != "v" || len(got[0].Scorers) != 0 || got[0].Scorers == nil {
			t.Fatalf("round trip: %+v", got)
		}
		if others, err := store.ListExperiments(ctx, tbl, "org-2", p.ID); err != nil || len(others) != 0 {
			t.Fatalf("another organization lists %d, %v", len(others), err)
		}
		run, err := store.GetRun(ctx, tbl, "org-1", p.ID, "e-1")
		if err != nil || run.Kind != store.RunExperiment || run.Name != "first" || len(run.Scorers) != 1 || *run.Scorers[0].Name != "scored" {
			t.Fatalf("GetRun: %+v %v", run, err)
		}
		if _, err := store.GetExperiment(ctx, tbl, "org-2", p.ID, "e-1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organization's experiment: %v", err)
		}
	})
}

func TestSignalsConfig(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
		start := "2026-06-01"
		c := store.SignalsConfig{ID: "c-1", OrgID: "org-1", ProjectID: "p", RunID: "r", RunKind: store.RunLogStream, RunMode: "SCHEDULED",
			Schedule: &store.SignalsSchedule{Cron: "0 9 * * *", Type: "CRON", Timezone: "UTC"}, StartDate: &start,
			Model: "m", NotificationSeverities: []string{"HIGH"}, CreatedAt: now, UpdatedAt: now}
		first, err := store.PutSignalsConfig(ctx, tbl, c)
		if err != nil || first.ID != "c-1" {
			t.Fatalf("create: %+v %v", first, err)
		}
		next := c
		next.ID, next.Model, next.CreatedAt, next.UpdatedAt, next.Schedule = "c-2", "m2", now.Add(time.Hour), now.Add(time.Hour), nil
		second, err := store.PutSignalsConfig(ctx, tbl, next)
		if err != nil || second.ID != "c-1" || !second.CreatedAt.Equal(now) || !second.UpdatedAt.Equal(now.Add(time.Hour)) {
			t.Fatalf("replace: %+v %v", second, err)
		}
		got, err := store.GetSignalsConfig(ctx, tbl, "org-1", "p", "r")
		if err != nil || got.Model != "m2" || got.Schedule != nil || got.ID != "c-1" || *got.StartDate != start {
			t.Fatalf("get: %+v %v", got, err)
		}
		if _, err := store.GetSignalsConfig(ctx, tbl, "org-2", "p", "r"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another organization's: %v", err)
		}
		// Concurrent creates settle on one id.
		var wg sync.WaitGroup
		ids := make([]string, 8)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cc := c
				cc.RunID, cc.ID = "r-race", fmt.Sprintf("c-%d", i)
				got, err := store.PutSignalsConfig(ctx, tbl, cc)
				if err != nil {
					t.Error(err)
				}
				ids[i] = got.ID
			}()
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("concurrent creates kept different ids: %v", ids)
			}
		}
	})
}
