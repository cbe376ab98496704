package traces

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// ingestResponse answers trace ingestion: the ids of the traces of the request, in order,
// and how many of them this request wrote (a retried trace already stored is not counted).
type ingestResponse struct {
	TraceIDs  []string `json:"trace_ids"`
	NumTraces int      `json:"num_traces"`
}

// maxIngestBody caps an ingestion body at the payload of a synchronous Lambda invocation:
// 1000 traces need more than the default cap.
const maxIngestBody = 6 << 20

// ingest is POST /v2/projects/{project_id}/traces.
func (h *handlers) ingest(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, maxIngestBody)
	if err != nil {
		return err
	}
	errs := validate.New()
	projectID, _ := errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	q := readIngest(errs, raw, present, h.Now().UTC())
	if err := errs.Err(); err != nil {
		return err
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	c, _ := callerOf(r)
	run, err := h.findRun(r.Context(), c, projectID, q.run)
	if err != nil {
		return err
	}
	n, err := Ingest(r.Context(), h.Table, run, q.traces, h.Now().UTC())
	if err != nil {
		return err
	}
	ids := make([]string, len(q.traces))
	for i, tr := range q.traces {
		ids[i] = tr.ID
	}
	httpapi.WriteJSON(w, http.StatusOK, ingestResponse{TraceIDs: ids, NumTraces: n})
	return nil
}

// Ingest writes traces into run and, for those this call wrote (a trace already stored is
// skipped, so a retried request counts nothing twice), folds them into the run summary, the
// column summary and the roll-ups, in the same call: a search right after the request sees
// them, and no stream or queue has to be run. It returns the number of traces written.
func Ingest(ctx context.Context, t store.Table, run store.Run, traces []store.Trace, now time.Time) (int, error) {
	for i := range traces {
		traces[i].RunID, traces[i].ProjectID, traces[i].OrgID = run.ID, run.ProjectID, run.OrgID
	}
	written, err := store.PutTraces(ctx, t, traces)
	if err != nil {
		return 0, err
	}
	fresh := make([]store.Trace, 0, len(traces))
	for i, ok := range written {
		if ok {
			fresh = append(fresh, traces[i])
		}
	}
	if len(fresh) == 0 {
		return 0, nil
	}
	// The session claims, the roll-ups and the column summary are independent: written at
	// once. The run summary waits for the count of new sessions.
	var sessions int64
	var errSessions, errRollups, errColumns error
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); sessions, errSessions = newSessions(ctx, t, run.ID, fresh) }()
	go func() { defer wg.Done(); errRollups = writeRollups(ctx, t, run.ID, rollupDeltas(fresh)) }()
	go func() {
		defer wg.Done()
		errColumns = store.MarkColumnsFilled(ctx, t, run.ID, filledColumns(fresh)...)
	}()
	wg.Wait()
	if err := errors.Join(errSessions, errRollups, errColumns); err != nil {
		return 0, err
	}
	if err := store.AddToRunSummary(ctx, t, run.ID, summaryDelta(run.ID, fresh, sessions), now); err != nil {
		return 0, err
	}
	return len(fresh), nil
}

// newSessions counts the sessions of traces that the run did not have yet, claiming each
// session id once in the run's partition.
func newSessions(ctx context.Context, t store.Table, runID string, traces []store.Trace) (int64, error) {
	seen := map[string]bool{}
	var n int64
	for _, tr := range traces {
		if tr.SessionID == nil || seen[*tr.SessionID] {
			continue
		}
		seen[*tr.SessionID] = true
		ok, err := store.ClaimSession(ctx, t, runID, *tr.SessionID)
		if err != nil {
			return 0, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// summaryDelta is what traces add to the run summary.
func summaryDelta(runID string, traces []store.Trace, sessions int64) store.RunSummary {
	d := store.RunSummary{RunID: runID, NumTraces: int64(len(traces)), NumSessions: sessions,
		Metrics: map[string]store.MetricStats{}}
	observe := func(name string, v float64) {
		s := d.Metrics[name]
		s.Observe(v)
		d.Metrics[name] = s
	}
	category := func(name, c string) {
		s := d.Metrics[name]
		s.ObserveCategory(c)
		d.Metrics[name] = s
	}
	for _, tr := range traces {
		d.NumSpans += int64(len(tr.Spans))
		if tr.LatencyMs != nil {
			observe(metricLatency, *tr.LatencyMs)
		}
		if tr.TotalTokens != nil {
			observe(metricTotalTokens, float64(*tr.TotalTokens))
		}
		if tr.TotalCost != nil {
			observe(metricTotalCost, *tr.TotalCost)
		}
		for name, v := range tr.Metrics {
			switch {
			case v.Number != nil:
				observe(name, *v.Number)
			case v.Category != nil:
				category(name, *v.Category)
			case v.Bool != nil:
				category(name, strconv.FormatBool(*v.Bool))
			}
		}
	}
	return d
}

// filledColumns are the catalog columns the traces hold a value in.
func filledColumns(traces []store.Trace) []string {
	set := map[string]bool{"input": true, "output": true, "name": true, "created_at": true, "id": true,
		"project_id": true, "run_id": true, "is_complete": true, "has_children": true, "type": true}
	for _, tr := range traces {
		for _, c := range columns.Standard() {
			if set[c.ID] {
				continue
			}
			if c.ID == "tags" {
				set[c.ID] = len(tr.Tags) > 0
			} else if vals := groupValues(&tr, c, nil); len(vals) > 0 {
				set[c.ID] = true
			}
		}
		for name, v := range tr.Metrics {
			if v.Error == nil {
				set[columns.MetricPrefix+name] = true
			}
		}
		for _, sp := range tr.Spans {
			markSpan(set, sp)
		}
	}
	out := make([]string, 0, len(set))
	for id, ok := range set {
		if ok {
			out = append(out, id)
		}
	}
	return out
}

func markSpan(set map[string]bool, sp store.Span) {
	set["trace_id"], set["parent_id"] = true, true
	for id, p := range map[string]bool{"step_number": sp.StepNumber != nil, "model": sp.Model != nil,
		"provider": sp.Provider != nil, "temperature": sp.Temperature != nil, "finish_reason": sp.FinishReason != nil,
		"tools": sp.Tools != nil, "tool_call_id": sp.ToolCallID != nil, "agent_type": sp.AgentType != nil,
		"agent_name": sp.AgentName != nil, "status_code": sp.StatusCode != nil} {
		set[id] = set[id] || p
	}
	for id := range sp.Control {
		set[id] = true
	}
}

// rollupWriters bounds the roll-up updates one request makes at once.
const rollupWriters = 8

func writeRollups(ctx context.Context, t store.Table, runID string, deltas []store.Rollup) error {
	next := make(chan store.Rollup)
	errs := make([]error, rollupWriters)
	var wg sync.WaitGroup
	for w := range rollupWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range next {
				if err := store.AddToRollup(ctx, t, runID, d); err != nil && errs[w] == nil {
					errs[w] = err
				}
			}
		}()
	}
	for _, d := range deltas {
		next <- d
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}
