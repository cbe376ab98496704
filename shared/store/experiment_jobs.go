package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Jobs of experiments: one run of a prompt over a dataset version (shared/exprun).
//
//	record     PK                SK                notes
//	job        EXPJOB#<job id>   META              state, plan, counters (ADDed), errors by type (err#<type>)
//	row        EXPJOB#<job id>   ROW#<index 6>     the outcome of one row: done or failed, its trace, its attempt
//	current    PROJECT#<pid>     EXPERIMENT#<id>   the experiment record's job_id names its latest job
//	listed     RUN#<id>          EXPJOB#<at>#<id>  every job of the experiment (jobs_index.go)
//
// A row's marker and the job's counters change in one transaction whose condition is the
// marker's previous state, so a redelivered chunk never counts a row twice.

// Entities of the job records.
const (
	EntityExperimentJob = "experiment_job"
	EntityJobRow        = "experiment_job_row"
)

// Job states.
const (
	JobQueued    = "queued"
	JobRunning   = "running"
	JobCompleted = "completed"
	JobFailed    = "failed"
	JobCancelled = "cancelled"
)

// Row outcomes.
const (
	RowDone   = "done"
	RowFailed = "failed"
)

// MaxJobRows bounds the rows of one experiment job (indexes are padded to 6 digits).
const MaxJobRows = 10_000

// JobPlan is what a job runs, fixed at its start: every chunk reads it from the job.
type JobPlan struct {
	DatasetID      string          `json:"dataset_id"`
	DatasetVersion int64           `json:"dataset_version"`
	Messages       []PromptMessage `json:"messages"`
	Model          string          `json:"model"`
	Settings       map[string]any  `json:"settings,omitempty"`
	ScorerIDs      []string        `json:"scorer_ids"`
	ScorerNames    []string        `json:"scorer_names"`
	TokenBudget    int64           `json:"token_budget,omitempty"` // 0: none
	TokenEstimate  int64           `json:"token_estimate"`
	ChunkRows      int             `json:"chunk_rows"`
}

// PromptMessage is one chat message of a prompt (template text before rendering).
type PromptMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ExperimentJob is a job as read: its plan, state and counters.
type ExperimentJob struct {
	ID           string           `json:"id"`
	OrgID        string           `json:"org_id"`
	ProjectID    string           `json:"project_id"`
	ExperimentID string           `json:"experiment_id"`
	CreatedBy    string           `json:"created_by"`
	CreatedAt    time.Time        `json:"created_at"`
	UpdatedAt    time.Time        `json:"updated_at"`
	State        string           `json:"state"`
	Attempt      int64            `json:"attempt"` // 1, then +1 per retry of failed rows
	Total        int64            `json:"rows_total"`
	Plan         JobPlan          `json:"plan"`
	Done         int64            `json:"-"`
	Failed       int64            `json:"-"`
	Tokens       int64            `json:"-"`
	Errors       map[string]int64 `json:"-"`
}

// JobRow is the outcome of one row.
type JobRow struct {
	Index     int64  `json:"index"`
	State     string `json:"state"`
	TraceID   string `json:"trace_id"`
	Attempt   int64  `json:"attempt"`
	ErrorType string `json:"error_type,omitempty"`
}

// Counter attributes of a job (ADDed, never Set).
const (
	jobDone   = "rows_done"
	jobFailed = "rows_failed"
	jobTokens = "tokens_used"
	jobErrPfx = "err#"
)

// ExperimentJobKey is the key of a job.
func ExperimentJobKey(id string) Key { return Key{PK: "EXPJOB#" + id, SK: meta} }

// JobRowKey is the key of the marker of row index of a job.
func JobRowKey(jobID string, index int64) Key {
	return Key{PK: "EXPJOB#" + jobID, SK: "ROW#" + Pad(index, 6)}
}

// CreateExperimentJob stores a new queued job and names it on its experiment, in one
// transaction that fails with ErrConditionFailed when the experiment is gone or runs a job
// that is still queued or running (prevJob is the job the experiment named as read, "" for
// none).
func CreateExperimentJob(ctx context.Context, t Table, j ExperimentJob, prevJob string) error {
	return createJob(ctx, t, j, prevJob, map[string]any{}, nil)
}

