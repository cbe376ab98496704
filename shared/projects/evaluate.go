package projects

import (
	"net/http"
	"slices"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Evaluate jobs (beyond the specification, issue 16 point 8): score the traces a log stream
// already holds in [start_time, end_time) with some of its scorers. The job is the same for
// the same range and scorers (its id is their digest), so asking again answers the job
// already there; each (trace, scorer version) is judged once whatever the jobs (claims).
// The work is done by the evaluation pipeline (shared/evaluate), a page of traces at a time.

// Bounds of one request.
const (
	maxEvalRange   = 31 * 24 * time.Hour
	maxEvalScorers = 20
)

// evalJobOut is the answer of both operations.
type evalJobOut struct {
	ID          string    `json:"id"`
	ProjectID   string    `json:"project_id"`
	LogStreamID string    `json:"log_stream_id"`
	StartTime   time.Time `json:"start_time"`
	EndTime     time.Time `json:"end_time"`
	ScorerIDs   []string  `json:"scorer_ids"`
	Status      string    `json:"status"` // running | completed
	Scanned     int64     `json:"traces_scanned"`
	Dispatched  int64     `json:"judgments_dispatched"`
	Done        int64     `json:"judgments_done"`
	CreatedAt   time.Time `json:"created_at"`
}

func evalJobOf(j store.EvalJob) evalJobOut {
	status := "running"
	if j.Status == store.EvalJobDispatched && j.Done >= j.Sent {
		status = "completed"
	}
	return evalJobOut{ID: j.ID, ProjectID: j.ProjectID, LogStreamID: j.RunID, StartTime: j.Start, EndTime: j.End,
		ScorerIDs: j.ScorerIDs, Status: status, Scanned: j.Scanned, Dispatched: j.Sent, Done: j.Done, CreatedAt: j.CreatedAt}
}

// evaluateRequest is the body of an evaluation of a log stream's traces.
type evaluateRequest struct {
	start, end time.Time
	scorerIDs  []string
}

func readEvaluate(errs *validate.Errors, raw any, present bool) (req evaluateRequest) {
	body, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return req
	}
	req.start, _ = body.Get("start_time").Required().Datetime()
	req.end, _ = body.Get("end_time").Required().Datetime()
	items, _ := body.Get("scorer_ids").Required().List()
	for _, it := range items {
		if id, ok := it.UUID(0); ok {
			req.scorerIDs = append(req.scorerIDs, id)
		}
	}
	if items != nil && (len(items) == 0 || len(items) > maxEvalScorers) {
		body.Get("scorer_ids").Fail("between 1 and 20 scorer ids")
	}
	if start, end := req.start, req.end; !start.IsZero() && !end.IsZero() && (!end.After(start) || end.Sub(start) > maxEvalRange) {
		body.Get("end_time").Fail("end_time must be after start_time, at most 31 days later")
	}
	return req
}

// evaluate is POST .../log_streams/{log_stream_id}/evaluate.
func (h *handlers) evaluate(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, onLogStream(readEvaluate))
	if err != nil {
		return err
	}
	c, projectID, req := call.Caller, call.In.projectID, call.In.req
	start, end, scorerIDs := req.start, req.end, req.scorerIDs
	ls, err := h.findLogStream(r.Context(), c, projectID, call.In.id)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	for i, id := range scorerIDs {
		if !slices.ContainsFunc(ls.Scorers, func(sc store.ScorerConfig) bool { return sc.ID == id }) {
			return validate.Single(validate.ValueError([]any{"body", "scorer_ids", i}, id, "the scorer is not in the log stream's metric settings"))
		}
	}
	slices.Sort(scorerIDs)
	scorerIDs = slices.Compact(scorerIDs)
	job := store.EvalJob{ID: store.EvalJobID(ls.ID, start, end, scorerIDs), OrgID: c.OrgID, ProjectID: projectID, RunID: ls.ID,
		Start: start.UTC(), End: end.UTC(), ScorerIDs: scorerIDs, CreatedBy: c.UserID, CreatedAt: h.Stamp(),
		Status: store.EvalJobDispatching}
	got, _, err := store.CreateEvalJob(r.Context(), h.Table, job)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, evalJobOf(got))
	return nil
}

// getEvaluateJob is GET .../log_streams/{log_stream_id}/evaluate/{job_id}: the job's progress.
func (h *handlers) getEvaluateJob(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) (x onStream[string]) {
		p := logStreamPath(in)
		x.projectID, x.id = p.projectID, p.id
		x.req, _ = in.Path("job_id").UUID(0)
		return x
	})
	if err != nil {
		return err
	}
	c := call.Caller
	ls, err := h.findLogStream(r.Context(), c, call.In.projectID, call.In.id)
	if err != nil {
		return err
	}
	j, err := store.GetEvalJob(r.Context(), h.Table, c.OrgID, ls.ID, call.In.req)
	if isNotFound(err) {
		return httpapi.NotFound("Evaluate job")
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, evalJobOf(j))
	return nil
}
