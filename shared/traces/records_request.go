package traces

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Reading traces and spans as the original service's logging client sends them (its Trace,
// LlmSpan, RetrieverSpan, ToolSpan, WorkflowSpan, AgentSpan and ControlSpan), plus the
// columns of the catalog a client may send directly (latency_ms, total_tokens, model...).

// The numbers that are summed (latency, tokens, cost, numeric metric values) are bounded so
// that their sums are exact (shared/fixed): |v| <= fixed.Bound, 422 beyond it.
var (
	summedNonNegative = []validate.Rule{validate.Ge(0), validate.Le(int64(fixed.Bound))}
	summed            = []validate.Rule{validate.Ge(-int64(fixed.Bound)), validate.Le(int64(fixed.Bound))}
	nonNegative       = []validate.Rule{validate.Ge(0)}
)

// usageKeys are the keys of the client's metrics object (LlmMetrics) that are usage, not
// scorer values.
var usageKeys = map[string]bool{"duration_ns": true, "num_input_tokens": true, "num_output_tokens": true,
	"num_total_tokens": true, "time_to_first_token_ns": true, "num_image_input_tokens": true,
	"num_audio_input_tokens": true, "num_audio_output_tokens": true, "num_image_output_tokens": true}

// record is what traces and spans share as the request carries them.
type record struct {
	id, name   string
	createdAt  time.Time
	updatedAt  *time.Time
	tags       []string
	statusCode *int64
	externalID *string
	dsInput    *string
	dsOutput   *string
	dsMeta     map[string]string
	metadata   map[string]string
	usage      store.Usage
	metrics    map[string]store.MetricValue
	content    store.RecordContent
	stepNumber *int64
}

// readRecord reads the fields every record kind carries.
func readRecord(o validate.Obj, createdAt time.Time) record {
	r := record{id: idOrNew(o), name: str(o, "name"), createdAt: createdAt, updatedAt: optTime(o, "updated_at"),
		statusCode: optInt(o, "status_code"), externalID: optStr(o, "external_id"),
		dsInput: optStr(o, "dataset_input"), dsOutput: optStr(o, "dataset_output"),
		stepNumber: optInt(o, "step_number")}
	if t := optTime(o, "created_at"); t != nil {
		r.createdAt = *t
	}
	if tv := o.Get("tags").Nullable(); tv.Present() && !tv.IsNull() {
		tags, _ := tv.List(validate.MaxLen(maxTagsPerTrace))
		for _, t := range tags {
			if s, ok := t.String(); ok {
				r.tags = append(r.tags, s)
			}
		}
	}
	r.dsMeta = optStringMap(o, "dataset_metadata")
	// user_metadata is the client's name; metadata stays accepted.
	r.metadata = optStringMap(o, "metadata")
	if m := optStringMap(o, "user_metadata"); m != nil {
		r.metadata = m
	}
	r.usage, r.metrics = readMetricsObject(o.Get("metrics").Nullable())
	readUsage(o, &r.usage)
	r.content = store.RecordContent{Input: readContent(o, "input"), Output: readContent(o, "output"),
		RedactedInput: readContent(o, "redacted_input"), RedactedOutput: readContent(o, "redacted_output")}
	return r
}

func optStringMap(o validate.Obj, name string) map[string]string {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	m, _ := v.StringMap()
	return m
}

// readContent reads a content field as the JSON value sent: a string, a message or a list of
// messages, content parts or documents, a control result. Every number in it must be
// storable.
func readContent(o validate.Obj, name string) store.Content {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return nil
	}
	if !storableTree(v) {
		return nil
	}
	b, err := json.Marshal(v.Raw())
	if err != nil {
		v.Fail("not a JSON value")
		return nil
	}
	return store.Content(b)
}

// storableTree checks every number of a JSON value against the table's range.
func storableTree(v validate.Value) bool {
	switch x := v.Raw().(type) {
	case json.Number:
		_, ok := v.Float()
		return ok
	case []any:
		items, _ := v.List()
		good := true
		for _, it := range items {
			good = storableTree(it) && good
		}
		return good
	case map[string]any:
		o, _ := v.Dict()
		good := true
		for _, k := range o.Keys() {
			good = storableTree(o.Get(k)) && good
		}
		_ = x
		return good
	}
	return true
}

