package traces

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Limits of one ingestion request.
const (
	maxTracesPerRequest = 1000
	maxSpansPerTrace    = 500
	// maxTagsPerTrace keeps a trace and everything it adds in one transaction (100
	// actions): its put, a session claim, the run and column summaries, and, per minute and
	// per hour, the totals, five group columns and one row per tag: 16 + 2 per tag.
	maxTagsPerTrace = 40
)

var (
	severities = []string{"low", "medium", "high", "critical"}
	errorTypes = []string{"llm_api_error", "credentials_error", "data_validation_error", "configuration_error",
		"permission_error", "not_found_error", "workflow_error", "rate_limit_error", "system_error",
		"not_applicable_reason", "uncataloged_error"}
	spanTypes = []string{"workflow", "http", "agent", "llm", "control", "tool", "retriever"}
)

// ingestRequest is a validated body of trace ingestion.
type ingestRequest struct {
	run    runRef
	traces []store.Trace
}

// readIngest reads the body: exactly one of log_stream_id and experiment_id, and 1..1000
// traces. A trace without id gets a fresh one (and so cannot be deduplicated on retry), one
// without created_at gets now.
func readIngest(errs *validate.Errors, raw any, present bool, now time.Time) ingestRequest {
	var q ingestRequest
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return q
	}
	before := errs.Len()
	runFields := []string{"log_stream_id", "experiment_id"}
	run, oneRun := readRun(o, runFields)
	q.run = run
	items, _ := o.Get("traces").Required().List(validate.MinLen(1), validate.MaxLen(maxTracesPerRequest))
	for _, it := range items {
		tr := readTrace(it, now)
		// A trace is one item; one past DynamoDB's item limit could never be stored.
		if item, err := store.TraceItem(tr); err == nil && store.ItemSize(item) > store.MaxItemBytes {
			it.Fail(fmt.Sprintf("the trace with its spans is %d bytes once stored, more than the limit of %d",
				store.ItemSize(item), store.MaxItemBytes))
		}
		q.traces = append(q.traces, tr)
	}
	if errs.Len() == before && !oneRun {
		errs.Add(oneRunError(o, runFields))
	}
	return q
}

// str, optStr, ... read optional fields of a record.
func str(o validate.Obj, name string) string {
	s, _ := o.Get(name).Nullable().String()
	return s
}

func optStr(o validate.Obj, name string) *string {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	s, ok := v.String()
	if !ok {
		return nil
	}
	return &s
}

func optInt(o validate.Obj, name string, rules ...validate.Rule) *int64 {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	n, ok := v.Int(rules...)
	if !ok {
		return nil
	}
	return &n
}

func optFloat(o validate.Obj, name string, rules ...validate.Rule) *float64 {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	f, ok := v.Float(rules...)
	if !ok {
		return nil
	}
	return &f
}

func optTime(o validate.Obj, name string) *time.Time {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	t, ok := v.Datetime()
	if !ok {
		return nil
	}
	t = t.UTC()
	return &t
}

func optUUID(o validate.Obj, name string) *string {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	s, ok := v.UUID(0)
	if !ok {
		return nil
	}
	return &s
}

func idOrNew(o validate.Obj) string {
	if id := optUUID(o, "id"); id != nil {
		return *id
	}
	return uuid.NewString()
}

// The numbers that are summed (latency, tokens, cost, numeric metric values) are bounded so
// that their sums are exact (shared/fixed): |v| <= fixed.Bound, 422 beyond it.
var (
	summedNonNegative = []validate.Rule{validate.Ge(0), validate.Le(int64(fixed.Bound))}
	summed            = []validate.Rule{validate.Ge(-int64(fixed.Bound)), validate.Le(int64(fixed.Bound))}
)

// tokens reads total_tokens, or the sum of input_tokens and output_tokens.
func tokens(o validate.Obj) *int64 {
	if n := optInt(o, "total_tokens", summedNonNegative...); n != nil {
		return n
	}
	in, out := optInt(o, "input_tokens", summedNonNegative...), optInt(o, "output_tokens", summedNonNegative...)
	if in == nil && out == nil {
		return nil
	}
	var n int64
	for _, p := range []*int64{in, out} {
		if p != nil {
			n += *p
		}
	}
	if n > int64(fixed.Bound) {
		o.Get("output_tokens").Add(validate.LessThanEqual(o.Get("output_tokens").Loc(), o.Get("output_tokens").Raw(),
			int64(fixed.Bound)-*in))
		return nil
	}
	return &n
}

