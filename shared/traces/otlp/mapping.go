package otlp

import (
	"encoding/hex"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/ids"
	"github.com/evalobs/evalapi/shared/store"
)

// Ids: an OTel trace id names one trace of a run and a span id one span of it. Both map to
// ids that are functions of the run and the OTel ids (hashed UUID4s, ids.Hashed), so a
// re-export finds the same records, and the same OTel ids sent to two runs never name one
// record.
//
// Before ids were UUID4 these were name-based UUIDs (version 5). A trace stored then keeps
// its scheme, spans included, so that a trace continuing across the change is neither split
// in two nor left with children whose parent ids name nothing: the writer reads the run's
// claims of both ids of each trace (one batch) and maps the traces found under their former
// id with IDs.Legacy.
var idSpace = uuid.MustParse("0b6d1c7e-6a53-4f0e-9a57-3c8f1d2e4a90")

func traceName(runID string, traceID [16]byte) string {
	return runID + "/" + hex.EncodeToString(traceID[:])
}

func spanName(runID string, traceID [16]byte, spanID [8]byte) string {
	return traceName(runID, traceID) + "/" + hex.EncodeToString(spanID[:])
}

// TraceUUID is the id of the trace an OTel trace id becomes in run.
func TraceUUID(runID string, traceID [16]byte) string {
	return ids.Hashed(idSpace, traceName(runID, traceID))
}

// SpanUUID is the id of the span an OTel span becomes in run.
func SpanUUID(runID string, traceID [16]byte, spanID [8]byte) string {
	return ids.Hashed(idSpace, spanName(runID, traceID, spanID))
}

// LegacyTraceUUID is the version-5 id TraceUUID was before ids were UUID4.
func LegacyTraceUUID(runID string, traceID [16]byte) string {
	return uuid.NewSHA1(idSpace, []byte(traceName(runID, traceID))).String()
}

// LegacySpanUUID is the version-5 id SpanUUID was before ids were UUID4.
func LegacySpanUUID(runID string, traceID [16]byte, spanID [8]byte) string {
	return uuid.NewSHA1(idSpace, []byte(spanName(runID, traceID, spanID))).String()
}

// IDs maps the OTel ids of one run to record ids: TraceUUID and SpanUUID, or their former
// version-5 forms for the traces stored under those.
type IDs struct {
	Run    string
	Legacy map[[16]byte]bool // OTel trace ids whose trace is stored under its version-5 id
}

// Trace is the record id of OTel trace traceID.
func (d IDs) Trace(traceID [16]byte) string {
	if d.Legacy[traceID] {
		return LegacyTraceUUID(d.Run, traceID)
	}
	return TraceUUID(d.Run, traceID)
}

// Span is the record id of OTel span spanID of trace traceID.
func (d IDs) Span(traceID [16]byte, spanID [8]byte) string {
	if d.Legacy[traceID] {
		return LegacySpanUUID(d.Run, traceID, spanID)
	}
	return SpanUUID(d.Run, traceID, spanID)
}

// Mapped is one OTel span as a record: every span is a span of the trace (the root's
// parent is the trace), and the root also gives the trace its header and content.
type Mapped struct {
	Span     store.Span
	Root     bool
	ErrorMsg string // the status message or the exception's, on an error span
	OTel     *Span
}

// Limits of what attributes add to a record's header: 64 KB at most, well inside an item's
// 400 KB with the content fields beside it (each above 32 KB goes to the payload store).
const (
	maxMetadata      = 64
	maxMetadataValue = 1024
)

// Map maps one OTel span of resource res into run runID, with the ids of a new trace.
func Map(runID string, res []KeyValue, s *Span) Mapped { return IDs{Run: runID}.Map(res, s) }

// Map maps one OTel span of resource res into the run of d. The caller sets the run's
// project, organization and session, and the depth (which needs the parent).
func (d IDs) Map(res []KeyValue, s *Span) Mapped {
	a := spanAttrs(s)
	used := map[string]bool{}
	typ := spanType(a, used)
	traceID := d.Trace(s.TraceID)
	sp := store.Span{ID: d.Span(s.TraceID, s.SpanID), TraceID: traceID, ParentID: traceID, RunID: d.Run,
		Type: typ, Name: s.Name, CreatedAt: nanoTime(s.Start), IsComplete: true}
	if !s.IsRoot() {
		sp.ParentID = d.Span(s.TraceID, s.ParentSpanID)
	}
	if s.End >= s.Start && s.Start > 0 && s.End > 0 {
		ms := float64(s.End-s.Start) / 1e6
		sp.LatencyMs = &ms
	}
	m := Mapped{Span: sp, Root: s.IsRoot(), OTel: s}
	mapHeader(a, &m.Span, used)
	mapContent(a, s, &m.Span, used)
	m.ErrorMsg = mapStatus(a, s, &m.Span, used)
	m.Span.Metadata = metadata(a, index(res), s, used)
	if m.Span.Name == "" {
		m.Span.Name = typ
	}
	return m
}

