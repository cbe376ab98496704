package records

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/store"
)

// Ingest writes traces into run and, in the same transactions, folds them into the run
// summary, the session claims, the column summary and the roll-ups: a search right after
// the request sees them, no stream or queue has to be run, and a trace is stored if and
// only if it is counted. Traces already stored (a retried request) are left out, so nothing
// counts twice. The traces go in chunks of one transaction each, one after another (they
// share the summary and the totals); when a chunk cannot be written, the error says so
// and the chunks before it stay written, complete. It returns the number of traces written.
func Ingest(ctx context.Context, t store.Table, run store.Run, traces []store.Trace, now time.Time) (int, error) {
	return IngestWithSessions(ctx, t, run, traces, now, nil)
}

// IngestWithSessions is Ingest with the sessions the request describes (an external id's session).
func IngestWithSessions(ctx context.Context, t store.Table, run store.Run, traces []store.Trace, now time.Time, sessions map[string]store.LogSession) (int, error) {
	in := &ingestion{t: t, runID: run.ID, now: now, stored: map[store.Key]bool{}, claimed: map[string]bool{},
		cur: map[store.Key]store.Item{}, traces: map[store.Key]bool{}, session: map[store.Key]string{}, newSessions: sessions}
	var keys []store.Key
	unique := make([]store.Trace, 0, len(traces))
	for i := range traces {
		tr := &traces[i]
		tr.RunID, tr.ProjectID, tr.OrgID = run.ID, run.ProjectID, run.OrgID
		for j := range tr.Spans {
			sp := &tr.Spans[j]
			sp.RunID, sp.ProjectID, sp.OrgID, sp.TraceID = run.ID, run.ProjectID, run.OrgID, tr.ID
			if sp.SessionID == nil {
				sp.SessionID = tr.SessionID
			}
		}
		k := store.RecordClaimKey(tr.RunID, tr.ID)
		if in.traces[k] {
			continue // the same trace twice in one request is stored once
		}
		in.traces[k] = true
		keys = append(keys, k)
		unique = append(unique, *tr)
		if tr.SessionID != nil {
			sk := store.SessionKey(run.ID, *tr.SessionID)
			if in.session[sk] == "" {
				in.session[sk] = *tr.SessionID
				keys = append(keys, sk)
			}
		}
	}
	if len(unique) == 0 {
		return 0, nil
	}
	for _, d := range rollupDeltas(unique) {
		keys = append(keys, store.RollupKey(run.ID, d.Level, d.Group, d.Minute, d.Value))
	}
	keys = append(keys, store.RunSummaryKey(run.ID))
	if err := in.read(ctx, keys); err != nil {
		return 0, err
	}
	pending := unique[:0:0]
	for _, tr := range unique {
		if !in.stored[store.RecordClaimKey(tr.RunID, tr.ID)] {
			pending = append(pending, tr)
		}
	}
	// A trace's few spans go in its chunk's transaction. The spans of a trace with many go
	// first, in idempotent batches: a trace is stored (and counted) only after its spans, so
	// it is never read without them, and a retry after a failure in between writes the same
	// span items again.
	var spans []store.Span
	for _, tr := range pending {
		if len(tr.Spans) > InlineSpans {
			spans = append(spans, tr.Spans...)
		}
	}
	if len(spans) > 0 {
		if err := store.PutSpans(ctx, t, spans); err != nil {
			return 0, fmt.Errorf("ingest: %w", err)
		}
	}
	// Traces of one minute share their roll-up items: chunked together they need an update
	// of each once, not once per chunk (a tenth of the updates for traces spread over minutes).
	slices.SortStableFunc(pending, func(a, b store.Trace) int {
		return a.CreatedAt.Truncate(time.Minute).Compare(b.CreatedAt.Truncate(time.Minute))
	})
	written := 0
	for _, chunk := range chunks(pending, in.claimed) {
		n, err := in.commit(ctx, chunk)
		if err != nil {
			return written, err
		}
		written += n
	}
	return written, nil
}

// chunks splits traces, in order, into runs whose transaction holds at most chunkActions
// actions (a put per trace and per new session, an update per roll-up item, the two
// summaries) and about chunkBytes bytes.
func chunks(traces []store.Trace, claimed map[string]bool) [][]store.Trace {
	var out [][]store.Trace
	var start, actions, bytes int
	var rollups map[store.Key]bool
	var sessions map[string]bool
	reset := func(i int) {
		start, actions, bytes = i, fixedActions, 0
		rollups, sessions = map[store.Key]bool{}, map[string]bool{}
	}
	reset(0)
	for i := 0; i < len(traces); {
		tr := &traces[i]
		it, _ := store.TraceItem(*tr)
		addActions, addBytes := 2, store.ItemSize(it) // the trace and the claim of its id
		if len(tr.Spans) <= InlineSpans {
			for _, sp := range tr.Spans {
				si, _ := store.SpanItem(sp)
				addActions, addBytes = addActions+1, addBytes+store.ItemSize(si)
			}
		}
		newSession := tr.SessionID != nil && !claimed[*tr.SessionID] && !sessions[*tr.SessionID]
		if newSession {
			addActions += 3 // the run's claim, the record, the claim of its id
		}
		var newRollups []store.Key
		for _, d := range rollupDeltas(traces[i : i+1]) {
			u := store.RollupUpdate(tr.RunID, d)
			if !rollups[u.Key] {
				newRollups = append(newRollups, u.Key)
				addActions++
				addBytes += 2 * store.UpdateSize(u) // with room for the min and max
			}
		}
		if i > start && (actions+addActions > chunkActions || bytes+addBytes > chunkBytes) {
			out = append(out, traces[start:i])
			reset(i) // and plan the trace again, in the new chunk
			continue
		}
		actions, bytes = actions+addActions, bytes+addBytes
		if newSession {
			sessions[*tr.SessionID] = true
		}
		for _, k := range newRollups {
			rollups[k] = true
		}
		i++
	}
	if start < len(traces) {
		out = append(out, traces[start:])
	}
	return out
}

// summaryDelta is what traces add to the run summary.
func summaryDelta(runID string, traces []store.Trace, sessions int64) store.RunSummary {
	d := store.RunSummary{RunID: runID, NumTraces: int64(len(traces)), NumSessions: sessions,
		Metrics: map[string]store.MetricStats{}}
	// Sums are exact (shared/fixed), so that the sum of a chunk does not depend on the
	// order or the chunking of the traces.
	observe := func(name string, f float64) {
		v, err := fixed.FromFloat(f)
		if err != nil { // never, for values within the bound
			return
		}
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
			observe(MetricLatency, *tr.LatencyMs)
		}
		if tr.TotalTokens != nil {
			observe(MetricTotalTokens, float64(*tr.TotalTokens))
		}
		if tr.TotalCost != nil {
			observe(MetricTotalCost, *tr.TotalCost)
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
			} else if vals := GroupValues(&tr, c, nil); len(vals) > 0 {
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
