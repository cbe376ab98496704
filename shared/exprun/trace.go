package exprun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// Status codes of a row's trace: 200 answered; the provider's status when it gave one,
// else 429 for a rate limit, 504 for a timeout, 402 for a spent budget, 500 otherwise.
func statusOf(err error) int64 {
	if err == nil {
		return 200
	}
	var me *ModelError
	if errors.As(err, &me) && me.Status != 0 {
		return int64(me.Status)
	}
	switch errorType(err) {
	case ErrRateLimit:
		return 429
	case ErrTimeout:
		return 504
	case ErrBudget:
		return 402
	case ErrCredentials:
		return 401
	case ErrConfiguration:
		return 400
	}
	return 500
}

// trace is the record of one generated row: input the rendered messages, output the
// answer, the dataset's input and output columns, the other columns as dataset metadata,
// latency, tokens, cost when the model has a price, the status code and any error.
func (w *Worker) trace(ctx context.Context, j store.ExperimentJob, r *rowWork, msgs []store.PromptMessage, ans Answer, callErr error, start, end time.Time) store.Trace {
	in, _ := json.Marshal(msgs)
	model := j.Plan.Model
	status := statusOf(callErr)
	latency := float64(end.Sub(start).Microseconds()) / 1000
	tr := store.Trace{ID: r.traceID, RunID: j.ExperimentID, ProjectID: j.ProjectID, OrgID: j.OrgID, CreatedAt: start,
		Type: "trace", Name: "row " + strconv.FormatInt(r.index, 10), StatusCode: &status, IsComplete: true,
		Model: &model, Metadata: map[string]string{"dataset_row_index": strconv.FormatInt(r.index, 10), "job_id": j.ID}}
	tr.Input = store.Content(in)
	tr.LatencyMs = &latency
	if v, ok := r.values["input"]; ok {
		s := valueText(v)
		tr.DatasetInput = &s
	}
	for _, name := range []string{"output", "ground_truth", "expected_output"} {
		if v, ok := r.values[name]; ok && tr.DatasetOutput == nil {
			s := valueText(v)
			tr.DatasetOutput = &s
		}
	}
	for k, v := range r.values {
		if k != "input" && (tr.DatasetOutput == nil || k != "output") {
			if tr.DatasetMetadata == nil {
				tr.DatasetMetadata = map[string]string{}
			}
			tr.DatasetMetadata[k] = valueText(v)
		}
	}
	if t, ok := j.Plan.Settings["temperature"].(float64); ok {
		tr.Temperature = &t
	}
	if callErr != nil {
		msg := callErr.Error()
		tr.ErrorMessage = &msg
		tr.Metadata["error_type"] = errorType(callErr)
		return tr
	}
	tr.Output = store.StringContent(ans.Text)
	tr.DatasetGeneratedOutput = &ans.Text
	inTok, outTok, total := ans.InputTokens, ans.OutputTokens, ans.InputTokens+ans.OutputTokens
	tr.InputTokens, tr.OutputTokens, tr.TotalTokens = &inTok, &outTok, &total
	if ans.FinishReason != "" {
		tr.FinishReason = &ans.FinishReason
	}
	if ans.Provider != "" {
		tr.Provider = &ans.Provider
	}
	if w.Prices != nil {
		if inP, outP, ok := w.Prices.Price(ctx, j.OrgID, j.CreatedBy, model); ok {
			cost := (float64(inTok)*inP + float64(outTok)*outP) / 1e6
			tr.TotalCost = &cost
		}
	}
	return tr
}

// record writes the rows' markers with the job's counters, many rows per transaction; when
// one of them was recorded meanwhile (a duplicate delivery running alongside), the rows go
// one by one and those recorded by the other are left to it.
func (w *Worker) record(ctx context.Context, jobID string, rows []*rowWork) error {
	var outs []store.RowOutcome
	for _, r := range rows {
		if r.out.State == "" {
			continue // not generated (the delivery was abandoned)
		}
		outs = append(outs, store.RowOutcome{Row: r.out, Before: r.before, Tokens: r.tokens})
	}
	for i := 0; i < len(outs); i += recordBatch {
		part := outs[i:min(i+recordBatch, len(outs))]
		err := store.RecordRowOutcomes(ctx, w.Table, jobID, part, w.now())
		if err == nil {
			continue
		}
		if !errors.Is(err, store.ErrConditionFailed) && !errors.Is(err, store.ErrConflict) {
			return err
		}
		for _, o := range part {
			err := store.RecordRowOutcomes(ctx, w.Table, jobID, []store.RowOutcome{o}, w.now())
			if err != nil && !errors.Is(err, store.ErrConditionFailed) {
				return fmt.Errorf("record row %d of job %s: %w", o.Row.Index, jobID, err)
			}
		}
	}
	return nil
}

// finish ends a running job whose rows all have an outcome: completed, or failed when no
// row succeeded. Any worker may see the last row recorded; the state moves once.
func (w *Worker) finish(ctx context.Context, jobID string) error {
	j, err := store.GetExperimentJob(ctx, w.Table, "", jobID)
	if err != nil {
		return err
	}
	if j.State != store.JobRunning || j.Done+j.Failed < j.Total {
		return nil
	}
	state := store.JobCompleted
	if j.Done == 0 {
		state = store.JobFailed
	}
	err = store.SetJobState(ctx, w.Table, jobID, []string{store.JobRunning}, state, w.now(), nil)
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return err
	}
	return nil
}
