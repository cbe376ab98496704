package otlp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/evalobs/evalapi/shared/traces/otlp"
)

func str(k, v string) otlp.KeyValue {
	return otlp.KeyValue{Key: k, Value: otlp.Value{Kind: otlp.KindString, Str: v}}
}

func num(k string, n int64) otlp.KeyValue {
	return otlp.KeyValue{Key: k, Value: otlp.Value{Kind: otlp.KindInt, Int: n}}
}

func span(attrs ...otlp.KeyValue) *otlp.Span {
	return &otlp.Span{TraceID: [16]byte{1}, SpanID: [8]byte{2}, ParentSpanID: [8]byte{3}, Name: "s",
		Start: 1e18, End: 1e18 + 1e9, Attrs: attrs}
}

// The 2026 attributes of one inference, and the same figures in the older names.
var (
	inference2026 = []otlp.KeyValue{str("gen_ai.operation.name", "chat"), str("gen_ai.provider.name", "anthropic"),
		str("gen_ai.request.model", "claude"), num("gen_ai.usage.input_tokens", 100), num("gen_ai.usage.output_tokens", 20),
		num("gen_ai.usage.cache_read.input_tokens", 60), num("gen_ai.usage.cache_write.input_tokens", 30),
		num("gen_ai.usage.reasoning.output_tokens", 12)}
	inferenceOlder = []otlp.KeyValue{str("gen_ai.operation.name", "chat"), str("gen_ai.system", "anthropic"),
		str("gen_ai.request.model", "claude"), num("gen_ai.usage.prompt_tokens", 100), num("gen_ai.usage.completion_tokens", 20),
		num("gen_ai.usage.cache_read_input_tokens", 60), num("gen_ai.usage.cache_creation.input_tokens", 30),
		num("gen_ai.usage.reasoning_tokens", 12)}
	// OpenInference's names of the same figures.
	inferenceOpenInference = []otlp.KeyValue{str("openinference.span.kind", "LLM"), str("llm.provider", "anthropic"),
		str("llm.model_name", "claude"), num("llm.token_count.prompt", 100), num("llm.token_count.completion", 20),
		num("llm.token_count.prompt_details.cache_read", 60), num("llm.token_count.prompt_details.cache_write", 30),
		num("llm.token_count.completion_details.reasoning", 12)}
)

// TestGenerationsMapAlike: an inference in the 2026 names, in the older names, in
// OpenInference's, and with both GenAI generations on one span, is one record: the same
// columns, the cache and reasoning tokens under their 2026 names in the metadata, and no
// older name left beside its newer one.
func TestGenerationsMapAlike(t *testing.T) {
	want := otlp.Map("run", nil, span(inference2026...)).Span
	if *want.Provider != "anthropic" || *want.InputTokens != 100 || *want.OutputTokens != 20 || *want.TotalTokens != 120 || want.Type != "llm" {
		t.Fatalf("2026 inference: %+v", want)
	}
	for k, v := range map[string]string{"gen_ai.usage.cache_read.input_tokens": "60",
		"gen_ai.usage.cache_write.input_tokens": "30", "gen_ai.usage.reasoning.output_tokens": "12"} {
		if want.Metadata[k] != v {
			t.Errorf("metadata %s = %q, want %q", k, want.Metadata[k], v)
		}
	}
	both := append(append([]otlp.KeyValue{}, inferenceOlder...), inference2026...)
	for name, attrs := range map[string][]otlp.KeyValue{"older": inferenceOlder, "both": both,
		"both, older last": append(append([]otlp.KeyValue{}, inference2026...), inferenceOlder...)} {
		got := otlp.Map("run", nil, span(attrs...)).Span
		if !reflect.DeepEqual(got, want) {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(want)
			t.Errorf("%s:\n got %s %v\nwant %s %v", name, a, got.Metadata, b, want.Metadata)
		}
	}
	oi := otlp.Map("run", nil, span(inferenceOpenInference...)).Span
	if *oi.Provider != "anthropic" || *oi.TotalTokens != 120 || oi.Metadata["gen_ai.usage.cache_read.input_tokens"] != "60" ||
		oi.Metadata["gen_ai.usage.cache_write.input_tokens"] != "30" || oi.Metadata["gen_ai.usage.reasoning.output_tokens"] != "12" {
		t.Errorf("OpenInference: %+v %v", oi, oi.Metadata)
	}
	for _, k := range []string{"llm.token_count.prompt_details.cache_read", "llm.provider"} {
		if _, ok := oi.Metadata[k]; ok {
			t.Errorf("OpenInference: %s kept beside its mapped name", k)
		}
	}
	// Attributes kept in metadata only land under their 2026 name too.
	md := otlp.Map("run", nil, span(str("gen_ai.operation.name", "chat"), str("gen_ai.openai.request.service_tier", "auto"),
		str("gen_ai.openai.response.system_fingerprint", "fp_1"), num("gen_ai.openai.request.seed", 7))).Span.Metadata
	if md["openai.request.service_tier"] != "auto" || md["openai.response.system_fingerprint"] != "fp_1" || md["gen_ai.request.seed"] != "7" ||
		md["gen_ai.openai.request.service_tier"] != "" {
		t.Errorf("renamed metadata: %v", md)
	}
	// The newer value wins when the two generations disagree.
	mixed := otlp.Map("run", nil, span(str("gen_ai.system", "openai"), str("gen_ai.provider.name", "azure.ai.openai"),
		num("gen_ai.usage.cache_creation.input_tokens", 1), num("gen_ai.usage.cache_write.input_tokens", 2))).Span
	if *mixed.Provider != "azure.ai.openai" || mixed.Metadata["gen_ai.usage.cache_write.input_tokens"] != "2" ||
		mixed.Metadata["gen_ai.system"] != "" || mixed.Metadata["gen_ai.usage.cache_creation.input_tokens"] != "" {
		t.Errorf("mixed generations: %v %v", *mixed.Provider, mixed.Metadata)
	}
}

