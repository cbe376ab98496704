package experiments

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Running an experiment (beyond the specification; docs/EXPERIMENTS.md): a start creates a
// job that the workers run over the dataset's rows; the job can be read, cancelled and its
// failed rows retried.

// jobResponse is a job as the routes answer it.
type jobResponse struct {
	ID              string           `json:"id"`
	ExperimentID    string           `json:"experiment_id"`
	ProjectID       string           `json:"project_id"`
	State           string           `json:"state"`
	Attempt         int64            `json:"attempt"`
	RowsTotal       int64            `json:"rows_total"`
	RowsDone        int64            `json:"rows_done"`
	RowsFailed      int64            `json:"rows_failed"`
	ProgressPercent int64            `json:"progress_percent"`
	ErrorsByType    map[string]int64 `json:"errors_by_type"`
	TokenEstimate   int64            `json:"token_estimate"`
	TokenBudget     *int64           `json:"token_budget"`
	TokensUsed      int64            `json:"tokens_used"`
	Scoring         scoringProgress  `json:"scoring"`
	CreatedAt       time.Time        `json:"created_at"`
	UpdatedAt       time.Time        `json:"updated_at"`
}

// scoringProgress is how far the evaluator got: a row counts as scored once every scorer
// has a value or an error on its trace (the run summary's count of the scorer's metric).
type scoringProgress struct {
	Scorers         []string `json:"scorers"`
	RowsScored      int64    `json:"rows_scored"`
	ProgressPercent int64    `json:"progress_percent"`
}

func jobOut(j store.ExperimentJob, sum store.RunSummary) jobResponse {
	out := jobResponse{ID: j.ID, ExperimentID: j.ExperimentID, ProjectID: j.ProjectID, State: j.State, Attempt: j.Attempt,
		RowsTotal: j.Total, RowsDone: j.Done, RowsFailed: j.Failed, ProgressPercent: exprun.Progress(j),
		ErrorsByType: j.Errors, TokenEstimate: j.Plan.TokenEstimate, TokensUsed: j.Tokens,
		Scoring: scoringProgress{Scorers: j.Plan.ScorerNames}, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt}
	if out.ErrorsByType == nil {
		out.ErrorsByType = map[string]int64{}
	}
	if out.Scoring.Scorers == nil {
		out.Scoring.Scorers = []string{}
	}
	if j.Plan.TokenBudget > 0 {
		b := j.Plan.TokenBudget
		out.TokenBudget = &b
	}
	if len(j.Plan.ScorerNames) > 0 {
		scored := j.Done
		for _, name := range j.Plan.ScorerNames {
			scored = min(scored, sum.Metrics[name].Count)
		}
		out.Scoring.RowsScored = scored
		if j.Done > 0 {
			out.Scoring.ProgressPercent = scored * 100 / j.Done
		}
	}
	return out
}

// experimentRef names an experiment (and one of its jobs) by the path.
type experimentRef struct {
	projectID, id, jobID string
}

// readExperimentPath reads the path of one experiment.
func readExperimentPath(in *base.Input) (ref experimentRef) {
	ref.projectID, _ = in.Path("project_id").UUID(4)
	ref.id, _ = in.Path("experiment_id").UUID(4)
	return ref
}

// experiment reads the experiment ref names of the caller's project.
func (h *handlers) experiment(ctx context.Context, c auth.Caller, ref experimentRef) (store.Experiment, error) {
	if _, err := h.Project(ctx, c, ref.projectID); err != nil {
		return store.Experiment{}, err
	}
	e, err := store.GetExperiment(ctx, h.Table, c.OrgID, ref.projectID, ref.id)
	if errors.Is(err, store.ErrNotFound) {
		return e, httpapi.NotFound("Experiment")
	}
	return e, err
}

// startJob starts a job of e and maps the runner's refusals to the error contract.
func (h *handlers) startJob(ctx context.Context, c auth.Caller, e store.Experiment, budget int64) (store.ExperimentJob, error) {
	return h.startRequest(ctx, exprun.StartRequest{UserID: c.UserID, Experiment: e, Messages: e.PromptMessages, TokenBudget: budget})
}

// startRequest starts the job req asks for and maps the runner's refusals to the error
// contract; nothing is written when it refuses.
func (h *handlers) startRequest(ctx context.Context, req exprun.StartRequest) (store.ExperimentJob, error) {
	if h.Runs == nil || h.Runs.Queue == nil {
		return store.ExperimentJob{}, httpapi.Unavailable("Experiments cannot be run by this deployment (no queue)")
	}
	j, err := h.Runs.Start(ctx, req)
	var p *exprun.Problem
	switch {
	case errors.As(err, &p):
		return j, validate.Single(validate.ValueError(p.Loc, nil, p.Msg))
	case errors.Is(err, exprun.ErrJobActive):
		return j, httpapi.Conflict("The experiment has a job queued or running; cancel it first")
	case errors.Is(err, exprun.ErrChanged):
		return j, httpapi.Conflict("The experiment changed while the job was starting; send the request again")
	case errors.Is(err, exprun.ErrGone):
		return j, httpapi.NotFound("Experiment") // deleted since it was read
	}
	return j, err
}