// readMetricsObject reads the client's metrics object: its usage keys (duration_ns → latency
// in milliseconds, num_*_tokens, time_to_first_token_ns) and, under any other key, a scorer
// value: a number, a category, a boolean or an error record; null is no value.
func readMetricsObject(v validate.Value) (store.Usage, map[string]store.MetricValue) {
	var u store.Usage
	if !v.Present() || v.IsNull() {
		return u, nil
	}
	o, ok := v.Dict()
	if !ok {
		return u, nil
	}
	var out map[string]store.MetricValue
	for _, name := range o.Keys() {
		mv := o.Get(name).Nullable()
		if mv.IsNull() {
			continue
		}
		if usageKeys[name] {
			continue
		}
		if out == nil {
			out = make(map[string]store.MetricValue, len(o.Keys()))
		}
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
	if ns := optInt(o, "duration_ns", nonNegative...); ns != nil {
		ms := float64(*ns) / 1e6
		u.LatencyMs = &ms
	}
	u.TotalTokens = optInt(o, "num_total_tokens", summedNonNegative...)
	u.InputTokens = optInt(o, "num_input_tokens", summedNonNegative...)
	u.OutputTokens = optInt(o, "num_output_tokens", summedNonNegative...)
	u.TimeToFirstTokenNs = optInt(o, "time_to_first_token_ns", nonNegative...)
	for _, k := range []string{"num_image_input_tokens", "num_audio_input_tokens", "num_audio_output_tokens", "num_image_output_tokens"} {
		optInt(o, k, nonNegative...)
	}
	return u, out
}

// readUsage reads the catalog's usage columns sent directly on the record; they win over the
// metrics object's. Total tokens default to input plus output.
func readUsage(o validate.Obj, u *store.Usage) {
	if f := optFloat(o, "latency_ms", summedNonNegative...); f != nil {
		u.LatencyMs = f
	}
	if n := optInt(o, "duration_ns", nonNegative...); n != nil {
		ms := float64(*n) / 1e6
		u.LatencyMs = &ms
	}
	for _, f := range []struct {
		name string
		p    **int64
	}{{"total_tokens", &u.TotalTokens}, {"input_tokens", &u.InputTokens}, {"output_tokens", &u.OutputTokens}} {
		if n := optInt(o, f.name, summedNonNegative...); n != nil {
			*f.p = n
		}
	}
	if f := optFloat(o, "total_cost", summedNonNegative...); f != nil {
		u.TotalCost = f
	}
	if u.TotalTokens == nil && (u.InputTokens != nil || u.OutputTokens != nil) {
		var n int64
		for _, p := range []*int64{u.InputTokens, u.OutputTokens} {
			if p != nil {
				n += *p
			}
		}
		if n > int64(fixed.Bound) {
			o.Get("output_tokens").Fail(fmt.Sprintf("input and output tokens add up to more than %d", int64(fixed.Bound)))
			return
		}
		u.TotalTokens = &n
	}
}

// readTrace reads a trace with its spans, flattened in depth-first order. complete is the
// request's is_complete, session the request's session_id.
func readTrace(v validate.Value, now time.Time, complete bool, session *string) store.Trace {
	o, ok := v.Object()
	if !ok {
		return store.Trace{}
	}
	if t := o.Get("type"); t.Present() {
		t.Nullable().Literal("trace")
	}
	r := readRecord(o, now)
	tr := store.Trace{ID: r.id, Type: "trace", CreatedAt: r.createdAt, UpdatedAt: r.updatedAt, Name: r.name,
		Tags: r.tags, StatusCode: r.statusCode, ExternalID: r.externalID, DatasetInput: r.dsInput,
		DatasetOutput: r.dsOutput, DatasetMetadata: r.dsMeta, Metadata: r.metadata, Usage: r.usage,
		Metrics: r.metrics, RecordContent: r.content, IsComplete: complete, SessionID: session,
		DatasetGeneratedOutput: optStr(o, "dataset_generated_output"), ErrorMessage: optStr(o, "error_message"),
		ProgressMessage: optStr(o, "progress_message"), Model: optStr(o, "model"), Provider: optStr(o, "provider"),
		Temperature: optFloat(o, "temperature"), FinishReason: optStr(o, "finish_reason")}
	if s := optUUID(o, "session_id"); s != nil {
		tr.SessionID = s
	}
	if c := o.Get("is_complete").Nullable(); c.Present() && !c.IsNull() {
		tr.IsComplete, _ = c.Bool()
	}
	if tr.Input == nil {
		tr.Input = store.StringContent("")
	}
	tr.Spans = readChildren(o, tr, tr.ID, 1)
	tr.HasChildren = len(tr.Spans) > 0
	tr.NumSpans = int64(len(tr.Spans))
	return tr
}

// readChildren reads the spans list of o (a trace or a span) and their descendants.
func readChildren(o validate.Obj, tr store.Trace, parentID string, depth int64) []store.Span {
	sv := o.Get("spans").Nullable()
	if !sv.Present() || sv.IsNull() {
		return nil
	}
	if depth > maxDepth {
		sv.Fail(fmt.Sprintf("spans are nested more than %d deep", maxDepth))
		return nil
	}
	items, _ := sv.List(validate.MaxLen(maxSpansPerRequest))
	var out []store.Span
	for _, it := range items {
		sp, children := readSpan(it, tr, parentID, depth)
		out = append(out, sp)
		out = append(out, children...)
	}
	return out
}

// readSpan reads one span (of a trace, or appended to one) and its descendants.
func readSpan(v validate.Value, tr store.Trace, parentID string, depth int64) (store.Span, []store.Span) {
	o, ok := v.Object()
	if !ok {
		return store.Span{}, nil
	}
	r := readRecord(o, tr.CreatedAt)
	sp := store.Span{ID: r.id, TraceID: tr.ID, ParentID: parentID, RunID: tr.RunID, ProjectID: tr.ProjectID,
		OrgID: tr.OrgID, SessionID: tr.SessionID, Depth: depth, Name: r.name, CreatedAt: r.createdAt,
		UpdatedAt: r.updatedAt, StepNumber: r.stepNumber, IsComplete: tr.IsComplete, Tags: r.tags,
		StatusCode: r.statusCode, ExternalID: r.externalID, DatasetInput: r.dsInput, DatasetOutput: r.dsOutput,
		DatasetMetadata: r.dsMeta, Metadata: r.metadata, Usage: r.usage, Metrics: r.metrics, RecordContent: r.content,
		Model: optStr(o, "model"), Provider: optStr(o, "provider"), Temperature: optFloat(o, "temperature"),
		FinishReason: optStr(o, "finish_reason"), ToolCallID: optStr(o, "tool_call_id"),
		AgentType: optStr(o, "agent_type"), AgentName: optStr(o, "agent_name")}
	sp.Type, _ = o.Get("type").Required().Enum(spanTypes...)
	normalizeContent(sp.Type, &sp.RecordContent)
	if p := optUUID(o, "parent_id"); p != nil {
		sp.ParentID = *p
	}
	sp.Tools, sp.Events = readContent(o, "tools"), readContent(o, "events")
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
	children := readChildren(o, tr, sp.ID, depth+1)
	sp.HasChildren = len(children) > 0
	return sp, children
}
