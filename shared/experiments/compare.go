package experiments

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Comparing experiments (beyond the specification; docs/EXPERIMENTS.md): two to ten
// experiments of one dataset side by side, in aggregate (their run summaries, as operation
// 12 shows them) and per dataset row (each experiment's trace of that row), rows paginated
// in index order.

const (
	maxCompared        = 10
	defaultCompareRows = 100
	maxCompareRows     = 1000
)

type compareExperiment struct {
	ID                         string                      `json:"id"`
	Name                       string                      `json:"name"`
	DatasetVersionIndex        int64                       `json:"dataset_version_index"`
	PromptModel                *string                     `json:"prompt_model"`
	NumTraces                  int64                       `json:"num_traces"`
	AggregateMetrics           map[string]any              `json:"aggregate_metrics"`
	StructuredAggregateMetrics map[string]metricAggregates `json:"structured_aggregate_metrics"`
	RankingScore               *float64                    `json:"ranking_score"`
	Rank                       *int64                      `json:"rank"`
	Winner                     *bool                       `json:"winner"`
}

type compareResult struct {
	TraceID      string         `json:"trace_id"`
	Output       any            `json:"output"`
	StatusCode   *int64         `json:"status_code"`
	ErrorMessage *string        `json:"error_message"`
	LatencyMs    *float64       `json:"latency_ms"`
	TotalTokens  *int64         `json:"total_tokens"`
	TotalCost    *float64       `json:"total_cost"`
	Metrics      map[string]any `json:"metrics"`
}

type compareRow struct {
	Index         int64                     `json:"index"`
	DatasetInput  *string                   `json:"dataset_input"`
	DatasetOutput *string                   `json:"dataset_output"`
	Results       map[string]*compareResult `json:"results"`
}

type compareResponse struct {
	DatasetID         string              `json:"dataset_id"`
	Experiments       []compareExperiment `json:"experiments"`
	Metrics           []string            `json:"metrics"`
	Rows              []compareRow        `json:"rows"`
	StartingToken     int                 `json:"starting_token"`
	Limit             int                 `json:"limit"`
	Paginated         bool                `json:"paginated"`
	NextStartingToken *int                `json:"next_starting_token"`
}

// compareRequest is the body of a comparison: the experiments (once each), and the page.
type compareRequest struct {
	ids          []string
	start, limit int
}

func readCompare(errs *validate.Errors, raw any, present bool) compareRequest {
	req := compareRequest{limit: defaultCompareRows}
	if o, ok := errs.Body(raw, present).Required().Object(); ok {
		items, _ := o.Get("experiment_ids").Required().List(validate.MinLen(2), validate.MaxLen(maxCompared))
		for _, it := range items {
			if id, ok := it.UUID(4); ok && !slices.Contains(req.ids, id) {
				req.ids = append(req.ids, id)
			}
		}
		if n, ok := o.Get("starting_token").Nullable().Int(validate.Ge(0)); ok {
			req.start = int(n)
		}
		if n, ok := o.Get("limit").Nullable().Int(validate.Ge(1), validate.Le(maxCompareRows)); ok {
			req.limit = int(n)
		}
	}
	return req
}

