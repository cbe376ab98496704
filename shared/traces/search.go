package traces

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// searchInput is what a metrics search asks: the body is kept as sent too, for the
// problems found once the run is known (checkColumns), which point into it.
type searchInput struct {
	projectID string
	q         searchRequest
	raw       any
}

// search is operation 10: POST /v2/projects/{project_id}/metrics/search.
func (h *handlers) search(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (x searchInput) {
		x.projectID, _ = in.Path("project_id").UUID(4)
		x.q, x.raw = readSearch(in.Errs, in.Raw, in.Present), in.Raw
		return x
	})
	if err != nil {
		return err
	}
	c, projectID, q, raw := call.Caller, call.In.projectID, call.In.q, call.In.raw
	// The run's summary (its trace count bounds a scan) is read while the run is looked
	// up, and used only once the run is known to be the caller's.
	type summary struct {
		sums map[string]store.RunSummary
		err  error
	}
	sc := make(chan summary, 1)
	go func() {
		sums, err := store.GetRunSummaries(r.Context(), h.Table, []string{q.run.id})
		sc <- summary{sums, err}
	}()
	run, err := h.findRun(r.Context(), c, projectID, q.run)
	s := <-sc
	if err != nil {
		return err
	}
	if s.err != nil {
		return s.err
	}
	external := methodExternal
	// The summary's metrics name the external evaluators' metrics too: no read more.
	run.Scorers = withExternal(run.Scorers, summaryColumns(s.sums[q.run.id]), &external)
	n := s.sums[q.run.id].NumTraces
	q.runTraces = &n
	q.resolve = func(ctx context.Context, c *store.RecordContent) error { return payload.Resolve(ctx, h.Payloads, c) }
	if err := checkColumns(run, q, raw); err != nil {
		return err
	}
	res, err := runSearch(r.Context(), h.Table, run, q, h.ScanBound)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, res)
	return nil
}

// checkColumns applies the rules that need the run's catalog: each filter names a filterable
// column of the filter's kind, and group_by names a column.
func checkColumns(run store.Run, q searchRequest, raw any) error {
	cat := columns.ForSettings(run.MetricSettings)
	errs := validate.New()
	body, _ := raw.(map[string]any)
	list, _ := body["filters"].([]any)
	for i, f := range q.filters {
		if !columnAccepts(cat, f) {
			var input any = f.column // the column as sent under "name" (or its alias column_id)
			if i < len(list) {
				if obj, ok := list[i].(map[string]any); ok {
					if v, ok := obj["name"]; ok {
						input = v
					} else if v, ok := obj["column_id"]; ok {
						input = v
					}
				}
			}
			errs.Add(validate.ValueError([]any{"body", "filters", i, f.kind, "name"}, input,
				fmt.Sprintf("column %q is not a filterable column of filter_type %s", f.column, f.kind)))
		}
	}
	if q.groupBy != "" {
		if _, ok := cat.Lookup(q.groupBy); !ok {
			errs.Add(validate.ValueError([]any{"body", "group_by"}, q.groupBy,
				fmt.Sprintf("group_by %q is not a column of the run", q.groupBy)))
		}
	}
	return errs.Err()
}

// errTooWide is the 422 of a query that would scan more traces than the bound.
func errTooWide(body any, estimate, bound int64) error {
	return validate.Single(validate.ValueError([]any{"body"}, body, fmt.Sprintf(
		"the query would scan about %d traces, more than the limit of %d: narrow start_time and end_time, "+
			"or drop the filters (or filter on a single one of model, provider, name, type, status_code) "+
			"and use whole-minute start_time and end_time so that roll-ups answer it", estimate, bound)))
}

// runSearch plans and runs a validated search over run.
func runSearch(ctx context.Context, t store.Table, run store.Run, q searchRequest, bound int64) (*searchResponse, error) {
	return searchWith(ctx, t, run, q, bound, true)
}

