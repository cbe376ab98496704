// Package traces serves trace ingestion (POST /v2/projects/{project_id}/traces) and the
// metrics search over a run's traces (operation 10, POST /v2/projects/{project_id}/metrics/search).
//
// Ingestion writes each trace into its run's partition in time order, and in the same
// request folds it into the run summary, the column summary and per-minute roll-ups. The
// search answers from the roll-ups when they can answer the query exactly, and otherwise
// scans the traces of the time range in one streaming pass.
package traces

import (
	"context"
	"errors"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/store"
)

// DefaultScanBound is the most traces one metrics search may scan.
const DefaultScanBound = 2_000_000

// Deps is what the group needs.
type Deps struct {
	base.Deps
	// ScanBound is the most traces a search may scan; zero is DefaultScanBound.
	ScanBound int64
	// RecordScanBound is the most records a record query may read; zero is
	// DefaultRecordScanBound.
	RecordScanBound int64
	// ExportLimit, when not zero, holds an export in memory up to that many bytes and
	// refuses a larger one with 413 (a Lambda's answer is buffered and capped).
	ExportLimit int64
	// AnswerLimit is the most bytes a record read or a search page answers; zero is
	// DefaultAnswerLimit (answer_size.go).
	AnswerLimit int
	// Payloads keeps contents above PayloadThreshold; nil is memory (tests).
	Payloads payload.Store
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	d = d.withDefaults("traces")
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/projects/{project_id}/traces", h.ingest, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/traces/{trace_id}", h.getTrace, d.Authenticate)
	rt.Handle("PATCH /v2/projects/{project_id}/traces/{trace_id}", h.patchTrace, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/spans", h.appendSpans, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/spans/{span_id}", h.getSpan, d.Authenticate)
	rt.Handle("PATCH /v2/projects/{project_id}/spans/{span_id}", h.patchSpan, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/sessions", h.createSession, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/sessions/{session_id}", h.getSession, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/traces/available_columns", h.availableColumns, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/spans/available_columns", h.spanColumns, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/sessions/available_columns", h.sessionColumns, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/traces/search", h.searchTraces, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/spans/search", h.searchSpans, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/sessions/search", h.searchSessions, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/traces/partial_search", h.partialSearchTraces, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/spans/partial_search", h.partialSearchSpans, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/sessions/partial_search", h.partialSearchSessions, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/traces/count", h.countTraces, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/spans/count", h.countSpans, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/sessions/count", h.countSessions, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/export_records", h.exportRecords, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/traces/delete", h.deleteTraces, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/sessions/delete", h.deleteSessions, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/metrics/search", h.search, d.Authenticate)
}

// RegisterOTLP mounts OTLP/HTTP trace ingestion (docs/OTEL.md) on rt: a function of its
// own (OtelFunction), so that the traces function does not carry the decoder and the
// conventions' mapping past the bootstrap size cap.
func RegisterOTLP(rt *httpapi.Router, d Deps) {
	h := &handlers{Deps: d.withDefaults("otel")}
	rt.Handle("POST /v2/otel/traces", h.otelTraces, d.Authenticate)
	rt.Handle("POST /v1/traces", h.otelTraces, d.Authenticate)
}

func (d Deps) withDefaults(group string) Deps {
	d.Deps = d.Deps.WithDefaults(group)
	if d.ScanBound == 0 {
		d.ScanBound = DefaultScanBound
	}
	if d.RecordScanBound == 0 {
		d.RecordScanBound = DefaultRecordScanBound
	}
	if d.AnswerLimit == 0 {
		d.AnswerLimit = DefaultAnswerLimit
	}
	if d.Payloads == nil {
		d.Payloads = payload.NewMemory()
	}
	return d
}

type handlers struct{ Deps }

// runRef is the run a request names, and which field named it.
type runRef struct {
	field, id string
}

var runFieldResource = map[string]string{
	"log_stream_id":      "Log stream",
	"experiment_id":      "Experiment",
	"metrics_testing_id": "Metrics testing run",
}

var runFieldKind = map[string]string{
	"log_stream_id": store.RunLogStream,
	"experiment_id": store.RunExperiment,
}

// findRun reads the project and the run the request names at once (one wave of reads),
// answering 404 for whichever is missing or of another organization, the project first.
func (h *handlers) findRun(ctx context.Context, c auth.Caller, projectID string, ref runRef) (store.Run, error) {
	_, run, err := h.findProjectRun(ctx, c, projectID, ref)
	return run, err
}

// findProjectRun is findRun that also answers the project.
func (h *handlers) findProjectRun(ctx context.Context, c auth.Caller, projectID string, ref runRef) (store.Project, store.Run, error) {
	type got struct {
		p   store.Project
		err error
	}
	project := make(chan got, 1)
	go func() {
		p, err := store.GetProject(ctx, h.Table, c.OrgID, projectID)
		project <- got{p, err}
	}()
	run, err := store.GetRun(ctx, h.Table, c.OrgID, projectID, ref.id)
	pg := <-project
	if errors.Is(pg.err, store.ErrNotFound) {
		return store.Project{}, store.Run{}, httpapi.NotFound("Project")
	} else if pg.err != nil {
		return store.Project{}, store.Run{}, pg.err
	}
	if errors.Is(err, store.ErrNotFound) || (err == nil && run.Kind != runFieldKind[ref.field]) {
		return store.Project{}, store.Run{}, httpapi.NotFound(runFieldResource[ref.field])
	}
	return pg.p, run, err
}