// compare is POST /v2/projects/{project_id}/experiments/compare with
// {experiment_ids: [2..10 ids], starting_token, limit}.
func (h *handlers) compare(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("project_id", 4, readCompare))
	if err != nil {
		return err
	}
	c, projectID, ctx := call.Caller, call.In.ID, r.Context()
	ids, start, limit := call.In.Req.ids, call.In.Req.start, call.In.Req.limit
	if _, err := h.Project(ctx, c, projectID); err != nil {
		return err
	}
	exps := make([]store.Experiment, len(ids))
	for i, id := range ids {
		exps[i], err = store.GetExperiment(ctx, h.Table, c.OrgID, projectID, id)
		if errors.Is(err, store.ErrNotFound) {
			return httpapi.NotFound("Experiment")
		}
		if err != nil {
			return err
		}
	}
	if len(ids) < 2 {
		return validate.Single(validate.ValueError([]any{"body", "experiment_ids"}, ids, "name at least two different experiments"))
	}
	for i, e := range exps {
		if e.Dataset == nil || e.Dataset.DatasetID != exps[0].Dataset.DatasetID {
			return validate.Single(validate.ValueError([]any{"body", "experiment_ids", i}, e.ID,
				"the experiments must run on one dataset"))
		}
	}
	out, err := h.comparison(ctx, exps, start, limit)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *handlers) comparison(ctx context.Context, exps []store.Experiment, start, limit int) (compareResponse, error) {
	ids := make([]string, len(exps))
	for i, e := range exps {
		ids[i] = e.ID
	}
	sums, err := store.GetRunSummaries(ctx, h.Table, ids)
	if err != nil {
		return compareResponse{}, err
	}
	ranks := rankExperiments(ids, sums)
	out := compareResponse{DatasetID: exps[0].Dataset.DatasetID, Experiments: make([]compareExperiment, len(exps)),
		Metrics: []string{}, Rows: []compareRow{}, StartingToken: start, Limit: limit}
	metricSet := map[string]bool{}
	for i, e := range exps {
		sum := sums[e.ID]
		ce := compareExperiment{ID: e.ID, Name: e.Name, DatasetVersionIndex: e.Dataset.VersionIndex, PromptModel: promptModel(e),
			NumTraces: sum.NumTraces, AggregateMetrics: map[string]any{}, StructuredAggregateMetrics: map[string]metricAggregates{},
			RankingScore: ranks[e.ID].score, Rank: ranks[e.ID].rank, Winner: ranks[e.ID].winner}
		for name, st := range sum.Metrics {
			agg := aggregatesOf(st)
			ce.StructuredAggregateMetrics[name] = agg
			if agg.Average != nil {
				ce.AggregateMetrics[name] = *agg.Average
			}
			if !metricSet[name] {
				metricSet[name] = true
				out.Metrics = append(out.Metrics, name)
			}
		}
		out.Experiments[i] = ce
	}
	slices.Sort(out.Metrics)
	rows := map[int64]*compareRow{}
	for _, e := range exps {
		err := store.ScanTraces(ctx, h.Table, e.ID, time.Time{}, time.Now().Add(24*time.Hour), store.ScanOptions{Content: true}, func(tr *store.Trace) error {
			idx, err := strconv.ParseInt(tr.Metadata["dataset_row_index"], 10, 64)
			if err != nil {
				return nil // a trace the runner did not write (sent by a client): no row
			}
			row := rows[idx]
			if row == nil {
				row = &compareRow{Index: idx, DatasetInput: tr.DatasetInput, DatasetOutput: tr.DatasetOutput, Results: map[string]*compareResult{}}
				rows[idx] = row
			}
			res := &compareResult{TraceID: tr.ID, Output: tr.Output, StatusCode: tr.StatusCode, ErrorMessage: tr.ErrorMessage,
				LatencyMs: tr.LatencyMs, TotalTokens: tr.TotalTokens, TotalCost: tr.TotalCost, Metrics: map[string]any{}}
			if tr.Output.IsNull() {
				res.Output = nil
			}
			for name, v := range tr.Metrics {
				res.Metrics[name] = metricJSON(v)
			}
			row.Results[e.ID] = res
			return nil
		})
		if err != nil {
			return compareResponse{}, err
		}
	}
	order := make([]int64, 0, len(rows))
	for idx := range rows {
		order = append(order, idx)
	}
	slices.Sort(order)
	for i := start; i < len(order) && i < start+limit; i++ {
		row := rows[order[i]]
		for _, e := range exps {
			if _, ok := row.Results[e.ID]; !ok {
				row.Results[e.ID] = nil // the experiment has no trace of this row (yet)
			}
		}
		out.Rows = append(out.Rows, *row)
	}
	if start+limit < len(order) {
		next := start + limit
		out.NextStartingToken, out.Paginated = &next, true
	}
	return out, nil
}

// metricJSON is a metric value as JSON: its number, category, boolean, or error object.
func metricJSON(v store.MetricValue) any {
	switch {
	case v.Number != nil:
		return *v.Number
	case v.Category != nil:
		return *v.Category
	case v.Bool != nil:
		return *v.Bool
	case v.Error != nil:
		return map[string]any{"error": v.Error.Message, "code": v.Error.Code}
	}
	return nil
}
