package exprun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// DefaultRowParallelism is how many rows of one chunk call the model at once. The
// provider's concurrency is this times the worker's concurrency cap (MaximumConcurrency).
const DefaultRowParallelism = 10

// recordBatch bounds the markers of one transaction (the job's update is one more action).
const recordBatch = store.MaxTransactItems - 1

// Worker generates chunks of rows. HandleChunk is a plain handler of a message body, so
// any transport drives it: SQS in the cloud, the in-process queue locally, tests directly.
type Worker struct {
	Table          store.Table
	Model          Model
	Scoring        Scoring // nil: traces are written unscored
	Prices         Prices  // nil: no cost is written
	Traces         Traces
	Now            Clock
	RowParallelism int
	Log            *slog.Logger
}

// rowWork is one row of a chunk on its way to its marker.
type rowWork struct {
	index   int64
	before  *store.JobRow
	traceID string
	values  map[string]any
	trace   *store.Trace // generated now
	out     store.JobRow
	tokens  int64
	recover bool // its trace was stored by an earlier delivery
	attempt int64
}

// HandleChunk generates the rows of one message that have no outcome yet for its attempt.
// An error means the message should be delivered again: what was recorded stays recorded
// and a redelivery does only the rest.
func (w *Worker) HandleChunk(ctx context.Context, body []byte) error {
	var m Message
	if err := json.Unmarshal(body, &m); err != nil || m.JobID == "" {
		return fmt.Errorf("chunk message: not a chunk (%v)", err)
	}
	j, err := store.GetExperimentJob(ctx, w.Table, "", m.JobID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the job is gone (its experiment was deleted): nothing to do
	}
	if err != nil {
		return err
	}
	if j.State == store.JobCancelled || j.State == store.JobFailed {
		return nil
	}
	if j.State == store.JobQueued {
		if err := store.SetJobState(ctx, w.Table, j.ID, []string{store.JobQueued}, store.JobRunning, w.now(), nil); err != nil && !errors.Is(err, store.ErrConditionFailed) {
			return err
		}
	}
	rows, err := w.pending(ctx, j, m)
	if err != nil || len(rows) == 0 {
		if err == nil {
			err = w.finish(ctx, j.ID)
		}
		return err
	}
	run := store.Run{ID: j.ExperimentID, ProjectID: j.ProjectID, OrgID: j.OrgID, Kind: store.RunExperiment}
	w.generate(ctx, j, rows)
	if err := ctx.Err(); err != nil {
		return err
	}
	var fresh []store.Trace
	for _, r := range rows {
		if r.trace != nil {
			fresh = append(fresh, *r.trace)
		}
	}
	if len(fresh) > 0 {
		if err := w.Traces.Write(ctx, run, fresh); err != nil {
			return fmt.Errorf("chunk of job %s: write traces: %w", j.ID, err)
		}
	}
	var scored []string
	for _, r := range rows {
		if r.before != nil && r.before.TraceID != "" && r.before.TraceID != r.traceID {
			if err := w.Traces.Delete(ctx, run, r.before.TraceID); err != nil {
				return fmt.Errorf("chunk of job %s: replace the trace of row %d: %w", j.ID, r.index, err)
			}
		}
		if r.out.State == store.RowDone {
			scored = append(scored, r.traceID)
		}
	}
	if w.Scoring != nil && len(scored) > 0 && len(j.Plan.ScorerIDs) > 0 {
		req := ScoreRequest{OrgID: j.OrgID, ProjectID: j.ProjectID, RunID: j.ExperimentID, TraceIDs: scored, ScorerIDs: j.Plan.ScorerIDs}
		if err := w.Scoring.Score(ctx, req); err != nil {
			return fmt.Errorf("chunk of job %s: request scoring: %w", j.ID, err)
		}
	}
	if err := w.record(ctx, j.ID, rows); err != nil {
		return err
	}
	return w.finish(ctx, j.ID)
}

func (w *Worker) log() *slog.Logger {
	if w.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.Log
}

func (w *Worker) now() time.Time {
	if w.Now == nil {
		return time.Now().UTC()
	}
	return w.Now().UTC()
}

// TraceID is the trace of row index of a job at an attempt: the same for every delivery.
func TraceID(jobID string, index, attempt int64) string {
	return store.DerivedID(jobID, "row", strconv.FormatInt(index, 10), strconv.FormatInt(attempt, 10))
}

