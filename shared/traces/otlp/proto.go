package otlp

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of the OTLP trace messages (opentelemetry-proto, trace/v1, common/v1,
// resource/v1). Unknown fields are skipped, as protobuf readers do.

// maxNesting bounds the depth of AnyValue arrays and maps (a hostile export cannot make the
// decoder recurse without end).
const maxNesting = 32

var errTruncated = errors.New("truncated or malformed protobuf")

// DecodeProto reads an ExportTraceServiceRequest (or TracesData) in protobuf.
func DecodeProto(b []byte) (*Export, error) {
	e := &Export{}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num == 1 && typ == protowire.BytesType {
			rs, err := decodeResourceSpans(v)
			if err != nil {
				return err
			}
			e.Resources = append(e.Resources, rs)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("otlp protobuf: %w", err)
	}
	return e, nil
}

// fields calls fn for each field of the message b: for bytes fields v is the payload, for
// varint and fixed fields n is the number.
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error) error {
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return errTruncated
		}
		b = b[l:]
		var v []byte
		var n uint64
		switch typ {
		case protowire.VarintType:
			n, l = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			n, l = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var n32 uint32
			n32, l = protowire.ConsumeFixed32(b)
			n = uint64(n32)
		case protowire.BytesType:
			v, l = protowire.ConsumeBytes(b)
		default:
			l = protowire.ConsumeFieldValue(num, typ, b)
		}
		if l < 0 {
			return errTruncated
		}
		b = b[l:]
		if err := fn(num, typ, v, n); err != nil {
			return err
		}
	}
	return nil
}

func decodeResourceSpans(b []byte) (ResourceSpans, error) {
	var rs ResourceSpans
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1: // resource
			return fields(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if num == 1 && typ == protowire.BytesType {
					kv, err := decodeKeyValue(v, 0)
					rs.Attrs = append(rs.Attrs, kv)
					return err
				}
				return nil
			})
		case 2: // scope_spans
			return decodeScopeSpans(v, &rs.Spans)
		}
		return nil
	})
	return rs, err
}

func decodeScopeSpans(b []byte, into *[]Span) error {
	scope := ""
	start := len(*into)
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1: // scope: its name
			return fields(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if num == 1 && typ == protowire.BytesType {
					scope = string(v)
				}
				return nil
			})
		case 2:
			sp, err := decodeSpan(v)
			if err != nil {
				return err
			}
			*into = append(*into, sp)
		}
		return nil
	})
	for i := start; i < len(*into); i++ {
		(*into)[i].Scope = scope
	}
	return err
}

func decodeSpan(b []byte) (Span, error) {
	var s Span
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch num {
		case 1:
			return setID(s.TraceID[:], v, typ, "trace_id")
		case 2:
			return setID(s.SpanID[:], v, typ, "span_id")
		case 4:
			if len(v) == 0 {
				return nil
			}
			return setID(s.ParentSpanID[:], v, typ, "parent_span_id")
		case 5:
			s.Name = string(v)
		case 6:
			s.Kind = int32(n)
		case 7:
			s.Start = n
		case 8:
			s.End = n
		case 9:
			if typ == protowire.BytesType {
				kv, err := decodeKeyValue(v, 0)
				s.Attrs = append(s.Attrs, kv)
				return err
			}
		case 11:
			if typ == protowire.BytesType {
				ev, err := decodeEvent(v)
				s.Events = append(s.Events, ev)
				return err
			}
		case 15:
			if typ == protowire.BytesType {
				return fields(v, func(num protowire.Number, _ protowire.Type, v []byte, n uint64) error {
					switch num {
					case 2:
						s.Status.Message = string(v)
					case 3:
						s.Status.Code = int32(n)
					}
					return nil
				})
			}
		}
		return nil
	})
	return s, err
}

func setID(dst, v []byte, typ protowire.Type, name string) error {
	if typ != protowire.BytesType || len(v) != len(dst) {
		return fmt.Errorf("%s has %d bytes, not %d", name, len(v), len(dst))
	}
	copy(dst, v)
	return nil
}

func decodeEvent(b []byte) (Event, error) {
	var e Event
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch num {
		case 1:
			e.Time = n
		case 2:
			e.Name = string(v)
		case 3:
			if typ == protowire.BytesType {
				kv, err := decodeKeyValue(v, 0)
				e.Attrs = append(e.Attrs, kv)
				return err
			}
		}
		return nil
	})
	return e, err
}

func decodeKeyValue(b []byte, depth int) (KeyValue, error) {
	var kv KeyValue
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		switch {
		case num == 1 && typ == protowire.BytesType:
			kv.Key = string(v)
		case num == 2 && typ == protowire.BytesType:
			val, err := decodeValue(v, depth+1)
			kv.Value = val
			return err
		}
		return nil
	})
	return kv, err
}

func decodeValue(b []byte, depth int) (Value, error) {
	if depth > maxNesting {
		return Value{}, fmt.Errorf("attribute values nested deeper than %d", maxNesting)
	}
	var val Value
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch num {
		case 1:
			val = Value{Kind: KindString, Str: string(v)}
		case 2:
			val = Value{Kind: KindBool, Bool: n != 0}
		case 3:
			val = Value{Kind: KindInt, Int: int64(n)}
		case 4:
			val = Value{Kind: KindDouble, Double: math.Float64frombits(n)}
		case 5, 6:
			kind := KindArray
			if num == 6 {
				kind = KindMap
			}
			val = Value{Kind: kind}
			return fields(v, func(inner protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if inner != 1 || typ != protowire.BytesType {
					return nil
				}
				if kind == KindArray {
					x, err := decodeValue(v, depth+1)
					val.Array = append(val.Array, x)
					return err
				}
				kv, err := decodeKeyValue(v, depth+1)
				val.Map = append(val.Map, kv)
				return err
			})
		case 7:
			val = Value{Kind: KindBytes, Bytes: append([]byte(nil), v...)}
		}
		return nil
	})
	return val, err
}