// CreateExperimentJobSettingRun is CreateExperimentJob that also sets what e runs (its
// dataset, prompt, run settings, scorers and updated_at: POST /jobs names them with the
// start), in the same transaction and on condition that the experiment's updated_at is still
// readAt, its value as read: the run is set if and only if the job starts, and an edit made
// meanwhile is never overwritten (ErrConditionFailed).
func CreateExperimentJobSettingRun(ctx context.Context, t Table, j ExperimentJob, prevJob string, e Experiment, readAt time.Time) error {
	set, err := runFields(e)
	if err != nil {
		return err
	}
	at, err := Marshal(struct {
		UpdatedAt time.Time `json:"updated_at"`
	}{readAt})
	if err != nil {
		return err
	}
	return createJob(ctx, t, j, prevJob, set, []Cond{Equals("updated_at", at["updated_at"])})
}

// createJob is the transaction of a start: the job put, its entry in the experiment's list
// of jobs, and on the experiment job_id and the
// set attributes updated, on the conditions of CreateExperimentJob and conds.
func createJob(ctx context.Context, t Table, j ExperimentJob, prevJob string, set map[string]any, conds []Cond) error {
	it, err := Marshal(j)
	if err != nil {
		return err
	}
	k := ExperimentJobKey(j.ID)
	it = it.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntityExperimentJob)
	cond := AttrAbsent("job_id")
	if prevJob != "" {
		cond = Equals("job_id", prevJob)
	}
	set["job_id"] = j.ID
	err = t.Transact(ctx, []Op{
		PutOp(it, NotExists()),
		experimentJobIndexOp(j),
		UpdateOp(Update{Key: ExperimentKey(j.ProjectID, j.ExperimentID), Set: set, Conds: append([]Cond{Exists(), cond}, conds...)}),
	})
	if err != nil {
		return fmt.Errorf("create job of experiment %s: %w", j.ExperimentID, err)
	}
	return nil
}

// ExperimentJobID is the id of the experiment's latest job ("" for none), read strongly.
func ExperimentJobID(ctx context.Context, t Table, projectID, experimentID string) (string, error) {
	it, err := t.Get(ctx, ExperimentKey(projectID, experimentID), true)
	if err != nil {
		return "", fmt.Errorf("job of experiment %s: %w", experimentID, err)
	}
	s, _ := it["job_id"].(string)
	return s, nil
}

// GetExperimentJob reads a job strongly consistently; ErrNotFound when absent or of
// another organization ("" orgID: any, for workers whose messages name the job).
func GetExperimentJob(ctx context.Context, t Table, orgID, id string) (ExperimentJob, error) {
	it, err := t.Get(ctx, ExperimentJobKey(id), true)
	if err != nil {
		return ExperimentJob{}, fmt.Errorf("get job %s: %w", id, err)
	}
	j, err := decodeJob(it)
	if err != nil {
		return ExperimentJob{}, fmt.Errorf("get job %s: %w", id, err)
	}
	if orgID != "" && j.OrgID != orgID {
		return ExperimentJob{}, fmt.Errorf("get job %s: %w", id, ErrNotFound)
	}
	return j, nil
}

func decodeJob(it Item) (ExperimentJob, error) {
	var j ExperimentJob
	if err := Unmarshal(it, &j); err != nil {
		return j, err
	}
	j.Done, j.Failed, j.Tokens = intAttr(it, jobDone), intAttr(it, jobFailed), intAttr(it, jobTokens)
	j.Errors = map[string]int64{}
	for k := range it {
		if typ, ok := strings.CutPrefix(k, jobErrPfx); ok {
			if n := intAttr(it, k); n != 0 {
				j.Errors[typ] = n
			}
		}
	}
	return j, nil
}