// TestOperationsAsSpanTypes: the 2026 operations are the client's span types.
func TestOperationsAsSpanTypes(t *testing.T) {
	for op, want := range map[string][2]string{"invoke_agent": {"agent", "default"}, "create_agent": {"agent", "default"},
		"plan": {"agent", "planner"}, "execute_tool": {"tool", ""}, "invoke_workflow": {"workflow", ""},
		"chat": {"llm", ""}, "embeddings": {"llm", ""}, "retrieval": {"retriever", ""}} {
		sp := otlp.Map("run", nil, span(str("gen_ai.operation.name", op))).Span
		agentType := ""
		if sp.AgentType != nil {
			agentType = *sp.AgentType
		}
		if sp.Type != want[0] || agentType != want[1] {
			t.Errorf("%s: type %s agent_type %q, want %v", op, sp.Type, agentType, want)
		}
	}
}

// TestContentOfBothGenerations: the opt-in content attributes on the span or on the
// operation-details event, the older per-role events, and tool definitions in each
// convention, on inference and agent spans.
func TestContentOfBothGenerations(t *testing.T) {
	in := `[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]}]`
	out := `[{"role":"assistant","parts":[{"type":"text","content":"Sunny."}],"finish_reason":"stop"}]`
	tools := `[{"type":"function","name":"get_weather","description":"Weather of a city","parameters":{"type":"object"}}]`
	onSpan := span(str("gen_ai.operation.name", "chat"), str("gen_ai.input.messages", in), str("gen_ai.output.messages", out),
		str("gen_ai.system_instructions", `[{"type":"text","content":"Be brief."}]`), str("gen_ai.tool.definitions", tools))
	onEvent := span(str("gen_ai.operation.name", "chat"))
	onEvent.Events = []otlp.Event{{Name: "gen_ai.client.inference.operation.details", Attrs: onSpan.Attrs[1:]}}
	older := span(str("gen_ai.operation.name", "chat"), str("llm.request.functions.0.name", "get_weather"),
		str("llm.request.functions.0.description", "Weather of a city"), str("llm.request.functions.0.parameters", `{"type":"object"}`))
	older.Events = []otlp.Event{{Name: "gen_ai.system.message", Attrs: []otlp.KeyValue{str("content", "Be brief.")}},
		{Name: "gen_ai.user.message", Attrs: []otlp.KeyValue{str("content", "Weather in Paris?")}},
		{Name: "gen_ai.choice", Attrs: []otlp.KeyValue{str("finish_reason", "stop"), str("message", `{"content":"Sunny."}`)}}}
	wantIn := `[{"content":"Be brief.","role":"system"},{"content":"Weather in Paris?","role":"user"}]`
	wantOut := `{"content":"Sunny.","role":"assistant"}`
	for name, s := range map[string]*otlp.Span{"on the span": onSpan, "on the details event": onEvent, "older events": older} {
		sp := otlp.Map("run", nil, s).Span
		if string(sp.Input) != wantIn || string(sp.Output) != wantOut || sp.FinishReason == nil || *sp.FinishReason != "stop" {
			t.Errorf("%s: input %s output %s finish %v", name, sp.Input, sp.Output, sp.FinishReason)
		}
		if sp.Tools.IsNull() {
			t.Errorf("%s: no tools", name)
		}
		for k := range sp.Metadata {
			if k == "gen_ai.input.messages" || k == "gen_ai.tool.definitions" || k == "llm.request.functions.0.name" {
				t.Errorf("%s: content %s kept in the metadata too", name, k)
			}
		}
	}
	if got := otlp.Map("run", nil, older).Span.Tools; string(got) != `[{"function":{"description":"Weather of a city","name":"get_weather","parameters":{"type":"object"}},"type":"function"}]` {
		t.Errorf("llm.request.functions: %s", got)
	}
	agent := otlp.Map("run", nil, span(str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.agent.name", "planner"),
		str("gen_ai.tool.definitions", tools))).Span
	var gotTools, wantTools any
	_ = json.Unmarshal(agent.Tools, &gotTools)
	_ = json.Unmarshal([]byte(tools), &wantTools)
	if !reflect.DeepEqual(gotTools, wantTools) || *agent.AgentName != "planner" {
		t.Errorf("agent tools: %s", agent.Tools)
	}
	// finish_reasons as a JSON string wins over the message's own.
	sp := otlp.Map("run", nil, span(str("gen_ai.operation.name", "chat"), str("gen_ai.output.messages", out),
		str("gen_ai.response.finish_reasons", `["length"]`))).Span
	if *sp.FinishReason != "length" {
		t.Errorf("finish_reasons as a string: %v", *sp.FinishReason)
	}
}

