package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// What finds a job besides its own key (issue 32: the original client's job reads).
//
//	record           PK                SK                                  notes
//	job pointer      JOB#<job id>      META                                an evaluate job's run: its key needs it, GET /jobs/{id} has only the id
//	experiment job   RUN#<exp id>      EXPJOB#<created_at>#<job id>        every job of an experiment, not only its latest; purged with the run
//
// Both are written in the transaction that creates their job. Jobs created before them
// have none: an experiment's latest job is still named by the experiment's job_id (readers
// add it), and an evaluate job gets its pointer when the same request is made again.

// Entities of the job index records.
const (
	EntityJobPointer         = "job_pointer"
	EntityExperimentJobEntry = "experiment_job_index"
)

// JobPointerKey is the key of the pointer of job id.
func JobPointerKey(id string) Key { return Key{PK: "JOB#" + id, SK: meta} }

// jobIndexTime keeps sort keys in time order (fixed width, UTC).
const jobIndexTime = "2006-01-02T15:04:05.000000000Z"

// experimentJobIndexKey is the key of job j in its experiment's list.
func experimentJobIndexKey(j ExperimentJob) Key {
	return Key{PK: "RUN#" + j.ExperimentID, SK: "EXPJOB#" + j.CreatedAt.UTC().Format(jobIndexTime) + "#" + j.ID}
}

func experimentJobIndexOp(j ExperimentJob) Op {
	k := experimentJobIndexKey(j)
	return PutOp(Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntityExperimentJobEntry,
		"job_id": j.ID, "org_id": j.OrgID, "project_id": j.ProjectID})
}

func evalJobPointer(j EvalJob) Item {
	k := JobPointerKey(j.ID)
	return Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntityJobPointer, "job_id": j.ID,
		"org_id": j.OrgID, "project_id": j.ProjectID, "run_id": j.RunID}
}

// EvalJobByID reads an evaluate job of the organization by its id alone, through its
// pointer; ErrNotFound when there is none (another organization's, a job stored before
// pointers, or a job whose run was purged).
func EvalJobByID(ctx context.Context, t Table, orgID, id string) (EvalJob, error) {
	it, err := t.Get(ctx, JobPointerKey(id), true)
	if err != nil {
		return EvalJob{}, fmt.Errorf("evaluate job %s: %w", id, err)
	}
	run, _ := it["run_id"].(string)
	if it["org_id"] != orgID || run == "" {
		return EvalJob{}, fmt.Errorf("evaluate job %s: %w", id, ErrNotFound)
	}
	return GetEvalJob(ctx, t, orgID, run, id)
}

// ExperimentJobs reads every job of experiment e of the organization, newest first:
// those its list names, and its latest job (e.JobID) also when a list from before the
// list existed lacks it.
func ExperimentJobs(ctx context.Context, t Table, orgID string, e Experiment) ([]ExperimentJob, error) {
	items, err := QueryAll(ctx, t, Query{PK: "RUN#" + e.ID, SKOp: SKPrefix, From: "EXPJOB#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("jobs of experiment %s: %w", e.ID, err)
	}
	var ids []string
	seen := map[string]bool{}
	for _, it := range items {
		if id, _ := it["job_id"].(string); id != "" && it["org_id"] == orgID && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if e.JobID != "" && !seen[e.JobID] {
		ids = append(ids, e.JobID)
	}
	jobs, err := GetExperimentJobs(ctx, t, ids)
	if err != nil {
		return nil, fmt.Errorf("jobs of experiment %s: %w", e.ID, err)
	}
	var out []ExperimentJob
	for _, id := range ids {
		if j, ok := jobs[id]; ok && j.OrgID == orgID && j.ExperimentID == e.ID {
			out = append(out, j)
		}
	}
	slices.SortStableFunc(out, func(a, b ExperimentJob) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// existingEvalJob reads the stored job of j's request (the same request again) with its
// pointer in one batch read, and puts the pointer when the job was stored before pointers.
func existingEvalJob(ctx context.Context, t Table, j EvalJob) (EvalJob, error) {
	items, err := t.BatchGet(ctx, []Key{EvalJobKey(j.RunID, j.ID), JobPointerKey(j.ID)}, true)
	if err != nil {
		return EvalJob{}, fmt.Errorf("evaluate job %s: %w", j.ID, err)
	}
	var job Item
	pointed := false
	for _, it := range items {
		switch it[AttrEntity] {
		case EntityEvalJob:
			job = it
		case EntityJobPointer:
			pointed = true
		}
	}
	if job == nil {
		// Gone between the refused put and this read (its run purged).
		return EvalJob{}, fmt.Errorf("evaluate job %s: %w", j.ID, ErrNotFound)
	}
	got, err := DecodeEvalJob(job)
	if err != nil {
		return EvalJob{}, err
	}
	if got.OrgID != j.OrgID {
		return EvalJob{}, fmt.Errorf("evaluate job %s: %w", j.ID, ErrNotFound)
	}
	if !pointed {
		if err := t.Put(ctx, evalJobPointer(got)); err != nil {
			return EvalJob{}, fmt.Errorf("pointer of evaluate job %s: %w", j.ID, err)
		}
	}
	return got, nil
}
