package signals

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/evalobs/evalapi/shared/schedule"
)

// Worker is the signals worker's entry point (functions/signalsworker in the cloud, a
// goroutine in `make run`). Its input is one of three JSON objects:
//
//	{"org_id", "project_id", "run_id", "signals_run_id"}          a queued on-demand run (Job)
//	{"configuration_id", ..., "scheduled_time"}                     a schedule's fire (schedule.Fire)
//	{"reconcile": true}                                             repair every schedule from the table
type Worker struct {
	Runner    *Runner
	Schedules Schedules // nil: reconcile does nothing
	Lister    Lister    // the schedules that exist; nil: reconcile only writes
	Log       *slog.Logger
}

// Handle runs one input. An error makes the invoker retry (EventBridge Scheduler, Lambda's
// asynchronous retries); every kind of input is safe to run twice.
func (w *Worker) Handle(ctx context.Context, input json.RawMessage) error {
	var probe struct {
		Reconcile    bool   `json:"reconcile"`
		SignalsRunID string `json:"signals_run_id"`
	}
	if err := json.Unmarshal(input, &probe); err != nil {
		return fmt.Errorf("signals worker: input is not a JSON object: %w", err)
	}
	switch {
	case probe.Reconcile:
		if w.Schedules == nil {
			return nil
		}
		lister := w.Lister
		if lister == nil {
			lister = noNames{}
		}
		written, deleted, err := Reconcile(ctx, w.Runner.Table, w.Schedules, lister, time.Now())
		w.log().InfoContext(ctx, "signals: schedules reconciled", "written", written, "deleted", deleted)
		return err
	case probe.SignalsRunID != "":
		var j Job
		if err := json.Unmarshal(input, &j); err != nil {
			return fmt.Errorf("signals worker: reading a job: %w", err)
		}
		return w.Runner.RunJob(ctx, j)
	default:
		f, err := schedule.ParseFire(input)
		if err != nil {
			return err
		}
		return w.Runner.RunFire(ctx, f)
	}
}

func (w *Worker) log() *slog.Logger {
	if w.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Log
}

type noNames struct{}

func (noNames) Names(context.Context) ([]string, error) { return nil, nil }

// StartFunc adapts a function that hands a JSON input to the worker (an asynchronous Lambda
// invocation) to Starter.
type StartFunc func(ctx context.Context, input []byte) error

// Start sends the job as the worker's input.
func (f StartFunc) Start(ctx context.Context, j Job) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return f(ctx, b)
}

// ErrNoModel is what a run fails with on a host whose provider client is not wired.
var ErrNoModel = &runError{kind: "configuration_error", msg: "no model provider client is configured on this host"}

// NoModel is the Model of a host without a provider client: every run fails with a
// configuration_error, visible when read.
type NoModel struct{}

// Complete fails.
func (NoModel) Complete(context.Context, Completion) (Answer, error) { return Answer{}, ErrNoModel }
