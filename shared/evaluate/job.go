package evaluate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// Evaluate jobs (store.EvalJob): the dispatcher sends a page of the job's traces per stream
// record of the job, every trace with each of the job's scorers (in full: an explicit
// request is not sampled), then moves the job's cursor, which brings the next page. The
// claims make the job score nothing twice: a pair judged before (by the dispatcher's
// sampling or by the same job asked again) is counted done without asking the judge.

// jobPage is the number of traces one stream record of a job sends (at most
// jobPage × scorers messages, within one invocation's time).
const jobPage = 100

func isJobStep(r stream.Record) bool {
	if r.New == nil || r.New[store.AttrEntity] != store.EntityEvalJob || r.New["status"] != store.EvalJobDispatching {
		return false
	}
	return r.Old == nil || r.Old["cursor"] != r.New["cursor"] || r.Old["status"] != r.New["status"]
}

func (d *Dispatcher) dispatchJob(ctx context.Context, r stream.Record, runs map[string]*store.Run) error {
	j, err := store.DecodeEvalJob(r.New)
	if err != nil {
		d.log.Warn("dispatch: unreadable evaluate job, skipped", "key", r.New.Key().String())
		return nil
	}
	// A redelivered record of a page already sent finds the job moved on: nothing to send.
	cur, err := d.table.Get(ctx, store.EvalJobKey(j.RunID, j.ID), true)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("dispatch job %s: %w", j.ID, err)
	}
	if cur["cursor"] != r.New["cursor"] || cur["status"] != store.EvalJobDispatching {
		return nil
	}
	run, err := d.run(ctx, runs, j.OrgID, j.ProjectID, j.RunID)
	if err != nil || run == nil {
		return err
	}
	var scorers []store.ScorerConfig
	for _, sc := range run.Scorers {
		if slices.Contains(j.ScorerIDs, sc.ID) && traceLevel(sc) {
			scorers = append(scorers, sc)
		}
	}
	q := store.TraceRange(j.RunID, j.Start, j.End)
	q.Limit = jobPage
	if j.Cursor != "" {
		q.Start = store.Cursor{store.AttrPK: q.PK, store.AttrSK: j.Cursor}
	}
	page, err := d.table.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("dispatch job %s: %w", j.ID, err)
	}
	var bodies [][]byte
	var tr store.Trace
	for _, it := range page.Items {
		if err := store.DecodeTrace(it, &tr); err != nil {
			continue
		}
		for _, sc := range scorers {
			bodies = append(bodies, Message{V: messageVersion, OrgID: tr.OrgID, ProjectID: tr.ProjectID, RunID: tr.RunID,
				Kind: KindTrace, RecordID: tr.ID, CreatedAt: tr.CreatedAt, ScorerID: sc.ID, ScorerVersion: pinned(sc), Job: j.ID}.encode())
		}
	}
	if err := d.sender.Send(ctx, bodies, 0); err != nil {
		return fmt.Errorf("dispatch job %s: send: %w", j.ID, err)
	}
	next, exhausted := "", page.Next == nil
	if !exhausted {
		next = page.Next[store.AttrSK]
	}
	if _, err := store.AdvanceEvalJob(ctx, d.table, j, next, exhausted, int64(len(page.Items)), int64(len(bodies))); err != nil {
		return fmt.Errorf("dispatch job: %w", err)
	}
	return nil
}

// countJob counts a job's message done, once per (record, scorer).
func (e *Evaluator) countJob(ctx context.Context, m Message) error {
	err := e.table.Transact(ctx, store.EvalJobDoneOps(m.RunID, m.Job, m.RecordID, m.ScorerID))
	var tx *store.TxCanceledError
	if errors.As(err, &tx) && tx.Failed() >= 0 {
		return nil // counted before, or the job is gone
	}
	if err != nil {
		return fmt.Errorf("count evaluate job %s: %w", m.Job, err)
	}
	return nil
}