// searchWith runs q, from the roll-ups when allowed and they can answer it, else by a scan.
func searchWith(ctx context.Context, t store.Table, run store.Run, q searchRequest, bound int64, rollups bool) (*searchResponse, error) {
	cat := columns.ForSettings(run.MetricSettings)
	a := newAggregator(q.start, q.end, q.interval, metricsFor(run))
	if col, level, ok := rollupPlan(q); ok && rollups {
		if err := fromRollups(ctx, t, run.ID, q, level, col, a); err != nil {
			return nil, err
		}
		return a.response(q.groupBy != ""), nil
	}
	est, err := estimateScan(ctx, t, run.ID, q, bound)
	if err != nil {
		return nil, err
	}
	if est > bound {
		return nil, errTooWide(q.raw, est, bound)
	}
	var gcol columns.Column
	if q.groupBy != "" {
		gcol, _ = cat.Lookup(q.groupBy)
	}
	if err := fromScan(ctx, t, run.ID, q, gcol, a, est, bound); err != nil {
		return nil, err
	}
	return a.response(q.groupBy != ""), nil
}

// rollupPlan reports whether roll-ups answer q exactly, from which group column and level:
// the range must be whole minutes, group_by absent or a roll-up column, and every filter on
// one single-valued roll-up column that group_by (if any) is too. Such a filter is a test of
// the group value, which each roll-up row knows. Hour roll-ups serve a range of whole hours
// in buckets of whole hours (60 times fewer items); minute roll-ups any other.
func rollupPlan(q searchRequest) (string, store.RollupLevel, bool) {
	if !aligned(q.start, q.end, time.Minute) {
		return "", "", false
	}
	col := q.groupBy
	if col != "" && !records.IsRollupColumn(col) {
		return "", "", false
	}
	for _, f := range q.filters {
		if f.column == "tags" || !records.IsRollupColumn(f.column) || (col != "" && f.column != col) {
			return "", "", false
		}
		col = f.column
	}
	if col == "" {
		col = store.RollupAll
	}
	if aligned(q.start, q.end, time.Hour) && q.interval%time.Hour == 0 {
		return col, store.RollupHour, true
	}
	return col, store.RollupMinute, true
}

// aligned reports whether both times are whole periods (UTC).
func aligned(a, b time.Time, period time.Duration) bool {
	return a.Truncate(period).Equal(a) && b.Truncate(period).Equal(b)
}

// fromRollups folds the roll-ups of col over the range, keeping the rows the filters pass.
func fromRollups(ctx context.Context, t store.Table, runID string, q searchRequest, level store.RollupLevel, col string, a *aggregator) error {
	return store.ScanRollups(ctx, t, runID, level, col, q.start, q.end, func(r store.Rollup) error {
		if len(q.filters) > 0 {
			tr := records.WithField(col, r.Value)
			for _, f := range q.filters {
				if !f.match(tr) {
					return nil
				}
			}
		}
		g := ""
		if q.groupBy != "" {
			g = r.Value
		}
		a.addRollup(g, r)
		return nil
	})
}

// estimateHours bounds the roll-up rows read to estimate a scan more closely than the run
// summary does.
const estimateHours = 20_000

// estimateScan estimates how many traces a scan of q reads: the run's trace count, or when
// that passes the bound and the range is short enough, the count of the hours overlapping
// the range from the hourly roll-up totals (an over-estimate by at most the two edge hours).
func estimateScan(ctx context.Context, t store.Table, runID string, q searchRequest, bound int64) (int64, error) {
	var est int64
	if q.runTraces != nil {
		est = *q.runTraces
	} else {
		sums, err := store.GetRunSummaries(ctx, t, []string{runID})
		if err != nil {
			return 0, err
		}
		est = sums[runID].NumTraces
	}
	if est <= bound || q.end.Sub(q.start) > estimateHours*time.Hour {
		return est, nil
	}
	from, to := q.start.Truncate(time.Hour), q.end.Add(-1).Truncate(time.Hour).Add(time.Hour)
	var n int64
	err := store.ScanRollups(ctx, t, runID, store.RollupHour, store.RollupAll, from, to, func(r store.Rollup) error {
		n += r.Count
		return nil
	})
	return n, err
}
