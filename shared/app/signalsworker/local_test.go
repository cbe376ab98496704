package signalsworker

import (
	"context"
	"encoding/json"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/schedule/inproc"
	"github.com/evalobs/evalapi/shared/signals"
	"github.com/evalobs/evalapi/shared/store"
)

// citeAll answers one finding citing every trace of the prompt.
type citeAll struct{ calls atomic.Int32 }

var traceID = regexp.MustCompile(`### trace ([0-9a-f-]{36})`)

func (m *citeAll) Complete(_ context.Context, req signals.Completion) (signals.Answer, error) {
	m.calls.Add(1)
	var ids []string
	for _, s := range traceID.FindAllStringSubmatch(req.Messages[1].Content, -1) {
		ids = append(ids, s[1])
	}
	b, _ := json.Marshal(map[string]any{"findings": []map[string]any{{"kind": "error", "title": "Failures", "description": "d",
		"severity": "HIGH", "trace_ids": ids, "suggested_action": "a"}}})
	return signals.Answer{Text: string(b)}, nil
}

// TestLocalSchedulerFiresWithAMovableClock: `make run`'s scheduler reads the configurations
// with scheduled runs from the table and fires them at the times package schedule computes,
// on a clock the test moves; each fire is one run, a repeated fire none.
func TestLocalSchedulerFiresWithAMovableClock(t *testing.T) {
	d := apptest.Deps(t)
	t0 := time.Date(2026, 5, 6, 7, 2, 0, 0, time.UTC)
	clock := inproc.NewManualClock(t0)
	d.Now = clock.Now
	ctx := t.Context()

	cfg := store.SignalsConfig{ID: uuid.NewString(), OrgID: uuid.NewString(), ProjectID: uuid.NewString(), RunID: uuid.NewString(),
		RunKind: store.RunLogStream, RunMode: signals.RunModeScheduled, Model: "m", ScheduledRunsEnabled: true,
		Schedule: &store.SignalsSchedule{Cron: "*/10 * * * *", Type: "CRON", Timezone: "Europe/Paris"}, NotificationSeverities: []string{"HIGH"},
		CreatedAt: t0, UpdatedAt: t0}
	if _, err := store.PutSignalsConfig(ctx, d.Table, cfg); err != nil {
		t.Fatal(err)
	}
	if err := store.SetSignalsScheduled(ctx, d.Table, store.SignalsScheduled{ConfigurationID: cfg.ID, OrgID: cfg.OrgID,
		ProjectID: cfg.ProjectID, RunID: cfg.RunID}, true); err != nil {
		t.Fatal(err)
	}
	tr := store.Trace{ID: uuid.NewString(), RunID: cfg.RunID, ProjectID: cfg.ProjectID, OrgID: cfg.OrgID,
		CreatedAt: t0.Add(-time.Minute), Type: "trace", Name: "t", IsComplete: true}
	if _, err := store.PutTraces(ctx, d.Table, []store.Trace{tr}); err != nil {
		t.Fatal(err)
	}

	model := &citeAll{}
	l := NewLocal(&d, model, inproc.Options{Clock: clock, Refresh: time.Hour})
	if d.Signals.StartWorker == nil || d.Signals.Schedules == nil {
		t.Fatal("NewLocal left the signals ports empty")
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = l.Run(runCtx) }()
	defer func() { stop(); <-done; l.Wait() }()

	wait := func(n int) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := clock.WaitCreated(wctx, n); err != nil {
			t.Fatalf("the scheduler did not go back to sleep (%d timers): %v", clock.Created(), err)
		}
	}
	wait(1)
	if clock.Set(t0.Add(7*time.Minute)) != 0 { // 07:09: nothing due
		t.Fatal("a timer fired before the first fire time")
	}
	clock.Set(t0.Add(8 * time.Minute)) // 07:10: the fire
	wait(2)
	l.Wait()
	runs, _, err := store.ListSignalsRuns(ctx, d.Table, cfg.RunID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 5, 6, 7, 10, 0, 0, time.UTC)
	if len(runs) != 1 || runs[0].Trigger != signals.TriggerScheduled || !runs[0].ScheduledTime.Equal(want) ||
		runs[0].State != store.SignalsSucceeded || runs[0].TracesRead != 1 || len(runs[0].FindingIDs) != 1 {
		t.Fatalf("runs after the fire: %+v", runs)
	}

	// The same fire again (an at-least-once redelivery) starts nothing.
	f, _ := json.Marshal(schedule.Fire{Target: signals.TargetOf(cfg), ScheduledTime: want})
	if err := l.Worker.Handle(ctx, f); err != nil {
		t.Fatal(err)
	}
	if runs, _, _ := store.ListSignalsRuns(ctx, d.Table, cfg.RunID, 0, 10); len(runs) != 1 || model.calls.Load() != 1 {
		t.Fatalf("a repeated fire started a run: %d runs, %d model calls", len(runs), model.calls.Load())
	}

	// The next fire, ten minutes on, reads no new trace: a run with no finding.
	clock.Set(t0.Add(18 * time.Minute))
	wait(3)
	l.Wait()
	runs, _, _ = store.ListSignalsRuns(ctx, d.Table, cfg.RunID, 0, 10)
	if len(runs) != 2 || runs[0].TracesRead != 0 || runs[0].NewCount != 0 || model.calls.Load() != 1 {
		t.Fatalf("second fire: %+v", runs[0])
	}
}