func nanoTime(ns uint64) time.Time {
	if ns == 0 {
		return time.Unix(0, 0).UTC()
	}
	return time.Unix(0, int64(ns)).UTC()
}

// spanType is the record type of a span: the OpenInference kind, else the GenAI
// operation, else a workflow step.
func spanType(a attrs, used map[string]bool) string {
	if k, ok := a.str("openinference.span.kind"); ok {
		used["openinference.span.kind"] = true
		switch strings.ToUpper(k) {
		case "LLM", "EMBEDDING":
			return "llm"
		case "RETRIEVER", "RERANKER":
			return "retriever"
		case "TOOL":
			return "tool"
		case "AGENT":
			return "agent"
		}
		return "workflow" // CHAIN, GUARDRAIL, EVALUATOR, UNKNOWN
	}
	if op, ok := a.str("gen_ai.operation.name"); ok {
		used["gen_ai.operation.name"] = true
		switch op {
		case "chat", "text_completion", "completion", "generate_content", "embeddings":
			return "llm"
		case "execute_tool":
			return "tool"
		case "invoke_agent", "create_agent", "plan": // plan: an agent's planning step (agent_type planner)
			return "agent"
		case "retrieval", "retrieve":
			return "retriever"
		}
		return "workflow" // invoke_workflow (the older name of a workflow's invoke_agent) and any other

	}
	if _, ok := a["gen_ai.request.model"]; ok {
		return "llm"
	}
	return "workflow" // HTTP calls too: the client's span types have no http
}

// first returns the first of keys the span has as a string. keys name one figure in
// several conventions, so all of them are marked used once one is taken: the others would
// repeat it in the metadata (a span of a library that writes both conventions maps once).
func first(a attrs, used map[string]bool, keys ...string) *string {
	for _, k := range keys {
		if v, ok := a.str(k); ok && v != "" {
			markAll(a, used, keys)
			return &v
		}
	}
	return nil
}

func firstInt(a attrs, used map[string]bool, keys ...string) *int64 {
	for _, k := range keys {
		if v, ok := a.int(k); ok {
			markAll(a, used, keys)
			return &v
		}
	}
	return nil
}

func markAll(a attrs, used map[string]bool, keys []string) {
	for _, k := range keys {
		if _, ok := a[k]; ok {
			used[k] = true
		}
	}
}