func intAttr(it Item, name string) int64 {
	switch v := it[name].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// SetJobState moves a job from one of the states from to state; ErrConditionFailed when
// it is in none of them. Several from states are tried one after another.
func SetJobState(ctx context.Context, t Table, id string, from []string, state string, now time.Time, extra map[string]any) error {
	var err error
	for _, f := range from {
		set := map[string]any{"state": state, "updated_at": now.UTC().Format(time.RFC3339Nano)}
		for k, v := range extra {
			set[k] = v
		}
		_, err = t.Update(ctx, Update{Key: ExperimentJobKey(id), Set: set, Conds: []Cond{Equals("state", f)}})
		if err == nil || !errors.Is(err, ErrConditionFailed) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("job %s to %s: %w", id, state, err)
	}
	return nil
}

// RowOutcome is what a worker records for one row: the marker as it becomes, and what it
// was before (nil: the row had no marker).
type RowOutcome struct {
	Row    JobRow
	Before *JobRow
	Tokens int64
}

// RecordRowOutcomes writes the markers of rows and moves the job's counters by what they
// change, all in one transaction conditioned on each marker's previous state.
// ErrConditionFailed when any marker moved meanwhile (a duplicate delivery won): the
// caller re-reads and records the rest one by one.
func RecordRowOutcomes(ctx context.Context, t Table, jobID string, outs []RowOutcome, now time.Time) error {
	if len(outs) == 0 {
		return nil
	}
	add := map[string]int64{}
	ops := make([]Op, 0, len(outs)+1)
	for _, o := range outs {
		it, err := Marshal(o.Row)
		if err != nil {
			return err
		}
		k := JobRowKey(jobID, o.Row.Index)
		it = it.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntityJobRow)
		cond := NotExists()
		if o.Before != nil {
			cond = Equals("attempt", o.Before.Attempt)
			bump(add, *o.Before, -1)
		}
		bump(add, o.Row, 1)
		add[jobTokens] += o.Tokens
		ops = append(ops, PutOp(it, cond))
	}
	for k, v := range add {
		if v == 0 {
			delete(add, k)
		}
	}
	ops = append(ops, UpdateOp(Update{Key: ExperimentJobKey(jobID), Add: add,
		Set: map[string]any{"updated_at": now.UTC().Format(time.RFC3339Nano)}, Conds: []Cond{Exists()}}))
	if err := t.Transact(ctx, ops); err != nil {
		return fmt.Errorf("record %d rows of job %s: %w", len(outs), jobID, err)
	}
	return nil
}

func bump(add map[string]int64, r JobRow, by int64) {
	if r.State == RowDone {
		add[jobDone] += by
		return
	}
	add[jobFailed] += by
	add[jobErrPfx+r.ErrorType] += by
}

// JobRows reads the markers of rows [from, to) of a job (strongly consistent), by index.
func JobRows(ctx context.Context, t Table, jobID string, from, to int64) (map[int64]JobRow, error) {
	out := map[int64]JobRow{}
	if to <= from {
		return out, nil
	}
	q := Query{PK: "EXPJOB#" + jobID, SKOp: SKBetween, From: "ROW#" + Pad(from, 6), To: "ROW#" + Pad(to-1, 6), Consistent: true}
	items, err := QueryAll(ctx, t, q)
	if err != nil {
		return nil, fmt.Errorf("rows of job %s: %w", jobID, err)
	}
	for _, it := range items {
		var r JobRow
		if err := Unmarshal(it, &r); err != nil {
			return nil, err
		}
		out[r.Index] = r
	}
	return out, nil
}

// GetExperimentJobs reads jobs by id with one batch read (strongly consistent), by id.
func GetExperimentJobs(ctx context.Context, t Table, ids []string) (map[string]ExperimentJob, error) {
	out := map[string]ExperimentJob{}
	if len(ids) == 0 {
		return out, nil
	}
	keys := make([]Key, len(ids))
	for i, id := range ids {
		keys[i] = ExperimentJobKey(id)
	}
	items, err := t.BatchGet(ctx, keys, true)
	if err != nil {
		return nil, fmt.Errorf("read %d jobs: %w", len(ids), err)
	}
	for _, it := range items {
		j, err := decodeJob(it)
		if err != nil {
			return nil, err
		}
		out[j.ID] = j
	}
	return out, nil
}
