package exprun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

// Defaults of a job.
const (
	// DefaultChunkRows is how many rows one queue message carries, a multiple of
	// DefaultRowParallelism (no idle slot in a chunk's last wave); small enough that a
	// cancel stops new provider calls within one chunk and a redelivery repeats little.
	DefaultChunkRows = 20
	// sendBatch is how many messages one Send carries (SQS takes 10 per call; the adapter
	// splits further if it must).
	sendBatch = 10
)

// Service starts, cancels and retries jobs; the HTTP group and the seed use it.
type Service struct {
	Table     store.Table
	Queue     Queue
	Now       Clock
	ChunkRows int // default DefaultChunkRows
}

// Problem is a refusal of a request, with the body field it is about (a 422).
type Problem struct {
	Loc []any
	Msg string
	// NoModel: only the model is missing (the rest was checked); an experiment that is not
	// started yet may be created so.
	NoModel bool
}

func (p *Problem) Error() string { return p.Msg }

// Errors of the job operations besides Problem.
var (
	ErrJobActive    = errors.New("the experiment has a job queued or running")
	ErrNotRetryable = errors.New("the job has no failed rows to retry, or is still running")
	// ErrChanged: a start that sets the experiment's run (StartRequest.SetRun) found the
	// experiment changed since it was read; nothing was written.
	ErrChanged = errors.New("the experiment changed while the job was starting")
	// ErrGone: the experiment was deleted while the job was starting; nothing was written.
	ErrGone = errors.New("the experiment is gone")
)

// StartRequest is what a start needs: the experiment as stored (its dataset, model,
// settings and scorers), the prompt's messages and an optional token budget.
type StartRequest struct {
	UserID      string
	Experiment  store.Experiment
	Messages    []store.PromptMessage
	TokenBudget int64
	// SetRun: the experiment's run (dataset, prompt, settings, scorers, updated_at) is as the
	// request names it, not as stored; the job's transaction stores it, on condition that the
	// experiment's updated_at is still ReadAt, so that a start refused leaves it as it was.
	SetRun bool
	ReadAt time.Time
}

