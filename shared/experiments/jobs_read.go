package experiments

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// The original client's job reads (GET /jobs/{job_id}, GET /projects/{pid}/runs/{run_id}/jobs)
// over the jobs this service runs: experiment jobs (shared/exprun) and the evaluate jobs of
// log streams, each projected as the client's JobDB. docs/EXPERIMENTS.md maps the states.

// Job names, as the original's clients name the work.
const (
	jobPlaygroundRun = "playground_run"    // an experiment's prompt over its dataset
	jobLogStreamEval = "log_stream_scorer" // scorers over a log stream's traces
)

// jobDB is the client's JobDB.
type jobDB struct {
	ID                string         `json:"id"`
	CreatedAt         time.Time      `json:"created_at"`
	UpdatedAt         time.Time      `json:"updated_at"`
	FailedAt          *time.Time     `json:"failed_at"`
	CompletedAt       *time.Time     `json:"completed_at"`
	ProcessingStarted *time.Time     `json:"processing_started"`
	JobName           string         `json:"job_name"`
	MigrationName     *string        `json:"migration_name"`
	ProjectID         string         `json:"project_id"`
	RunID             string         `json:"run_id"`
	MonitorBatchID    *string        `json:"monitor_batch_id"`
	Status            string         `json:"status"`
	Retries           int64          `json:"retries"`
	RequestData       map[string]any `json:"request_data"`
	ErrorMessage      *string        `json:"error_message"`
	ProgressMessage   *string        `json:"progress_message"`
	StepsCompleted    int64          `json:"steps_completed"`
	StepsTotal        int64          `json:"steps_total"`
	ProgressPercent   float64        `json:"progress_percent"`
}

// experimentJobStatus maps an experiment job's state to the original's job status.
var experimentJobStatus = map[string]string{
	store.JobQueued: "unstarted", store.JobRunning: "in_progress", store.JobCompleted: "completed",
	store.JobFailed: "failed", store.JobCancelled: "cancelled",
}

func experimentJobDB(j store.ExperimentJob) jobDB {
	out := jobDB{ID: j.ID, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, JobName: jobPlaygroundRun,
		ProjectID: j.ProjectID, RunID: j.ExperimentID, Status: experimentJobStatus[j.State], Retries: j.Attempt - 1,
		RequestData: map[string]any{"dataset_id": j.Plan.DatasetID, "dataset_version_index": j.Plan.DatasetVersion,
			"model_alias": j.Plan.Model, "scorer_ids": nonNil(j.Plan.ScorerIDs)},
		StepsCompleted: j.Done + j.Failed, StepsTotal: j.Total, ProgressPercent: float64(exprun.Progress(j))}
	if out.Retries < 0 {
		out.Retries = 0
	}
	ended := j.UpdatedAt
	switch j.State {
	case store.JobFailed:
		out.FailedAt = &ended
		msg := fmt.Sprintf("%d of %d rows failed", j.Failed, j.Total)
		out.ErrorMessage = &msg
	case store.JobCompleted:
		out.CompletedAt = &ended
	}
	if j.State != store.JobQueued {
		started := j.CreatedAt
		out.ProcessingStarted = &started
	}
	msg := fmt.Sprintf("%d of %d rows done, %d failed", j.Done, j.Total, j.Failed)
	out.ProgressMessage = &msg
	return out
}

func evalJobDB(j store.EvalJob) jobDB {
	status := "in_progress"
	var completed *time.Time
	if j.Status == store.EvalJobDispatched && j.Done >= j.Sent {
		status = "completed"
		at := j.CreatedAt
		completed = &at
	}
	started := j.CreatedAt
	pct := 0.0
	if j.Sent > 0 {
		pct = float64(min(j.Done, j.Sent)) * 100 / float64(j.Sent)
	} else if status == "completed" {
		pct = 100
	}
	msg := fmt.Sprintf("%d traces scanned, %d judgments sent, %d done", j.Scanned, j.Sent, j.Done)
	return jobDB{ID: j.ID, CreatedAt: j.CreatedAt, UpdatedAt: j.CreatedAt, CompletedAt: completed, ProcessingStarted: &started,
		JobName: jobLogStreamEval, ProjectID: j.ProjectID, RunID: j.RunID, Status: status,
		RequestData:     map[string]any{"start_time": j.Start, "end_time": j.End, "scorer_ids": nonNil(j.ScorerIDs)},
		ProgressMessage: &msg, StepsCompleted: j.Done, StepsTotal: j.Sent, ProgressPercent: pct}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// getAnyJob is GET /v2/jobs/{job_id}: an experiment job of the caller's organization, else
// an evaluate job found through its pointer (an evaluate job stored before pointers is
// found once the same evaluate request is made again; until then 404: docs/EXPERIMENTS.md).
func (h *handlers) getAnyJob(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, base.PathID("job_id", 4))
	if err != nil {
		return err
	}
	ctx, org := r.Context(), call.Caller.OrgID
	j, err := store.GetExperimentJob(ctx, h.Table, org, call.In)
	if err == nil {
		httpapi.WriteJSON(w, http.StatusOK, experimentJobDB(j))
		return nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	ej, err := store.EvalJobByID(ctx, h.Table, org, call.In)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Job")
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, evalJobDB(ej))
	return nil
}

// runJobs is GET /v2/projects/{project_id}/runs/{run_id}/jobs (?status= keeps the jobs of
// that status): every job of an experiment, or a log stream's evaluate jobs, newest first.
func (h *handlers) runJobs(w http.ResponseWriter, r *http.Request) error {
	type in struct{ projectID, runID, status string }
	call, err := base.Open(r, base.Opening{}, func(i *base.Input) (x in) {
		x.projectID, _ = i.Path("project_id").UUID(4)
		x.runID, _ = i.Path("run_id").UUID(4)
		x.status, _ = i.Query("status").String()
		return x
	})
	if err != nil {
		return err
	}
	c, q, ctx := call.Caller, call.In, r.Context()
	if _, err := h.Project(ctx, c, q.projectID); err != nil {
		return err
	}
	var out []jobDB
	e, err := store.GetExperiment(ctx, h.Table, c.OrgID, q.projectID, q.runID)
	switch {
	case err == nil:
		jobs, err := store.ExperimentJobs(ctx, h.Table, c.OrgID, e)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			out = append(out, experimentJobDB(j))
		}
	case errors.Is(err, store.ErrNotFound):
		if _, err := store.GetLogStream(ctx, h.Table, c.OrgID, q.projectID, q.runID); errors.Is(err, store.ErrNotFound) {
			return httpapi.NotFound("Run")
		} else if err != nil {
			return err
		}
		jobs, err := store.RunEvalJobs(ctx, h.Table, c.OrgID, q.runID)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			out = append(out, evalJobDB(j))
		}
	default:
		return err
	}
	out = slices.DeleteFunc(out, func(j jobDB) bool { return q.status != "" && j.Status != q.status })
	slices.SortStableFunc(out, func(a, b jobDB) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if out == nil {
		out = []jobDB{}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
