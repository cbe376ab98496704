package otlp

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// EncodeJSON writes e in OTLP/JSON (hex ids, 64-bit integers as strings), as exporters do.
func EncodeJSON(e *Export) []byte {
	type obj = map[string]any
	res := make([]obj, 0, len(e.Resources))
	for _, rs := range e.Resources {
		var scopes []obj
		for i := 0; i < len(rs.Spans); {
			j := i
			var spans []obj
			for ; j < len(rs.Spans) && rs.Spans[j].Scope == rs.Spans[i].Scope; j++ {
				spans = append(spans, spanJSON(&rs.Spans[j]))
			}
			scopes = append(scopes, obj{"scope": obj{"name": rs.Spans[i].Scope}, "spans": spans})
			i = j
		}
		res = append(res, obj{"resource": obj{"attributes": kvsJSON(rs.Attrs)}, "scopeSpans": scopes})
	}
	b, _ := json.Marshal(obj{"resourceSpans": res})
	return b
}

func spanJSON(s *Span) map[string]any {
	o := map[string]any{"traceId": hex.EncodeToString(s.TraceID[:]), "spanId": hex.EncodeToString(s.SpanID[:]),
		"name": s.Name, "kind": s.Kind, "startTimeUnixNano": strconv.FormatUint(s.Start, 10),
		"endTimeUnixNano": strconv.FormatUint(s.End, 10), "attributes": kvsJSON(s.Attrs),
		"status": map[string]any{"code": s.Status.Code, "message": s.Status.Message}}
	if !s.IsRoot() {
		o["parentSpanId"] = hex.EncodeToString(s.ParentSpanID[:])
	}
	if len(s.Events) > 0 {
		evs := make([]map[string]any, len(s.Events))
		for i, ev := range s.Events {
			evs[i] = map[string]any{"timeUnixNano": strconv.FormatUint(ev.Time, 10), "name": ev.Name, "attributes": kvsJSON(ev.Attrs)}
		}
		o["events"] = evs
	}
	return o
}

func kvsJSON(kvs []KeyValue) []map[string]any {
	out := make([]map[string]any, len(kvs))
	for i, kv := range kvs {
		out[i] = map[string]any{"key": kv.Key, "value": valueJSON(kv.Value)}
	}
	return out
}

func valueJSON(v Value) map[string]any {
	switch v.Kind {
	case KindString:
		return map[string]any{"stringValue": v.Str}
	case KindBool:
		return map[string]any{"boolValue": v.Bool}
	case KindInt:
		return map[string]any{"intValue": strconv.FormatInt(v.Int, 10)}
	case KindDouble:
		return map[string]any{"doubleValue": v.Double}
	case KindBytes:
		return map[string]any{"bytesValue": base64.StdEncoding.EncodeToString(v.Bytes)}
	case KindArray:
		vals := make([]map[string]any, len(v.Array))
		for i, x := range v.Array {
			vals[i] = valueJSON(x)
		}
		return map[string]any{"arrayValue": map[string]any{"values": vals}}
	case KindMap:
		return map[string]any{"kvlistValue": map[string]any{"values": kvsJSON(v.Map)}}
	}
	return map[string]any{}
}