// Message is the body of a chunk message: ids and row indexes only, never content.
type Message struct {
	JobID   string  `json:"job_id"`
	Attempt int64   `json:"attempt"`
	From    int64   `json:"from,omitempty"` // rows [From, To) ...
	To      int64   `json:"to,omitempty"`
	Rows    []int64 `json:"rows,omitempty"` // ... or these rows (a retry)
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

func (s *Service) chunkRows() int {
	if s.ChunkRows > 0 {
		return s.ChunkRows
	}
	return DefaultChunkRows
}

// Plan checks what a start needs and reads the dataset version: the rows' count, the
// variables against the columns, and the token estimate (each row rendered).
func Plan(ctx context.Context, t store.Table, e store.Experiment, msgs []store.PromptMessage) (store.JobPlan, int64, error) {
	var plan store.JobPlan
	switch {
	case e.Dataset == nil:
		return plan, 0, &Problem{Loc: []any{"body", "dataset"}, Msg: "the experiment names no dataset to run on"}
	case len(msgs) == 0:
		return plan, 0, &Problem{Loc: []any{"body", "prompt_template_version_id"}, Msg: "the experiment names no prompt (a template version or an inline prompt)"}
	}
	d, err := store.GetDataset(ctx, t, e.OrgID, e.Dataset.DatasetID)
	if errors.Is(err, store.ErrNotFound) {
		return plan, 0, &Problem{Loc: []any{"body", "dataset", "dataset_id"}, Msg: "Dataset not found"}
	}
	if err != nil {
		return plan, 0, err
	}
	st, err := versionState(ctx, t, d, e.Dataset.VersionIndex)
	if err != nil {
		return plan, 0, err
	}
	cols := st.ColumnNames()
	if missing := MissingVariables(msgs, cols); len(missing) > 0 {
		return plan, 0, &Problem{Loc: []any{"body", "prompt"}, Msg: fmt.Sprintf(
			"the prompt's variables %v are not columns of the dataset (columns: %v)", missing, cols)}
	}
	n := st.RowCount()
	if n > store.MaxJobRows {
		return plan, 0, &Problem{Loc: []any{"body", "dataset"}, Msg: fmt.Sprintf(
			"the dataset version has %d rows; an experiment runs on at most %d", n, store.MaxJobRows)}
	}
	if n == 0 {
		return plan, 0, &Problem{Loc: []any{"body", "dataset"}, Msg: "the dataset version has no rows"}
	}
	model := PromptModel(e)
	if model == "" {
		return plan, n, &Problem{Loc: []any{"body", "prompt_model"}, Msg: "the experiment names no prompt_model (nor prompt_settings.model_alias)", NoModel: true}
	}
	var estimate int64
	for r, err := range store.ContentRows(ctx, t, st, 0, n) {
		if err != nil {
			return plan, 0, err
		}
		estimate += EstimateTokens(Render(msgs, rowMap(cols, r)), e.PromptRunSettings)
	}
	plan = store.JobPlan{DatasetID: d.ID, DatasetVersion: st.Version, Messages: msgs, Model: model,
		Settings: e.PromptRunSettings, TokenEstimate: estimate}
	for _, sc := range e.Scorers {
		plan.ScorerIDs = append(plan.ScorerIDs, sc.ID)
		name := sc.ID
		if sc.Name != nil && *sc.Name != "" {
			name = *sc.Name
		}
		plan.ScorerNames = append(plan.ScorerNames, name)
	}
	return plan, n, nil
}

// PromptModel is the model an experiment's rows are run with: prompt_model, else the run
// settings' model_alias (where the original's clients name it), else "".
func PromptModel(e store.Experiment) string {
	if e.PromptModel != nil && *e.PromptModel != "" {
		return *e.PromptModel
	}
	alias, _ := e.PromptRunSettings["model_alias"].(string)
	return alias
}

// versionState is the content of version v of d; 0 is the current version.
func versionState(ctx context.Context, t store.Table, d store.Dataset, v int64) (store.ContentState, error) {
	if v == 0 || v == d.Version {
		return store.CurrentState(ctx, t, d)
	}
	_, st, err := store.GetDatasetVersion(ctx, t, d, v)
	if errors.Is(err, store.ErrNotFound) {
		return st, &Problem{Loc: []any{"body", "dataset", "version_index"}, Msg: fmt.Sprintf("the dataset has no version %d", v)}
	}
	return st, err
}

// Start plans a job for the experiment, stores it queued and sends one message per chunk
// of rows. ErrJobActive when the experiment's latest job is queued or running; a Problem
// for what the request cannot run.
func (s *Service) Start(ctx context.Context, req StartRequest) (store.ExperimentJob, error) {
	e := req.Experiment
	plan, n, err := Plan(ctx, s.Table, e, req.Messages)
	if err != nil {
		return store.ExperimentJob{}, err
	}
	plan.TokenBudget, plan.ChunkRows = req.TokenBudget, s.chunkRows()
	prev, err := store.ExperimentJobID(ctx, s.Table, e.ProjectID, e.ID)
	if err != nil {
		return store.ExperimentJob{}, err
	}
	if prev != "" {
		pj, err := store.GetExperimentJob(ctx, s.Table, e.OrgID, prev)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return store.ExperimentJob{}, err
		}
		if err == nil && (pj.State == store.JobQueued || pj.State == store.JobRunning) {
			return store.ExperimentJob{}, ErrJobActive
		}
	}
	now := s.now()
	j := store.ExperimentJob{ID: uuid.NewString(), OrgID: e.OrgID, ProjectID: e.ProjectID, ExperimentID: e.ID,
		CreatedBy: req.UserID, CreatedAt: now, UpdatedAt: now, State: store.JobQueued, Attempt: 1, Total: n, Plan: plan,
		Errors: map[string]int64{}}
	create := func() error { return store.CreateExperimentJob(ctx, s.Table, j, prev) }
	if req.SetRun {
		create = func() error { return store.CreateExperimentJobSettingRun(ctx, s.Table, j, prev, e, req.ReadAt) }
	}
	if err := create(); err != nil {
		if errors.Is(err, store.ErrConditionFailed) && req.SetRun {
			return store.ExperimentJob{}, s.whyRefused(ctx, e, prev)
		}
		if errors.Is(err, store.ErrConditionFailed) {
			return store.ExperimentJob{}, ErrJobActive
		}
		return store.ExperimentJob{}, err
	}
	var msgs []Message
	for from := int64(0); from < n; from += int64(plan.ChunkRows) {
		msgs = append(msgs, Message{JobID: j.ID, Attempt: 1, From: from, To: min(from+int64(plan.ChunkRows), n)})
	}
	if err := s.send(ctx, msgs); err != nil {
		// Nothing runs a job whose messages did not all go: it fails, and a new start may follow.
		_ = store.SetJobState(ctx, s.Table, j.ID, []string{store.JobQueued, store.JobRunning}, store.JobFailed, s.now(),
			map[string]any{"error": "the job could not be queued"})
		return store.ExperimentJob{}, fmt.Errorf("start job %s: %w", j.ID, err)
	}
	return j, nil
}