// mapHeader sets the model, provider, parameters, usage and the tool and agent columns.
func mapHeader(a attrs, sp *store.Span, used map[string]bool) {
	sp.Model = first(a, used, "gen_ai.response.model", "gen_ai.request.model", "llm.model_name", "embedding.model_name")
	if sp.Model != nil { // both names are consumed
		used["gen_ai.request.model"] = true
	}
	sp.Provider = first(a, used, "gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system")
	for _, k := range []string{"gen_ai.request.temperature", "llm.invocation_parameters.temperature"} {
		if f, ok := a.float(k); ok {
			sp.Temperature, used[k] = &f, true
			break
		}
	}
	if sp.Temperature == nil {
		if p, ok := a.jsonAttr("llm.invocation_parameters").(map[string]any); ok {
			if f, ok := p["temperature"].(float64); ok {
				sp.Temperature = &f
			}
		}
	}
	if r, ok := finishReason(a); ok {
		sp.FinishReason, used["gen_ai.response.finish_reasons"] = &r, true
	}
	sp.InputTokens = firstInt(a, used, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
	sp.OutputTokens = firstInt(a, used, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion")
	sp.TotalTokens = firstInt(a, used, "gen_ai.usage.total_tokens", "llm.token_count.total")
	if sp.TotalTokens == nil && (sp.InputTokens != nil || sp.OutputTokens != nil) {
		var n int64
		for _, p := range []*int64{sp.InputTokens, sp.OutputTokens} {
			if p != nil {
				n += *p
			}
		}
		sp.TotalTokens = &n
	}
	sp.TotalCost = nil
	for _, k := range []string{"gen_ai.usage.cost", "llm.cost.total"} {
		if f, ok := a.float(k); ok {
			sp.TotalCost, used[k] = &f, true
			break
		}
	}
	sp.ToolCallID = first(a, used, "gen_ai.tool.call.id", "tool_call.id")
	if sp.Type == "tool" {
		if n := first(a, used, "gen_ai.tool.name", "tool.name"); n != nil && sp.Name == "" {
			sp.Name = *n
		}
	}
	if sp.Type == "agent" {
		sp.AgentName = first(a, used, "gen_ai.agent.name", "agent.name")
		kind := "default"
		if op, _ := a.str("gen_ai.operation.name"); op == "plan" {
			kind = "planner"
		}
		sp.AgentType = &kind
	}
}

// finishReason is the first of gen_ai.response.finish_reasons: an array as the
// conventions write it, or (some instrumentations) a JSON array in a string, or one
// reason as a string.
func finishReason(a attrs) (string, bool) {
	v, ok := a["gen_ai.response.finish_reasons"]
	switch {
	case !ok:
		return "", false
	case v.Kind == KindArray:
		if len(v.Array) == 0 {
			return "", false
		}
		return v.Array[0].Text(), true
	case v.Kind == KindString && v.Str != "":
		if list, ok := a.jsonAttr("gen_ai.response.finish_reasons").([]any); ok {
			if len(list) == 0 {
				return "", false
			}
			return textOf(list[0]), true
		}
		return v.Str, true
	}
	return "", false
}

// mapStatus sets the status code from the span's status (an HTTP status attribute wins)
// and returns the error's message.
func mapStatus(a attrs, s *Span, sp *store.Span, used map[string]bool) string {
	code := int64(200)
	msg := ""
	if s.Status.Code == StatusError {
		code, msg = 500, s.Status.Message
		for _, ev := range s.Events {
			if ev.Name != "exception" {
				continue
			}
			ea := index(ev.Attrs)
			t, _ := ea.str("exception.type")
			m, _ := ea.str("exception.message")
			if msg == "" {
				msg = strings.TrimPrefix(t+": "+m, ": ")
			}
		}
		if msg == "" {
			msg = "error"
		}
	}
	if c := firstInt(a, used, "http.response.status_code", "http.status_code"); c != nil && *c >= 100 && *c <= 599 {
		code = *c
	}
	sp.StatusCode = &code
	return msg
}

// metadata is the user metadata of a span: the attributes no column took, the span's OTel
// identity, its status message, and the resource's service name.
func metadata(a, res attrs, s *Span, used map[string]bool) map[string]string {
	md := map[string]string{
		"otel.trace_id": hex.EncodeToString(s.TraceID[:]),
		"otel.span_id":  hex.EncodeToString(s.SpanID[:]),
	}
	if !s.IsRoot() {
		md["otel.parent_span_id"] = hex.EncodeToString(s.ParentSpanID[:])
	}
	if s.Scope != "" {
		md["otel.scope.name"] = s.Scope
	}
	if s.Status.Code == StatusError && s.Status.Message != "" {
		md["otel.status_description"] = s.Status.Message
	}
	if v, ok := res.str("service.name"); ok {
		md["service.name"] = v
	}
	for _, k := range sortedKeys(a) {
		if len(md) >= maxMetadata {
			md["otel.dropped_attributes"] = "true"
			break
		}
		if used[k] || contentKey(k) {
			continue
		}
		v := a[k].Text()
		if len(v) > maxMetadataValue {
			v = v[:maxMetadataValue]
		}
		md[k] = v
	}
	return md
}

// contentKey reports whether an attribute is content the mapping read (or chose not to
// keep twice): messages, documents, tool definitions, raw values.
func contentKey(k string) bool {
	for _, p := range []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
		"gen_ai.tool.definitions", "llm.request.functions.", "gen_ai.prompt.", "gen_ai.completion.", "llm.input_messages.", "llm.output_messages.",
		"llm.tools.", "retrieval.documents.", "input.value", "output.value", "input.mime_type", "output.mime_type",
		"gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "gen_ai.retrieval.documents", "llm.prompts",
		"embedding.embeddings."} {
		if k == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(k, p)) {
			return true
		}
	}
	return false
}
