// Package signals serves the signals configuration of a run (operation 13): which model
// looks for signals in a log stream's or an experiment's traces, what it should focus on,
// and, for a log stream only, when it runs and which severities notify. It also runs the
// analyses (Runner, the worker of both hosts) and serves their runs and findings
// (docs/SIGNALS.md).
package signals

import (
	"context"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/secrets"
)

// Deps is what the group needs.
type Deps struct {
	base.Deps
	// Secrets keeps the webhook keys; nil refuses a webhook_secret (tests without one).
	Secrets secrets.Store
	// Start hands a queued on-demand run to the worker; nil refuses on-demand runs (503).
	Start Starter
	// Schedules keeps one schedule per configuration; nil: no schedule is kept (the local
	// scheduler reads the table itself, see Wake).
	Schedules Schedules
	// CheckWebhookURL refuses a webhook URL the service must not call (the SSRF rules of
	// provider endpoints); nil accepts any absolute http(s) URL.
	CheckWebhookURL func(string) error
}

// Starter hands a queued run to the worker: in the cloud an asynchronous invocation of the
// signals worker, locally a goroutine.
type Starter interface {
	Start(ctx context.Context, j Job) error
}

// Schedules is the scheduler port: it makes the schedule called name be cs (present) or
// not exist. ebscheduler.Schedules is the cloud's; the local host's wakes its scheduler.
type Schedules interface {
	Sync(ctx context.Context, name string, cs schedule.CloudSchedule, present bool) error
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	d.Deps = d.Deps.WithDefaults("signals")
	h := &handlers{Deps: d, runner: &Runner{Table: d.Table, Now: d.Now, Log: d.Log}}
	const root = "/v2/projects/{project_id}/runs/{run_id}/signals"
	rt.Handle("PUT "+root+"/configuration", h.put, d.Authenticate)
	rt.Handle("GET "+root+"/configuration", h.get, d.Authenticate)
	rt.Handle("DELETE "+root+"/configuration", h.deleteConfig, d.Authenticate)
	rt.Handle("POST "+root+"/runs", h.startRun, d.Authenticate)
	rt.Handle("GET "+root+"/runs", h.listRuns, d.Authenticate)
	rt.Handle("GET "+root+"/runs/{signals_run_id}", h.getRun, d.Authenticate)
	rt.Handle("GET "+root+"/findings", h.listFindings, d.Authenticate)
	rt.Handle("POST "+root+"/findings/{finding_id}/acknowledge", h.acknowledge, d.Authenticate)
}

type handlers struct {
	Deps
	runner *Runner
}