// TestRecording2026 reads the 2026 recording (an agent in both generations of names, the
// recording shared/traces reads back as genai2026.golden.json): each span is of its
// operation's type, the figures land in their fields, and no older name is left in any
// span's metadata, so the export that carries both generations maps once.
func TestRecording2026(t *testing.T) {
	js, err := os.ReadFile(filepath.Join(recordings, "genai2026.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := otlp.DecodeJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	wantType := map[string]string{"invoke_agent travel-planner": "agent", "plan travel-planner": "agent",
		"chat claude-sonnet-4-5": "llm", "execute_tool get_weather": "tool", "anthropic.chat": "llm", "invoke_workflow notify": "workflow"}
	older := []string{"gen_ai.system", "gen_ai.usage.prompt_tokens", "gen_ai.usage.completion_tokens",
		"gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_read_input_tokens", "llm.request.functions.0.name",
		"gen_ai.input.messages", "gen_ai.tool.definitions", "gen_ai.provider.name", "gen_ai.operation.name"}
	for i := range e.Resources[0].Spans {
		sp := otlp.Map("run", e.Resources[0].Attrs, &e.Resources[0].Spans[i]).Span
		if sp.Type != wantType[sp.Name] {
			t.Errorf("%s: type %s", sp.Name, sp.Type)
		}
		for _, k := range older {
			if _, ok := sp.Metadata[k]; ok {
				t.Errorf("%s: %s left in the metadata", sp.Name, k)
			}
		}
		switch sp.Name {
		case "chat claude-sonnet-4-5": // both generations on the span, content on the details event
			if *sp.Provider != "anthropic" || *sp.InputTokens != 1320 || *sp.FinishReason != "tool_use" || sp.Tools.IsNull() ||
				sp.Metadata["gen_ai.usage.cache_read.input_tokens"] != "1024" || sp.Metadata["gen_ai.usage.cache_write.input_tokens"] != "200" ||
				sp.Metadata["gen_ai.usage.reasoning.output_tokens"] != "21" || sp.Input.IsNull() {
				t.Errorf("2026 inference: %+v %v", sp, sp.Metadata)
			}
		case "anthropic.chat": // the older generation only
			if *sp.Provider != "anthropic" || *sp.InputTokens != 1410 || *sp.OutputTokens != 16 || *sp.FinishReason != "end_turn" ||
				sp.Tools.IsNull() || sp.Metadata["gen_ai.usage.cache_read.input_tokens"] != "1224" ||
				sp.Metadata["gen_ai.usage.cache_write.input_tokens"] != "0" {
				t.Errorf("older inference: %+v %v", sp, sp.Metadata)
			}
		case "plan travel-planner":
			if *sp.AgentType != "planner" {
				t.Errorf("plan: agent_type %s", *sp.AgentType)
			}
		}
	}
}
