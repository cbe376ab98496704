package experiments

import (
	"context"
	"net/http"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// list is operation 12: GET /v2/projects/{project_id}/experiments[?include_counts=true].
// Whatever the number of experiments, it costs two waves of reads: the project and the
// query of its experiments at once, then the creators and the run summaries at once, each a
// single batch read (which the DynamoDB adapter splits at 100 keys).
func (h *handlers) list(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) (q base.Keyed[bool]) {
		q.ID, _ = in.Path("project_id").UUID(4)
		q.Req, _ = in.Query("include_counts").Bool()
		return q
	})
	if err != nil {
		return err
	}
	c, projectID, withCounts, ctx := call.Caller, call.In.ID, call.In.Req, r.Context()
	var exps []store.Experiment
	var listErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		exps, listErr = store.ListExperiments(ctx, h.Table, c.OrgID, projectID)
	}()
	_, projErr := h.Project(ctx, c, projectID)
	<-done
	if projErr != nil {
		return projErr
	}
	if listErr != nil {
		return listErr
	}
	users, summaries, jobs, err := h.related(ctx, c.OrgID, exps)
	if err != nil {
		return err
	}
	ids := make([]string, len(exps))
	for i, e := range exps {
		ids[i] = e.ID
	}
	ranks := rankExperiments(ids, summaries)
	out := make([]experimentResponse, len(exps))
	for i, e := range exps {
		var creator *store.User
		if u, ok := users[e.CreatedBy]; ok {
			creator = &u
		}
		var job *store.ExperimentJob
		if j, ok := jobs[e.JobID]; ok {
			job = &j
		}
		out[i] = experimentOut(e, summaries[e.ID], creator, ranks[e.ID], withCounts, job)
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// related reads the creators, the run summaries and the latest jobs of the experiments,
// three batch reads made at once.
func (h *handlers) related(ctx context.Context, orgID string, exps []store.Experiment) (map[string]store.User, map[string]store.RunSummary, map[string]store.ExperimentJob, error) {
	if len(exps) == 0 {
		return map[string]store.User{}, map[string]store.RunSummary{}, map[string]store.ExperimentJob{}, nil
	}
	userIDs := make([]string, 0, len(exps))
	runIDs := make([]string, len(exps))
	var jobIDs []string
	for i, e := range exps {
		if e.CreatedBy != "" {
			userIDs = append(userIDs, e.CreatedBy)
		}
		if e.JobID != "" {
			jobIDs = append(jobIDs, e.JobID)
		}
		runIDs[i] = e.ID
	}
	var users []store.User
	var summaries map[string]store.RunSummary
	var jobs map[string]store.ExperimentJob
	err := base.Concurrently(ctx,
		func(ctx context.Context) (err error) {
			users, err = store.OrgUsers(ctx, h.Table, orgID, userIDs)
			return err
		},
		func(ctx context.Context) (err error) {
			summaries, err = store.GetRunSummaries(ctx, h.Table, runIDs)
			return err
		},
		func(ctx context.Context) (err error) {
			jobs, err = store.GetExperimentJobs(ctx, h.Table, jobIDs)
			return err
		})
	if err != nil {
		return nil, nil, nil, err
	}
	byID := make(map[string]store.User, len(users))
	for _, u := range users {
		byID[u.ID] = u
	}
	return byID, summaries, jobs, nil
}
