// Package app is the composition root shared by the three hosts of the service: the Lambda
// functions (functions/*), the local API (infra/local) and the event runner (infra/invoke).
// It reads the configuration, builds the dependencies once per process (per cold start in
// Lambda) and mounts operation groups on one httpapi.Router, so that no code path exists in
// only one host.
//
// Operation groups do not import app: each takes a Deps of its own embedding shared/base's,
// which Deps.Base fills. The table of groups lives in the subpackage groups, which imports
// app and every group; the local hosts' storage lives in the subpackage local, which the
// Lambda functions do not link (infra's architecture test holds both).
//
// Functions are grouped by resource family: one HTTP function per first path segment after
// the version prefix (for /v2/projects/{project_id}/<family>/..., the <family> segment; a
// project itself and its log streams are the projects family, its metrics, spans, sessions
// and exports the traces (observability) family, a run's signals the signals family; login, tokens, users, API keys and groups the
// identity family), and one function per background worker (functions/stream reads the
// table's stream). docs/routes.md lists every route with its handler and function.
package app

import (
	"context"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/evalobs/evalapi/shared/exprun"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// Deps are what operation handlers are built from. Every field is safe for concurrent use
// and lives as long as the process.
type Deps struct {
	Config  Config
	Table   store.Table
	Secrets secrets.Store
	// Payloads keeps record contents too large for the table (S3 in the cloud, the data
	// directory locally, memory in tests).
	Payloads payload.Store
	Log      *slog.Logger
	Now      func() time.Time
	// Auth authenticates requests: its Authenticate middleware guards every operation but
	// the healthcheck, the login routes and the refresh exchange.
	Auth *auth.Service
	// ExperimentQueue carries experiment chunks to the runner (SQS in the cloud, in-process
	// locally); nil: experiments cannot be started (503).
	ExperimentQueue exprun.Queue

	// Signals are the host's ports of the signals group (nil: the host has none; on-demand
	// runs answer 503 and no schedule is kept). Only the hosts that run signals set them
	// (functions/signals, infra/local), so that other functions link no scheduler client.
	Signals SignalsPorts
}

// SignalsPorts are what a host gives the signals group beyond the table and the secrets.
type SignalsPorts struct {
	// StartWorker hands a JSON input to the signals worker, asynchronously.
	StartWorker func(ctx context.Context, input []byte) error
	// Schedules keeps one EventBridge Scheduler schedule per configuration (the cloud), or
	// wakes the in-process scheduler (`make run`).
	Schedules interface {
		Sync(ctx context.Context, name string, cs schedule.CloudSchedule, present bool) error
	}
}

// Base is what every operation group takes (shared/base), from d.
func (d Deps) Base() base.Deps {
	return base.Deps{Table: d.Table, Authenticate: d.Auth.Authenticate, Now: d.Now, Log: d.Log}
}

// Register mounts one operation group's routes on rt.
type Register func(rt *httpapi.Router, d Deps)

// Group is a named operation group: the routes one Lambda function serves.
type Group struct {
	Name string
	// Roots are the paths, without /v2, under which the group's routes lie
	// ("/datasets", "/projects/{project_id}/experiments"); see OwnerOf.
	Roots    []string
	Register Register
}

// HealthcheckPattern is the one route every host answers without credentials.
const HealthcheckPattern = "GET /v2/healthcheck"

// NewRouter returns a router with the healthcheck and the routes of every register. Each
// route is registered once: two groups registering one pattern is a programming error
// that panics at start (net/http.ServeMux's rule).
func NewRouter(d Deps, registers ...Register) *httpapi.Router {
	rt := httpapi.NewRouter(d.Log)
	rt.Handle(HealthcheckPattern, healthcheck)
	for _, register := range registers {
		register(rt, d)
	}
	return rt
}

// healthcheck says the process answers, in the original's HealthcheckResponse shape
// (api_version, message, version, all required by its clients). It touches no dependency:
// API Gateway and load tests call it often, and a liveness probe that costs a DynamoDB
// read per call would also report the table's health as the function's.
func healthcheck(w http.ResponseWriter, _ *http.Request) error {
	httpapi.WriteJSON(w, http.StatusOK, Health)
	return nil
}

// HealthResponse is the healthcheck's answer.
type HealthResponse struct {
	APIVersion string `json:"api_version"`
	Message    string `json:"message"`
	Version    string `json:"version"`
}

// Health is what the healthcheck answers: the API version of the paths (§9), and the
// build's version control revision (12 characters; "dev" for a build without one).
var Health = HealthResponse{APIVersion: "v2", Message: "ok", Version: buildRevision()}

func buildRevision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return s.Value[:12]
		}
	}
	return "dev"
}
