package traces

import (
	"net/http"
	"slices"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// ingestResponse answers trace ingestion (the client's LogTracesIngestResponse), plus
// num_traces: how many of the request's traces it wrote (a retried trace already stored is
// not written again).
type ingestResponse struct {
	runIDs
	ProjectID    string   `json:"project_id"`
	ProjectName  string   `json:"project_name"`
	SessionID    *string  `json:"session_id"`
	RecordsCount int      `json:"records_count"`
	TracesCount  int      `json:"traces_count"`
	SpansCount   int      `json:"spans_count"`
	TraceIDs     []string `json:"trace_ids"`
	NumTraces    int      `json:"num_traces"`
}

// runIDs name the run of a logging answer, in the field the request used.
type runIDs struct {
	LogStreamID      *string `json:"log_stream_id"`
	ExperimentID     *string `json:"experiment_id"`
	MetricsTestingID *string `json:"metrics_testing_id"`
}

func runIDsOf(ref runRef) runIDs {
	var r runIDs
	id := ref.id
	switch ref.field {
	case "log_stream_id":
		r.LogStreamID = &id
	case "experiment_id":
		r.ExperimentID = &id
	}
	return r
}

// maxIngestBody caps an ingestion body at the payload of a synchronous Lambda invocation
// (6 MB, base64 included when API Gateway encodes it): 1000 traces need more than the
// default cap.
const maxIngestBody = 6 << 20

// ingest is POST /v2/projects/{project_id}/traces: the logging client's batch flush.
func (h *handlers) ingest(w http.ResponseWriter, r *http.Request) error {
	now := h.Now().UTC()
	call, err := base.Open(r, base.Opening{Body: true, Limit: maxIngestBody, Write: true},
		base.ByID("project_id", 4, func(errs *validate.Errors, raw any, present bool) ingestRequest {
			return readIngest(errs, raw, present, now)
		}))
	if err != nil {
		return err
	}
	q := call.In.Req
	var external *string // only a request naming no session by id reads the external id's
	if q.sessionID == nil {
		external = q.sessionExternalID
	}
	resolved := h.resolveSession(r.Context(), q.run.id, external)
	project, run, err := h.findProjectRun(r.Context(), call.Caller, call.In.ID, q.run)
	if err != nil {
		return err
	}
	session, described, err := h.requestSession(run, q.sessionID, q.sessionExternalID, resolved)
	if err != nil {
		return err
	}
	if session == nil && slices.ContainsFunc(q.traces, func(tr store.Trace) bool { return tr.SessionID == nil }) {
		// Traces logged without a session share one of their own, named by the first trace
		// (a retried request finds the same one): every trace belongs to a session.
		id := records.ImplicitSessionID(run.ID, q.traces[0].ID)
		session = &id
	}
	spans := 0
	for i := range q.traces {
		if session != nil && q.traces[i].SessionID == nil {
			q.traces[i].SessionID = session
		}
		spans += len(q.traces[i].Spans)
	}
	if err := h.offloadTraces(r.Context(), run, q.traces); err != nil {
		return err
	}
	n, err := records.IngestWithSessions(r.Context(), h.Table, run, q.traces, h.Now().UTC(), described)
	if err != nil {
		return writeError(err)
	}
	resp := ingestResponse{runIDs: runIDsOf(q.run), ProjectID: project.ID, ProjectName: project.Name, SessionID: session,
		RecordsCount: len(q.traces) + spans, TracesCount: len(q.traces), SpansCount: spans, NumTraces: n,
		TraceIDs: make([]string, len(q.traces))}
	// The ids are always listed, include_trace_ids or not: this API answered them before the
	// client's flag existed here, and the client's field takes a list.
	for i, tr := range q.traces {
		resp.TraceIDs[i] = tr.ID
	}
	httpapi.WriteJSON(w, http.StatusOK, resp)
	return nil
}
