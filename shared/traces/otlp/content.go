package otlp

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/store"
)

// Content of a span from the conventions: chat messages (GenAI attributes, the older GenAI
// events and prompt attributes, OpenInference's flattened lists), retrieval documents,
// tool definitions, tool arguments and results, and OpenInference's input.value and
// output.value for everything else. Shapes are the client's: a message is
// {"role", "content", "tool_calls"?, "tool_call_id"?}, a document {"content", "metadata"}.

func sortedKeys(a attrs) []string {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func mapContent(a attrs, s *Span, sp *store.Span, used map[string]bool) {
	c := &sp.RecordContent
	inValue := a.value("input.value")
	outValue := a.value("output.value")
	switch sp.Type {
	case "llm":
		if in := inputMessages(a, s, used); len(in) > 0 {
			c.Input = content(in)
		} else if inValue != nil {
			c.Input = content([]any{map[string]any{"role": "user", "content": textOf(inValue)}})
		}
		if out, reason := outputMessage(a, s, used); out != nil {
			c.Output = content(out)
			if sp.FinishReason == nil && reason != "" {
				sp.FinishReason = &reason
			}
		} else if outValue != nil {
			c.Output = content(map[string]any{"role": "assistant", "content": textOf(outValue)})
		}
	case "retriever":
		if q := first(a, used, "gen_ai.retrieval.query.text"); q != nil {
			c.Input = content(*q)
		} else if inValue != nil {
			c.Input = content(textOf(inValue))
		}
		if docs := documents(a, used); docs != nil {
			c.Output = content(docs)
		} else if outValue != nil {
			c.Output = content([]any{map[string]any{"content": textOf(outValue), "metadata": map[string]any{}}})
		}
	default:
		in, out := inValue, outValue
		if v := a.value("gen_ai.tool.call.arguments"); v != nil {
			in = v
		}
		if v := a.value("gen_ai.tool.call.result"); v != nil {
			out = v
		}
		if in == nil {
			if msgs := inputMessages(a, s, used); len(msgs) > 0 {
				in = msgs
			}
		}
		if out == nil {
			if m, _ := outputMessage(a, s, used); m != nil {
				out = textOf(m["content"])
			}
		}
		if in != nil {
			c.Input = content(textOf(in))
		}
		if out != nil {
			c.Output = content(textOf(out))
		}
	}
	// Tool definitions on any span: the 2026 conventions put them on agent spans
	// (invoke_agent) as well as on inferences, and the reads show any span's tools.
	if tools := toolDefinitions(a, used); len(tools) > 0 {
		c.Tools = content(tools)
	}
}

// value is an attribute as a Go value: a string stays a string.
func (a attrs) value(key string) any {
	v, ok := a[key]
	if !ok {
		return nil
	}
	return v.Any()
}

// textOf is v as text: a string as is, anything else as JSON.
func textOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func content(v any) store.Content {
	b, _ := json.Marshal(v)
	return store.Content(b)
}

// inputMessages are the chat messages sent to the model.
func inputMessages(a attrs, s *Span, used map[string]bool) []map[string]any {
	var out []map[string]any
	if sys, ok := a.jsonAttr("gen_ai.system_instructions").([]any); ok {
		out = append(out, partsMessage("system", sys))
	}
	if msgs, ok := a.jsonAttr("gen_ai.input.messages").([]any); ok {
		for _, m := range msgs {
			if mm, ok := m.(map[string]any); ok {
				out = append(out, genAIMessage(mm))
			}
		}
		return out
	}
	if msgs := flatMessages(a.indexed("llm.input_messages", used), "message."); len(msgs) > 0 {
		return append(out, msgs...)
	}
	if msgs := flatMessages(a.indexed("gen_ai.prompt", used), ""); len(msgs) > 0 {
		return append(out, msgs...)
	}
	for _, ev := range s.Events { // the older conventions: one event per message
		role, ok := strings.CutSuffix(strings.TrimPrefix(ev.Name, "gen_ai."), ".message")
		if !ok || !strings.HasPrefix(ev.Name, "gen_ai.") {
			continue
		}
		ea := index(ev.Attrs)
		m := map[string]any{"role": role}
		if r, ok := ea.str("role"); ok {
			m["role"] = r
		}
		m["content"] = textOf(ea.value("content"))
		if calls, ok := ea.jsonAttr("tool_calls").([]any); ok {
			m["tool_calls"] = toolCalls(calls)
		}
		if id, ok := ea.str("id"); ok && role == "tool" {
			m["tool_call_id"] = id
		}
		out = append(out, m)
	}
	return out
}

// outputMessage is the model's answer (the first choice) and its finish reason.
func outputMessage(a attrs, s *Span, used map[string]bool) (map[string]any, string) {
	if msgs, ok := a.jsonAttr("gen_ai.output.messages").([]any); ok && len(msgs) > 0 {
		if mm, ok := msgs[0].(map[string]any); ok {
			reason, _ := mm["finish_reason"].(string)
			return genAIMessage(mm), reason
		}
	}
	if msgs := flatMessages(a.indexed("llm.output_messages", used), "message."); len(msgs) > 0 {
		return msgs[0], ""
	}
	if msgs := flatMessages(a.indexed("gen_ai.completion", used), ""); len(msgs) > 0 {
		reason, _ := msgs[0]["finish_reason"].(string)
		delete(msgs[0], "finish_reason")
		return msgs[0], reason
	}
	for _, ev := range s.Events {
		if ev.Name != "gen_ai.choice" {
			continue
		}
		ea := index(ev.Attrs)
		reason, _ := ea.str("finish_reason")
		m := map[string]any{"role": "assistant"}
		msg, _ := ea.jsonAttr("message").(map[string]any)
		if msg == nil {
			msg = map[string]any{"content": ea.value("content")}
		}
		if r, ok := msg["role"].(string); ok {
			m["role"] = r
		}
		m["content"] = textOf(msg["content"])
		if calls, ok := msg["tool_calls"].([]any); ok {
			m["tool_calls"] = toolCalls(calls)
		}
		return m, reason
	}
	return nil, ""
}

// genAIMessage maps a message of gen_ai.input.messages / gen_ai.output.messages
// ({"role", "parts": [...]}) to the client's message.
func genAIMessage(m map[string]any) map[string]any {
	role, _ := m["role"].(string)
	parts, _ := m["parts"].([]any)
	out := partsMessage(role, parts)
	if c, ok := m["content"]; ok && len(parts) == 0 { // a message already in the chat form
		out["content"] = textOf(c)
	}
	return out
}

// partsMessage joins the text parts of a message and lifts its tool calls and tool results.
func partsMessage(role string, parts []any) map[string]any {
	out := map[string]any{"role": role}
	var texts []string
	var calls []any
	for _, p := range parts {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		switch pm["type"] {
		case "text":
			texts = append(texts, textOf(pm["content"]))
		case "tool_call":
			calls = append(calls, map[string]any{"id": pm["id"], "type": "function",
				"function": map[string]any{"name": pm["name"], "arguments": textOf(pm["arguments"])}})
		case "tool_call_response":
			if role == "" || role == "user" {
				out["role"] = "tool"
			}
			out["tool_call_id"] = pm["id"]
			r := pm["response"]
			if r == nil {
				r = pm["result"]
			}
			texts = append(texts, textOf(r))
		}
	}
	out["content"] = strings.Join(texts, "\n")
	if len(calls) > 0 {
		out["tool_calls"] = calls
	}
	return out
}

// toolCalls maps OpenAI-shaped tool calls (the older GenAI events) to the client's.
func toolCalls(calls []any) []any {
	out := make([]any, 0, len(calls))
	for _, c := range calls {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		fn, _ := cm["function"].(map[string]any)
		if fn == nil {
			fn = map[string]any{}
		}
		out = append(out, map[string]any{"id": cm["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": textOf(fn["arguments"])}})
	}
	return out
}

// flatMessages reads a flattened message list: <i>.<prefix>role, <i>.<prefix>content,
// <i>.<prefix>tool_calls.<j>.tool_call.function.name|arguments and .id.
func flatMessages(list []map[string]Value, prefix string) []map[string]any {
	out := make([]map[string]any, 0, len(list))
	for _, fields := range list {
		m := map[string]any{}
		calls := map[string]map[string]any{}
		var order []string
		for k, v := range fields {
			k = strings.TrimPrefix(k, prefix)
			switch {
			case k == "role" || k == "content" || k == "tool_call_id" || k == "finish_reason":
				m[k] = v.Text()
			case strings.HasPrefix(k, "tool_calls."):
				num, rest, _ := strings.Cut(strings.TrimPrefix(k, "tool_calls."), ".")
				if calls[num] == nil {
					calls[num] = map[string]any{"type": "function", "function": map[string]any{}}
					order = append(order, num)
				}
				rest = strings.TrimPrefix(rest, "tool_call.")
				switch rest {
				case "id":
					calls[num]["id"] = v.Text()
				case "function.name", "name":
					calls[num]["function"].(map[string]any)["name"] = v.Text()
				case "function.arguments", "arguments":
					calls[num]["function"].(map[string]any)["arguments"] = v.Text()
				}
			}
		}
		if len(order) > 0 {
			slices.Sort(order)
			list := make([]any, len(order))
			for i, n := range order {
				list[i] = calls[n]
			}
			m["tool_calls"] = list
		}
		if _, ok := m["content"]; !ok {
			m["content"] = ""
		}
		out = append(out, m)
	}
	return out
}

// toolDefinitions are the tools offered to the model.
func toolDefinitions(a attrs, used map[string]bool) []any {
	if defs, ok := a.jsonAttr("gen_ai.tool.definitions").([]any); ok {
		return defs
	}
	var out []any
	for _, t := range a.indexed("llm.tools", used) {
		if v, ok := t["tool.json_schema"]; ok {
			var schema any
			if json.Unmarshal([]byte(v.Text()), &schema) == nil {
				out = append(out, schema)
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	// OpenLLMetry's older flattened list: llm.request.functions.<i>.{name,description,
	// parameters}, as the OpenAI shape the other conventions carry.
	for _, f := range a.indexed("llm.request.functions", used) {
		fn := map[string]any{}
		for _, k := range []string{"name", "description"} {
			if v, ok := f[k]; ok {
				fn[k] = v.Text()
			}
		}
		if v, ok := f["parameters"]; ok {
			var params any
			if json.Unmarshal([]byte(v.Text()), &params) != nil {
				params = v.Text()
			}
			fn["parameters"] = params
		}
		out = append(out, map[string]any{"type": "function", "function": fn})
	}
	return out
}

// documents are a retriever's results as the client's documents; nil when the span has
// none.
func documents(a attrs, used map[string]bool) []any {
	var out []any
	add := func(content any, meta map[string]any, id, score any) {
		if meta == nil {
			meta = map[string]any{}
		}
		if id != nil {
			meta["document_id"] = textOf(id)
		}
		if score != nil {
			meta["score"] = score
		}
		out = append(out, map[string]any{"content": textOf(content), "metadata": meta})
	}
	if docs, ok := a.jsonAttr("gen_ai.retrieval.documents").([]any); ok {
		for _, d := range docs {
			dm, _ := d.(map[string]any)
			meta, _ := dm["metadata"].(map[string]any)
			add(dm["content"], meta, dm["id"], dm["score"])
		}
		return out
	}
	for _, d := range a.indexed("retrieval.documents", used) {
		var meta map[string]any
		if v, ok := d["document.metadata"]; ok {
			if v.Kind == KindMap {
				meta, _ = v.Any().(map[string]any)
			} else {
				_ = json.Unmarshal([]byte(v.Text()), &meta)
			}
		}
		var id, score any
		if v, ok := d["document.id"]; ok {
			id = v.Any()
		}
		if v, ok := d["document.score"]; ok {
			score = v.Any()
		}
		var c any
		if v, ok := d["document.content"]; ok {
			c = v.Text()
		}
		add(c, meta, id, score)
	}
	return out
}
