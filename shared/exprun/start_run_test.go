package exprun_test

import (
	"errors"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/store"
)

// TestStartSettingRun: a start that sets the experiment's run (POST /jobs) stores the run
// with the job, in one transaction: refused (the experiment edited since it was read, a job
// still queued) it writes nothing; started, the experiment has the run and names the job.
func TestStartSettingRun(t *testing.T) {
	f := newFixture(t, nil, 4)
	svc := &exprun.Service{Table: f.tbl, Queue: &queue{}}
	run := f.exp
	run.PromptRunSettings, run.UpdatedAt = map[string]any{"temperature": 0.9}, t0.Add(time.Hour)
	stored := func() store.Experiment {
		t.Helper()
		e, err := store.GetExperiment(t.Context(), f.tbl, orgID, f.exp.ProjectID, f.exp.ID)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	var started store.ExperimentJob
	for _, tc := range []struct {
		name    string
		readAt  time.Time
		wantErr error
	}{
		{"edited since it was read", t0.Add(-time.Second), exprun.ErrChanged},
		{"as read", t0, nil},
		{"a job still queued", t0.Add(time.Hour), exprun.ErrJobActive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := stored()
			j, err := svc.Start(t.Context(), exprun.StartRequest{UserID: "alice", Experiment: run, Messages: f.msgs,
				SetRun: true, ReadAt: tc.readAt})
			after := stored()
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("start: %v, want %v", err, tc.wantErr)
				}
				if after.JobID != before.JobID || !after.UpdatedAt.Equal(before.UpdatedAt) ||
					after.PromptRunSettings["temperature"] != before.PromptRunSettings["temperature"] {
					t.Errorf("a refused start wrote: job %q settings %v updated %v, was %q %v %v", after.JobID,
						after.PromptRunSettings, after.UpdatedAt, before.JobID, before.PromptRunSettings, before.UpdatedAt)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			started = j
			if after.JobID != j.ID || after.PromptRunSettings["temperature"] != 0.9 || !after.UpdatedAt.Equal(run.UpdatedAt) ||
				j.Plan.Settings["temperature"] != 0.9 {
				t.Errorf("started: experiment job %q settings %v updated %v, job %s plan %v", after.JobID,
					after.PromptRunSettings, after.UpdatedAt, j.ID, j.Plan.Settings)
			}
		})
	}
	if started.ID == "" {
		t.Fatal("no job started")
	}
}
