package otlp

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// EncodeProto writes e as an ExportTraceServiceRequest in protobuf (tests, tools and
// benchmarks replay recordings with it; DecodeProto reads it back exactly).
func EncodeProto(e *Export) []byte {
	var b []byte
	for _, rs := range e.Resources {
		b = appendMsg(b, 1, func(b []byte) []byte {
			b = appendMsg(b, 1, func(b []byte) []byte { return appendKVs(b, 1, rs.Attrs) })
			for i := 0; i < len(rs.Spans); {
				j := i
				for j < len(rs.Spans) && rs.Spans[j].Scope == rs.Spans[i].Scope {
					j++
				}
				group := rs.Spans[i:j]
				b = appendMsg(b, 2, func(b []byte) []byte {
					b = appendMsg(b, 1, func(b []byte) []byte { return appendString(b, 1, group[0].Scope) })
					for k := range group {
						b = appendMsg(b, 2, func(b []byte) []byte { return appendSpan(b, &group[k]) })
					}
					return b
				})
				i = j
			}
			return b
		})
	}
	return b
}

func appendMsg(b []byte, num protowire.Number, body func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, body(nil))
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendFixed64(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, v)
}

func appendSpan(b []byte, s *Span) []byte {
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, s.TraceID[:])
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendBytes(b, s.SpanID[:])
	if !s.IsRoot() {
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendBytes(b, s.ParentSpanID[:])
	}
	b = appendString(b, 5, s.Name)
	if s.Kind != 0 {
		b = protowire.AppendTag(b, 6, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(s.Kind))
	}
	b = appendFixed64(b, 7, s.Start)
	b = appendFixed64(b, 8, s.End)
	b = appendKVs(b, 9, s.Attrs)
	for _, ev := range s.Events {
		b = appendMsg(b, 11, func(b []byte) []byte {
			b = appendFixed64(b, 1, ev.Time)
			b = appendString(b, 2, ev.Name)
			return appendKVs(b, 3, ev.Attrs)
		})
	}
	return appendMsg(b, 15, func(b []byte) []byte {
		b = appendString(b, 2, s.Status.Message)
		if s.Status.Code != 0 {
			b = protowire.AppendTag(b, 3, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(s.Status.Code))
		}
		return b
	})
}

func appendKVs(b []byte, num protowire.Number, kvs []KeyValue) []byte {
	for _, kv := range kvs {
		b = appendMsg(b, num, func(b []byte) []byte {
			b = appendString(b, 1, kv.Key)
			return appendMsg(b, 2, func(b []byte) []byte { return appendValue(b, kv.Value) })
		})
	}
	return b
}

func appendValue(b []byte, v Value) []byte {
	switch v.Kind {
	case KindString:
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		return protowire.AppendString(b, v.Str)
	case KindBool:
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool))
	case KindInt:
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		return protowire.AppendVarint(b, uint64(v.Int))
	case KindDouble:
		b = protowire.AppendTag(b, 4, protowire.Fixed64Type)
		return protowire.AppendFixed64(b, math.Float64bits(v.Double))
	case KindArray:
		return appendMsg(b, 5, func(b []byte) []byte {
			for _, x := range v.Array {
				b = appendMsg(b, 1, func(b []byte) []byte { return appendValue(b, x) })
			}
			return b
		})
	case KindMap:
		return appendMsg(b, 6, func(b []byte) []byte { return appendKVs(b, 1, v.Map) })
	case KindBytes:
		b = protowire.AppendTag(b, 7, protowire.BytesType)
		return protowire.AppendBytes(b, v.Bytes)
	}
	return b
}