// pending are the message's rows that have no outcome for its attempt, with their values;
// those whose trace an earlier delivery stored get the outcome read from that trace.
func (w *Worker) pending(ctx context.Context, j store.ExperimentJob, m Message) ([]*rowWork, error) {
	idx := m.Rows
	if len(idx) == 0 {
		for i := m.From; i < min(m.To, j.Total); i++ {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil, nil
	}
	lo, hi := idx[0], idx[0]
	for _, i := range idx {
		lo, hi = min(lo, i), max(hi, i)
	}
	markers, err := store.JobRows(ctx, w.Table, j.ID, lo, hi+1)
	if err != nil {
		return nil, err
	}
	var rows []*rowWork
	byIndex := map[int64]*rowWork{}
	claims := []store.Key{}
	for _, i := range idx {
		mk, ok := markers[i]
		if ok && (mk.State == store.RowDone || mk.Attempt >= m.Attempt) {
			continue // recorded by this or a later attempt, or good already
		}
		r := &rowWork{index: i, traceID: TraceID(j.ID, i, m.Attempt), attempt: m.Attempt}
		if ok {
			r.before = &mk
		}
		rows = append(rows, r)
		byIndex[i] = r
		claims = append(claims, store.RecordClaimKey(j.ExperimentID, r.traceID))
	}
	if len(rows) == 0 {
		return nil, nil
	}
	if err := w.recoverStored(ctx, j, rows, claims, m.Attempt); err != nil {
		return nil, err
	}
	d, err := store.GetDataset(ctx, w.Table, j.OrgID, j.Plan.DatasetID)
	if err != nil {
		return nil, fmt.Errorf("chunk of job %s: %w", j.ID, err)
	}
	st, err := versionState(ctx, w.Table, d, j.Plan.DatasetVersion)
	if err != nil {
		return nil, fmt.Errorf("chunk of job %s: %w", j.ID, err)
	}
	cols := st.ColumnNames()
	for r, err := range store.ContentRows(ctx, w.Table, st, lo, hi+1) {
		if err != nil {
			return nil, err
		}
		if rw := byIndex[r.Index]; rw != nil {
			rw.values = rowMap(cols, r)
		}
	}
	return rows, nil
}

// recoverStored finds rows whose trace is stored but whose marker is not (a worker that
// stopped between the two): their outcome is read from the trace, not generated again.
func (w *Worker) recoverStored(ctx context.Context, j store.ExperimentJob, rows []*rowWork, claims []store.Key, attempt int64) error {
	items, err := w.Table.BatchGet(ctx, claims, true)
	if err != nil || len(items) == 0 {
		return err
	}
	stored := map[string]string{} // claim PK -> trace sort key
	for _, it := range items {
		sk, _ := it["record_sk"].(string)
		stored[it.Key().PK] = sk
	}
	for _, r := range rows {
		sk, ok := stored[store.RecordClaimKey(j.ExperimentID, r.traceID).PK]
		if !ok {
			continue
		}
		it, err := w.Table.Get(ctx, store.Key{PK: "RUN#" + j.ExperimentID, SK: sk}, true)
		if err != nil {
			return fmt.Errorf("chunk of job %s: read the trace of row %d: %w", j.ID, r.index, err)
		}
		var tr store.Trace
		if err := store.DecodeTrace(it, &tr); err != nil {
			return err
		}
		r.recover = true
		r.out = store.JobRow{Index: r.index, TraceID: r.traceID, Attempt: attempt, State: store.RowDone}
		if tr.ErrorMessage != nil {
			r.out.State, r.out.ErrorType = store.RowFailed, tr.Metadata["error_type"]
		}
		if tr.TotalTokens != nil {
			r.tokens = *tr.TotalTokens
		}
	}
	return nil
}

// generate calls the model for the rows not recovered, RowParallelism at a time, and
// builds their traces. A job's token budget refuses rows once the tokens the job used (as
// read when the chunk began) and this chunk's reach it.
func (w *Worker) generate(ctx context.Context, j store.ExperimentJob, rows []*rowWork) {
	par := w.RowParallelism
	if par <= 0 {
		par = DefaultRowParallelism
	}
	used := atomic.Int64{}
	used.Store(j.Tokens)
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for _, r := range rows {
		if r.recover {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			w.generateRow(ctx, j, r, &used)
		}()
	}
	wg.Wait()
}

func (w *Worker) generateRow(ctx context.Context, j store.ExperimentJob, r *rowWork, used *atomic.Int64) {
	msgs := Render(j.Plan.Messages, r.values)
	start := w.now()
	var ans Answer
	var err error
	if j.Plan.TokenBudget > 0 && used.Load() >= j.Plan.TokenBudget {
		err = &ModelError{Type: ErrBudget, Message: fmt.Sprintf("the experiment's token budget of %d is spent", j.Plan.TokenBudget)}
	} else {
		ans, err = w.Model.Complete(ctx, Completion{OrgID: j.OrgID, UserID: j.CreatedBy, ModelName: j.Plan.Model,
			Messages: msgs, Settings: j.Plan.Settings})
	}
	if ctx.Err() != nil {
		return // the delivery is abandoned; the row is done again on the next
	}
	end := w.now()
	tr := w.trace(ctx, j, r, msgs, ans, err, start, end)
	r.trace = &tr
	r.out = store.JobRow{Index: r.index, TraceID: r.traceID, Attempt: r.attempt, State: store.RowDone}
	if err != nil {
		r.out.State, r.out.ErrorType = store.RowFailed, errorType(err)
	}
	r.tokens = ans.InputTokens + ans.OutputTokens
	used.Add(r.tokens)
}
