package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Evaluate jobs (POST …/log_streams/{id}/evaluate): score the traces of a time range with
// some of the log stream's scorers.
//
//	record         PK            SK                                       notes
//	job            RUN#<run id>  EVALJOB#<job id>                         id: a digest of (run, range, scorers): the same request is the same job
//	job pointer    JOB#<job id>  META                                     its run, for reads by id alone (jobs_index.go)
//	job progress   RUN#<run id>  EVALJOBDONE#<job id>#<record>#<scorer>   one per judged pair, created with the job's done count
//
// The stream dispatcher advances a job a page of traces at a time: each page's messages are
// sent, then the job's cursor moves on the condition that it is still where the page began
// (a redelivered stream record finds it moved and does nothing), and that change of the job
// is itself on the stream, which brings the next page. Lives in the run's partition: purged
// with the run.

// EntityEvalJob names the jobs.
const EntityEvalJob = "eval_job"

// Job statuses.
const (
	EvalJobDispatching = "dispatching" // pages of traces still to send
	EvalJobDispatched  = "dispatched"  // every message sent; done counts the judged
)

// EvalJob is one evaluate job.
type EvalJob struct {
	ID        string    `json:"id"`
	OrgID     string    `json:"org_id"`
	ProjectID string    `json:"project_id"`
	RunID     string    `json:"run_id"`
	Start     time.Time `json:"start_time"`
	End       time.Time `json:"end_time"`
	ScorerIDs []string  `json:"scorer_ids"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	Status    string    `json:"status"`
	Cursor    string    `json:"cursor"` // sort key of the next trace to scan ("" from the start)
	Scanned   int64     `json:"scanned"`
	Sent      int64     `json:"sent"`
	Done      int64     `json:"done"`
}

// EvalJobKey is the key of a job.
func EvalJobKey(runID, id string) Key { return Key{PK: "RUN#" + runID, SK: "EVALJOB#" + id} }

// EvalJobID is the id of the job of (run, range, scorers), shaped as a UUID.
func EvalJobID(runID string, start, end time.Time, scorerIDs []string) string {
	ids := slices.Clone(scorerIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	sum := sha256.Sum256([]byte(runID + "|" + start.UTC().Format(time.RFC3339Nano) + "|" + end.UTC().Format(time.RFC3339Nano) + "|" + strings.Join(ids, ",")))
	h := hex.EncodeToString(sum[:16])
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

// CreateEvalJob stores j and its pointer unless its job exists, and returns the job as
// stored (created false when it existed: the same request again).
func CreateEvalJob(ctx context.Context, t Table, j EvalJob) (EvalJob, bool, error) {
	it, err := Marshal(j)
	if err != nil {
		return EvalJob{}, false, err
	}
	k := EvalJobKey(j.RunID, j.ID)
	it = it.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntityEvalJob)
	// The pointer lets GET /jobs/{id} find the job by its id alone (jobs_index.go).
	err = t.Transact(ctx, []Op{PutOp(it, NotExists()), PutOp(evalJobPointer(j))})
	if errors.Is(err, ErrConditionFailed) {
		got, err := existingEvalJob(ctx, t, j)
		return got, false, err
	}
	if err != nil {
		return EvalJob{}, false, fmt.Errorf("create evaluate job: %w", err)
	}
	return j, true, nil
}

// GetEvalJob reads a job of the organization; ErrNotFound when absent or another's.
func GetEvalJob(ctx context.Context, t Table, orgID, runID, id string) (EvalJob, error) {
	it, err := t.Get(ctx, EvalJobKey(runID, id), true)
	if err != nil {
		return EvalJob{}, fmt.Errorf("evaluate job %s: %w", id, err)
	}
	j, err := DecodeEvalJob(it)
	if err != nil {
		return EvalJob{}, err
	}
	if j.OrgID != orgID {
		return EvalJob{}, fmt.Errorf("evaluate job %s: %w", id, ErrNotFound)
	}
	return j, nil
}

// DecodeEvalJob reads a job's item (also a stream image of it).
func DecodeEvalJob(it Item) (EvalJob, error) {
	var j EvalJob
	if err := Unmarshal(it, &j); err != nil {
		return EvalJob{}, fmt.Errorf("decode evaluate job: %w", err)
	}
	return j, nil
}

// AdvanceEvalJob moves j's cursor to next (""  and done: the range is exhausted) and adds
// what the page scanned and sent, on the condition that the cursor is still j's: false when
// another delivery of the same page moved it first.
func AdvanceEvalJob(ctx context.Context, t Table, j EvalJob, next string, exhausted bool, scanned, sent int64) (bool, error) {
	status := EvalJobDispatching
	if exhausted {
		status = EvalJobDispatched
	}
	_, err := t.Update(ctx, Update{Key: EvalJobKey(j.RunID, j.ID),
		Set:   map[string]any{"cursor": next, "status": status},
		Add:   map[string]int64{"scanned": scanned, "sent": sent},
		Conds: []Cond{Equals("cursor", j.Cursor), Equals("status", EvalJobDispatching)}})
	if errors.Is(err, ErrConditionFailed) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("advance evaluate job %s: %w", j.ID, err)
	}
	return true, nil
}

// EvalJobDoneOps count one judged (record, scorer) pair of a job, once: the transaction fails
// on the first action when the pair was counted before.
func EvalJobDoneOps(runID, jobID, recordID, scorerID string) []Op {
	k := Key{PK: "RUN#" + runID, SK: "EVALJOBDONE#" + jobID + "#" + recordID + "#" + scorerID}
	return []Op{
		PutOp(Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: "eval_job_done"}, NotExists()),
		UpdateOp(Update{Key: EvalJobKey(runID, jobID), Add: map[string]int64{"done": 1}, Conds: []Cond{Exists()}}),
	}
}

// RunEvalJobs reads every evaluate job of a run, in id order (a run has few: one per
// distinct request); other organizations' are left out.
func RunEvalJobs(ctx context.Context, t Table, orgID, runID string) ([]EvalJob, error) {
	items, err := QueryAll(ctx, t, Query{PK: "RUN#" + runID, SKOp: SKPrefix, From: "EVALJOB#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("evaluate jobs of run %s: %w", runID, err)
	}
	var out []EvalJob
	for _, it := range items {
		j, err := DecodeEvalJob(it)
		if err != nil {
			return nil, err
		}
		if j.OrgID == orgID {
			out = append(out, j)
		}
	}
	return out, nil
}
