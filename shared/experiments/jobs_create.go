package experiments

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// runnableJobs are the job names POST /jobs runs: the original client's run_experiment
// sends playground_run to run a prompt template over a dataset. Every other name (the
// client's default log_stream_scorer among them: a log stream is scored with POST
// .../log_streams/{id}/evaluate) is a 422 naming these.
var runnableJobs = []string{jobPlaygroundRun}

// createJobRequest is the part of the client's CreateJobRequest the service reads; the
// other fields are accepted and ignored.
type createJobRequest struct {
	projectID, runID, jobName string
	datasetID                 string
	versionIndex              *int64
	templateVersionID         string
	settings                  map[string]any
	scorers                   []store.ScorerConfig
	scorersSent               bool
	raw                       map[string]any
}

func readCreateJob(in *base.Input) (req createJobRequest) {
	o, ok := in.Body().Required().Object()
	if !ok {
		return req
	}
	req.raw, _ = in.Raw.(map[string]any)
	req.projectID, _ = o.Get("project_id").Required().UUID(4)
	req.runID, _ = o.Get("run_id").Required().UUID(4)
	req.jobName = "log_stream_scorer" // the client document's default
	if name, ok := o.Get("job_name").String(); ok {
		req.jobName = name
	}
	req.datasetID, _ = o.Get("dataset_id").Nullable().UUID(4)
	if n, ok := o.Get("dataset_version_index").Nullable().Int(validate.Ge(0)); ok {
		req.versionIndex = &n
	}
	req.templateVersionID, _ = o.Get("prompt_template_version_id").Nullable().UUID(4)
	req.settings = readRunSettings(o.Get("prompt_settings"))
	if v := o.Get("scorers"); v.Present() && !v.IsNull() {
		req.scorers, req.scorersSent = readScorers(v), true
	}
	if req.jobName != jobPlaygroundRun {
		o.Get("job_name").Fail(fmt.Sprintf("this service runs only the jobs %s; a log stream is scored with POST /v2/projects/{project_id}/log_streams/{log_stream_id}/evaluate",
			strings.Join(runnableJobs, ", ")))
	}
	return req
}

// createJob is POST /v2/jobs (the original client's CreateJobRequest) for playground_run: the
// experiment run_id of project project_id takes the dataset, template version, settings and
// scorers sent, and a job of it starts as POST .../experiments/{id}/start starts one.
func (h *handlers) createJob(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, readCreateJob)
	if err != nil {
		return err
	}
	c, req, ctx := call.Caller, call.In, r.Context()
	e, err := h.experiment(ctx, c, experimentRef{projectID: req.projectID, id: req.runID})
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	if req.datasetID != "" {
		g, err := store.DatasetGrantOf(ctx, h.Table, c.OrgID, c.UserID, req.datasetID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && g.Role == "" && !c.IsAdmin()) {
			return httpapi.NotFound("Dataset")
		}
		if err != nil {
			return err
		}
		d := &store.ExperimentDataset{DatasetID: req.datasetID, Name: g.Dataset.Name}
		if req.versionIndex != nil {
			d.VersionIndex = *req.versionIndex
		}
		e.Dataset = d
	}
	if req.templateVersionID != "" {
		e.PromptTemplateVersionID, e.Prompt, e.PromptMessages = &req.templateVersionID, nil, nil
	}
	if req.settings != nil {
		e.PromptRunSettings = req.settings
	}
	if req.scorersSent {
		e.Scorers = req.scorers
	}
	// The run sent is stored by the start's transaction, with the job: a start refused (a
	// job still running, no queue, a plan the dataset cannot fill) leaves the experiment as
	// it was, and an edit made since the read above refuses the start (409).
	readAt := e.UpdatedAt
	e.Trigger, e.UpdatedAt = true, h.Stamp()
	if err := h.resolvePrompt(ctx, &e, nil); err != nil {
		return err
	}
	j, err := h.startRequest(ctx, exprun.StartRequest{UserID: c.UserID, Experiment: e, Messages: e.PromptMessages,
		SetRun: true, ReadAt: readAt})
	if err != nil {
		return err
	}
	out := map[string]any{}
	for k, v := range req.raw {
		out[k] = v
	}
	out["job_id"], out["job_name"], out["user_id"] = j.ID, jobPlaygroundRun, c.UserID
	out["message"] = fmt.Sprintf("Experiment %s is running: %d rows", e.Name, j.Total)
	out["link"] = fmt.Sprintf("/v2/projects/%s/experiments/%s/jobs/%s", e.ProjectID, e.ID, j.ID)
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