// start is POST /v2/projects/{project_id}/experiments/{experiment_id}/start: a new job over
// the experiment's dataset (body optional: token_budget).
func (h *handlers) start(w http.ResponseWriter, r *http.Request) error {
	type startIn struct {
		ref    experimentRef
		budget int64
	}
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (x startIn) {
		// The body before the path: its problems come first in the 422 (as they always did).
		if in.Present && in.Raw != nil {
			if o, ok := in.Body().Object(); ok {
				x.budget, _ = o.Get("token_budget").Nullable().Int(validate.Ge(1))
			}
		}
		x.ref = readExperimentPath(in)
		return x
	})
	if err != nil {
		return err
	}
	c, budget, ctx := call.Caller, call.In.budget, r.Context()
	e, err := h.experiment(ctx, c, call.In.ref)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	j, err := h.startJob(ctx, c, e, budget)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, jobOut(j, store.RunSummary{}))
	return nil
}

// job is the opening of the job routes (base.Open) and their access step: the path's job
// of the path's experiment, with the project, the experiment, the job and the run summary
// read at once (one wave).
func (h *handlers) job(r *http.Request) (store.ExperimentJob, store.RunSummary, auth.Caller, error) {
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) experimentRef {
		ref := readExperimentPath(in)
		ref.jobID, _ = in.Path("job_id").UUID(4)
		return ref
	})
	if err != nil {
		return store.ExperimentJob{}, store.RunSummary{}, call.Caller, err
	}
	c, projectID, expID, jobID := call.Caller, call.In.projectID, call.In.id, call.In.jobID
	var j store.ExperimentJob
	var sums map[string]store.RunSummary
	// Each read returns its error: the first that is not a cancellation is answered.
	err = base.Concurrently(r.Context(),
		func(ctx context.Context) error { _, err := h.Project(ctx, c, projectID); return err },
		func(ctx context.Context) error {
			_, err := store.GetExperiment(ctx, h.Table, c.OrgID, projectID, expID)
			if errors.Is(err, store.ErrNotFound) {
				return httpapi.NotFound("Experiment")
			}
			return err
		},
		func(ctx context.Context) (err error) {
			j, err = store.GetExperimentJob(ctx, h.Table, c.OrgID, jobID)
			if errors.Is(err, store.ErrNotFound) || (err == nil && j.ExperimentID != expID) {
				return httpapi.NotFound("Job")
			}
			return err
		},
		func(ctx context.Context) (err error) {
			sums, err = store.GetRunSummaries(ctx, h.Table, []string{expID})
			return err
		})
	if err != nil {
		return j, store.RunSummary{}, c, err
	}
	return j, sums[expID], c, err
}

// getJob is GET /v2/projects/{project_id}/experiments/{experiment_id}/jobs/{job_id}.
func (h *handlers) getJob(w http.ResponseWriter, r *http.Request) error {
	j, sum, _, err := h.job(r)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, jobOut(j, sum))
	return nil
}

// cancelJob is POST .../jobs/{job_id}/cancel: no new provider call starts later than one
// chunk after; an ended job is answered as it is.
func (h *handlers) cancelJob(w http.ResponseWriter, r *http.Request) error {
	j, sum, c, err := h.job(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	svc := h.service()
	if j, err = svc.Cancel(ctx, c.OrgID, j.ID); err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, jobOut(j, sum)) // the summary as read with the job
	return nil
}

// retryJob is POST .../jobs/{job_id}/retry: the rows not done run again, never a good one.
func (h *handlers) retryJob(w http.ResponseWriter, r *http.Request) error {
	j, sum, c, err := h.job(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	if h.Runs == nil || h.Runs.Queue == nil {
		return httpapi.Unavailable("Experiments cannot be run by this deployment (no queue)")
	}
	j, err = h.Runs.Retry(ctx, c.OrgID, j.ID)
	if errors.Is(err, exprun.ErrNotRetryable) {
		return httpapi.Conflict("The job is queued or running, or every row is done")
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, jobOut(j, sum))
	return nil
}

// service is the runner service over the group's table (cancel needs no queue).
func (h *handlers) service() *exprun.Service {
	if h.Runs != nil {
		return h.Runs
	}
	return &exprun.Service{Table: h.Table, Now: h.Now}
}
