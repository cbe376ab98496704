package otlp

// The GenAI conventions renamed attributes during 2026, and instrumentations that emit an
// older version keep doing so, so both generations arrive, sometimes on one span (a
// library that emits both during its migration). Each older name is read as its 2026 name
// before the mapping runs, so every later step knows one name only, a span carrying both
// maps once, and the 2026 value wins. OpenInference's and OpenLLMetry's names of the
// figures the record keeps only in metadata (cache and reasoning tokens) are folded into
// the same 2026 names, so a search of the metadata finds them under one key whatever
// instrumented the application.
//
// A list, not a map: when two older names of one figure both come (OpenLLMetry's and
// OpenInference's), the first listed wins, whatever the map order would pick.
var renamed = [][2]string{
	{"gen_ai.system", "gen_ai.provider.name"},
	// Usage: the record's input and output figures.
	{"gen_ai.usage.prompt_tokens", "gen_ai.usage.input_tokens"},
	{"gen_ai.usage.completion_tokens", "gen_ai.usage.output_tokens"},
	// Metadata only, renamed so one figure is one key whichever generation sent it.
	{"gen_ai.openai.request.service_tier", "openai.request.service_tier"},
	{"gen_ai.openai.response.service_tier", "openai.response.service_tier"},
	{"gen_ai.openai.response.system_fingerprint", "openai.response.system_fingerprint"},
	{"gen_ai.openai.request.seed", "gen_ai.request.seed"},
	{"gen_ai.openai.request.response_format", "gen_ai.output.type"},
	// Cache and reasoning tokens: the client's metrics have no such figure, so they stay in
	// the metadata, under the 2026 name.
	{"gen_ai.usage.cache_creation.input_tokens", attrCacheWrite},
	{"gen_ai.usage.cache_creation_input_tokens", attrCacheWrite},
	{"gen_ai.usage.input_tokens.cache_write", attrCacheWrite},
	{"llm.token_count.prompt_details.cache_write", attrCacheWrite},
	{"gen_ai.usage.cache_read_input_tokens", attrCacheRead},
	{"gen_ai.usage.input_tokens.cached", attrCacheRead},
	{"llm.token_count.prompt_details.cache_read", attrCacheRead},
	{"gen_ai.usage.reasoning_tokens", attrReasoning},
	{"gen_ai.usage.output_tokens.reasoning", attrReasoning},
	{"llm.token_count.completion_details.reasoning", attrReasoning},
}

// The 2026 names of the token figures kept in metadata.
const (
	attrCacheWrite = "gen_ai.usage.cache_write.input_tokens"
	attrCacheRead  = "gen_ai.usage.cache_read.input_tokens"
	attrReasoning  = "gen_ai.usage.reasoning.output_tokens"
)

// detailsEvent is the log event of the 2026 conventions that carries an inference's
// opt-in content (messages, system instructions, tool definitions) when the
// instrumentation does not put it on the span.
const detailsEvent = "gen_ai.client.inference.operation.details"

// spanAttrs indexes a span's attributes in their 2026 names, with the attributes of its
// operation-details events added where the span has none of the same name (the span's
// own attribute wins: it is the one the instrumentation wrote last).
func spanAttrs(s *Span) attrs {
	a := index(s.Attrs)
	for _, ev := range s.Events {
		if ev.Name != detailsEvent {
			continue
		}
		for _, kv := range ev.Attrs {
			if _, ok := a[kv.Key]; !ok {
				a[kv.Key] = kv.Value
			}
		}
	}
	for _, r := range renamed {
		old, now := r[0], r[1]
		v, ok := a[old]
		if !ok {
			continue
		}
		delete(a, old)
		if _, has := a[now]; !has {
			a[now] = v
		}
	}
	// The token figures kept in metadata as integers, whichever form they came in (some
	// instrumentations write them as doubles or strings), so one figure reads one way.
	for _, k := range []string{attrCacheWrite, attrCacheRead, attrReasoning} {
		if n, ok := a.int(k); ok {
			a[k] = Value{Kind: KindInt, Int: n}
		}
	}
	return a
}