func readTrace(v validate.Value, now time.Time) store.Trace {
	o, ok := v.Object()
	if !ok {
		return store.Trace{}
	}
	tr := store.Trace{ID: idOrNew(o), Type: "trace", CreatedAt: now, IsComplete: true,
		Name: str(o, "name"), Input: str(o, "input"), Output: str(o, "output"),
		UpdatedAt: optTime(o, "updated_at"), StatusCode: optInt(o, "status_code"),
		ExternalID: optStr(o, "external_id"), DatasetInput: optStr(o, "dataset_input"),
		DatasetOutput: optStr(o, "dataset_output"), DatasetGeneratedOutput: optStr(o, "dataset_generated_output"),
		ErrorMessage: optStr(o, "error_message"), ProgressMessage: optStr(o, "progress_message"),
		SessionID: optUUID(o, "session_id"), Model: optStr(o, "model"), Provider: optStr(o, "provider"),
		Temperature: optFloat(o, "temperature"), FinishReason: optStr(o, "finish_reason"),
		LatencyMs: optFloat(o, "latency_ms", summedNonNegative...), TotalTokens: tokens(o),
		TotalCost: optFloat(o, "total_cost", summedNonNegative...)}
	if t := optTime(o, "created_at"); t != nil {
		tr.CreatedAt = *t
	}
	if c := o.Get("is_complete").Nullable(); c.Present() && !c.IsNull() {
		tr.IsComplete, _ = c.Bool()
	}
	if tv := o.Get("tags").Nullable(); tv.Present() && !tv.IsNull() {
		tags, _ := tv.List(validate.MaxLen(maxTagsPerTrace))
		for _, t := range tags {
			if s, ok := t.String(); ok {
				tr.Tags = append(tr.Tags, s)
			}
		}
	}
	if m := o.Get("metadata").Nullable(); m.Present() && !m.IsNull() {
		tr.Metadata, _ = m.StringMap()
	}
	tr.Metrics = readMetrics(o.Get("metrics").Nullable())
	if sv := o.Get("spans").Nullable(); sv.Present() && !sv.IsNull() {
		spans, _ := sv.List(validate.MaxLen(maxSpansPerTrace))
		for _, s := range spans {
			tr.Spans = append(tr.Spans, readSpan(s, tr))
		}
	}
	tr.HasChildren = len(tr.Spans) > 0
	return tr
}

func readSpan(v validate.Value, tr store.Trace) store.Span {
	o, ok := v.Object()
	if !ok {
		return store.Span{}
	}
	sp := store.Span{ID: idOrNew(o), ParentID: tr.ID, Name: str(o, "name"), Input: str(o, "input"),
		Output: str(o, "output"), CreatedAt: tr.CreatedAt, StepNumber: optInt(o, "step_number"),
		Model: optStr(o, "model"), Provider: optStr(o, "provider"), Temperature: optFloat(o, "temperature"),
		FinishReason: optStr(o, "finish_reason"), Tools: optStr(o, "tools"), ToolCallID: optStr(o, "tool_call_id"),
		AgentType: optStr(o, "agent_type"), AgentName: optStr(o, "agent_name"), StatusCode: optInt(o, "status_code"),
		LatencyMs: optFloat(o, "latency_ms", summedNonNegative...), TotalTokens: tokens(o),
		TotalCost: optFloat(o, "total_cost", summedNonNegative...)}
	sp.Type, _ = o.Get("type").Required().Enum(spanTypes...)
	if p := optUUID(o, "parent_id"); p != nil {
		sp.ParentID = *p
	}
	if t := optTime(o, "created_at"); t != nil {
		sp.CreatedAt = *t
	}
	if m := o.Get("metadata").Nullable(); m.Present() && !m.IsNull() {
		sp.Metadata, _ = m.StringMap()
	}
	for _, f := range []string{"check_stage", "applies_to", "evaluator_name", "selector_path"} {
		if s := optStr(o, f); s != nil {
			if sp.Control == nil {
				sp.Control = map[string]string{}
			}
			sp.Control[f] = *s
		}
	}
	if n := optInt(o, "control_id"); n != nil {
		if sp.Control == nil {
			sp.Control = map[string]string{}
		}
		b, _ := json.Marshal(*n)
		sp.Control["control_id"] = string(b)
	}
	return sp
}

// readMetrics reads {scorer name: number | category string | bool | error record}.
func readMetrics(v validate.Value) map[string]store.MetricValue {
	if !v.Present() || v.IsNull() {
		return nil
	}
	o, ok := v.Dict()
	if !ok {
		return nil
	}
	out := make(map[string]store.MetricValue, len(o.Keys()))
	for _, name := range o.Keys() {
		mv := o.Get(name)
		switch x := mv.Raw().(type) {
		case string:
			out[name] = store.MetricValue{Category: &x}
		case bool:
			out[name] = store.MetricValue{Bool: &x}
		case map[string]any:
			if e, ok := readScorerError(mv); ok {
				out[name] = store.MetricValue{Error: &e}
			}
		default:
			if f, ok := mv.Float(summed...); ok {
				out[name] = store.MetricValue{Number: &f}
			}
		}
	}
	return out
}

func readScorerError(v validate.Value) (store.ScorerError, bool) {
	o, ok := v.Object()
	if !ok {
		return store.ScorerError{}, false
	}
	var e store.ScorerError
	var ok1, ok2, ok3 bool
	e.Code, ok1 = o.Get("code").Required().Int()
	e.Message, ok2 = o.Get("message").Required().String()
	e.Severity, ok3 = o.Get("severity").Required().Enum(severities...)
	e.ErrorType, e.ErrorGroup = "uncataloged_error", "scorer"
	if t := o.Get("error_type"); t.Present() {
		e.ErrorType, _ = t.Enum(errorTypes...)
	}
	if g := optStr(o, "error_group"); g != nil {
		e.ErrorGroup = *g
	}
	for _, b := range []struct {
		name string
		p    *bool
	}{{"retriable", &e.Retriable}, {"blocking", &e.Blocking}} {
		if f := o.Get(b.name).Nullable(); f.Present() && !f.IsNull() {
			*b.p, _ = f.Bool()
		}
	}
	return e, ok1 && ok2 && ok3
}
