// Package signalscloud is the signals functions' AWS side: the API function starts runs in
// the worker function (an asynchronous Lambda invocation) and keeps the configurations'
// EventBridge Scheduler schedules; the worker puts findings on an EventBridge bus. It is
// apart from signalsworker so that the local host, which runs the same worker in-process,
// links none of it (the Scheduler's SDK types bring their endpoint tables and initialiser).
package signalscloud

import (
	"context"
	"encoding/json"
	"os"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/signalsworker"
	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/schedule/ebscheduler"
	"github.com/evalobs/evalapi/shared/signals"
)

// Environment of the signals functions (template.yaml sets them).
const (
	EnvWorkerARN     = "SIGNALS_WORKER_ARN"     // the worker function the API invokes and the schedules target
	EnvSchedulerRole = "SIGNALS_SCHEDULER_ROLE" // the role EventBridge Scheduler assumes (may invoke only the worker)
	EnvScheduleGroup = "SIGNALS_SCHEDULE_GROUP" // the stack's schedule group
	EnvEventBus      = "SIGNALS_EVENT_BUS"      // the bus findings go to; "" is "default"
)

// EventSource and EventDetailType name the findings put on the EventBridge bus.
const (
	EventSource     = "evalapi.signals"
	EventDetailType = notify.EventTypeFinding
)

// CloudPorts fills the API function's signals ports at its cold start (app.OnColdStart):
// start a run in the worker, keep the schedules. The API function never runs a run itself,
// so it links neither the runner, the publishers nor a provider client.
func CloudPorts(d *app.Deps, getenv func(string) string) error {
	awsCfg, err := app.LambdaAWSConfig(getenv)
	if err != nil {
		return err
	}
	_, err = cloudPorts(d, getenv, newRawAWS(awsCfg))
	return err
}

// Cloud fills d's signals ports from the environment (the API function: start the worker,
// keep the schedules) and returns the worker (the worker function), whose runs ask model
// (signalsworker.Model(d) in the worker function).
func Cloud(d *app.Deps, getenv func(string) string, model signals.Model) (*signals.Worker, error) {
	awsCfg, err := app.LambdaAWSConfig(getenv)
	if err != nil {
		return nil, err
	}
	raw := newRawAWS(awsCfg)
	bus := &EventBridge{raw: raw, Bus: getenv(EnvEventBus)}
	r := signalsworker.Runner(*d, model, signalsworker.Publisher(*d, bus))
	sch, err := cloudPorts(d, getenv, raw)
	if err != nil || sch == nil {
		return &signals.Worker{Runner: r, Log: d.Log}, err
	}
	return &signals.Worker{Runner: r, Schedules: sch, Lister: sch, Log: d.Log}, nil
}

// cloudPorts sets d's ports to start the worker and to keep the schedules; nil when the
// environment names no worker (a bare start of the binary: on-demand runs and schedules off).
func cloudPorts(d *app.Deps, getenv func(string) string, raw *rawAWS) (*ebscheduler.Schedules, error) {
	workerARN := getenv(EnvWorkerARN)
	if workerARN == "" {
		d.Log.Warn("signals: " + EnvWorkerARN + " is not set; on-demand runs and schedules are off")
		return nil, nil
	}
	d.Signals.StartWorker = func(ctx context.Context, input []byte) error { return raw.invokeAsync(ctx, workerARN, input) }
	sch, err := ebscheduler.New(rawScheduler{raw}, ebscheduler.Config{GroupName: getenv(EnvScheduleGroup),
		TargetARN: workerARN, RoleARN: getenv(EnvSchedulerRole)})
	if err != nil {
		return nil, err
	}
	d.Signals.Schedules = sch
	return sch, nil
}

// WorkerLambda is the handler of the signals worker function (functions/signalsworker), which
// its main gives to lambda.Start: Cloud's worker over the function's cold-start dependencies,
// its runs asking signalsworker.Model. A bad environment ends the process (app.FailInit).
func WorkerLambda() func(ctx context.Context, input json.RawMessage) error {
	d := app.ColdStart()
	w, err := Cloud(&d, os.Getenv, signalsworker.Model(d))
	if err != nil {
		app.FailInit(d.Log, err)
	}
	return w.Handle
}