// whyRefused tells which condition of a start that sets the run failed, reading the
// experiment again (only on this path): ErrJobActive when another job was named on it
// meanwhile, ErrGone when it was deleted, else ErrChanged (it was edited since read).
func (s *Service) whyRefused(ctx context.Context, e store.Experiment, prev string) error {
	id, err := store.ExperimentJobID(ctx, s.Table, e.ProjectID, e.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return ErrGone
	case err != nil:
		return err
	case id != prev:
		return ErrJobActive
	}
	return ErrChanged
}

func (s *Service) send(ctx context.Context, msgs []Message) error {
	for i := 0; i < len(msgs); i += sendBatch {
		part := msgs[i:min(i+sendBatch, len(msgs))]
		bodies := make([][]byte, len(part))
		for k, m := range part {
			b, err := json.Marshal(m)
			if err != nil {
				return err
			}
			bodies[k] = b
		}
		if err := s.Queue.Send(ctx, bodies); err != nil {
			return fmt.Errorf("send %d chunk messages: %w", len(bodies), err)
		}
	}
	return nil
}

// Cancel stops a queued or running job: workers check the state when a chunk starts, so
// no new provider call starts later than one chunk after. A job that has ended is left as
// it is and returned.
func (s *Service) Cancel(ctx context.Context, orgID, jobID string) (store.ExperimentJob, error) {
	err := store.SetJobState(ctx, s.Table, jobID, []string{store.JobQueued, store.JobRunning}, store.JobCancelled, s.now(), nil)
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return store.ExperimentJob{}, err
	}
	return store.GetExperimentJob(ctx, s.Table, orgID, jobID)
}

// Retry runs the failed rows of an ended job again (and only them, with the rows a cancel
// left without an outcome): the job goes back to running with its attempt moved on, and
// one message per chunk of those rows is sent. ErrNotRetryable when the job is queued or
// running or every row is done.
func (s *Service) Retry(ctx context.Context, orgID, jobID string) (store.ExperimentJob, error) {
	j, err := store.GetExperimentJob(ctx, s.Table, orgID, jobID)
	if err != nil {
		return j, err
	}
	if j.State == store.JobQueued || j.State == store.JobRunning || j.Done == j.Total {
		return j, ErrNotRetryable
	}
	rows, err := store.JobRows(ctx, s.Table, j.ID, 0, j.Total)
	if err != nil {
		return j, err
	}
	// The failed rows, and those a cancel left without an outcome; never a good one.
	var failed []int64
	for i := int64(0); i < j.Total; i++ {
		if r, ok := rows[i]; !ok || r.State == store.RowFailed {
			failed = append(failed, i)
		}
	}
	if len(failed) == 0 {
		return j, ErrNotRetryable
	}
	attempt := j.Attempt + 1
	err = store.SetJobState(ctx, s.Table, j.ID, []string{j.State}, store.JobRunning, s.now(), map[string]any{"attempt": attempt})
	if errors.Is(err, store.ErrConditionFailed) {
		return j, ErrNotRetryable
	}
	if err != nil {
		return j, err
	}
	var msgs []Message
	for i := 0; i < len(failed); i += j.Plan.ChunkRows {
		msgs = append(msgs, Message{JobID: j.ID, Attempt: attempt, Rows: failed[i:min(i+j.Plan.ChunkRows, len(failed))]})
	}
	if err := s.send(ctx, msgs); err != nil {
		return j, err
	}
	return store.GetExperimentJob(ctx, s.Table, orgID, jobID)
}

// Progress is the share of the job's rows with an outcome, in whole percent: 100 exactly
// when every row has one.
func Progress(j store.ExperimentJob) int64 {
	if j.Total == 0 {
		return 0
	}
	return (j.Done + j.Failed) * 100 / j.Total
}
