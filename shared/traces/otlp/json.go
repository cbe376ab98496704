package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// OTLP/JSON is the protobuf JSON mapping with three differences a generic decoder gets
// wrong: trace and span ids are hex (not base64), enums may be integers or names, and
// 64-bit integers may be strings or numbers. Field names are lowerCamelCase; unknown fields
// are ignored.

type jsonExport struct {
	// Elements are pointers so that a null element is seen (and refused, as protobuf's JSON
	// mapping refuses null inside a repeated field) rather than read as an empty message.
	ResourceSpans []*struct {
		Resource struct {
			Attributes []jsonKV `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []*struct {
			Scope struct {
				Name string `json:"name"`
			} `json:"scope"`
			Spans []*jsonSpan `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type jsonSpan struct {
	TraceID      string   `json:"traceId"`
	SpanID       string   `json:"spanId"`
	ParentSpanID string   `json:"parentSpanId"`
	Name         string   `json:"name"`
	Kind         jsonEnum `json:"kind"`
	Start        jsonU64  `json:"startTimeUnixNano"`
	End          jsonU64  `json:"endTimeUnixNano"`
	Attributes   []jsonKV `json:"attributes"`
	Events       []struct {
		Time       jsonU64  `json:"timeUnixNano"`
		Name       string   `json:"name"`
		Attributes []jsonKV `json:"attributes"`
	} `json:"events"`
	Status struct {
		Code    jsonEnum `json:"code"`
		Message string   `json:"message"`
	} `json:"status"`
}

type jsonKV struct {
	Key   string    `json:"key"`
	Value jsonValue `json:"value"`
}

type jsonValue struct {
	String *string   `json:"stringValue"`
	Bool   *bool     `json:"boolValue"`
	Int    *jsonU64  `json:"intValue"`
	Double *jsonF64  `json:"doubleValue"`
	Array  *jsonList `json:"arrayValue"`
	KVList *jsonMap  `json:"kvlistValue"`
	Bytes  *string   `json:"bytesValue"`
}

type jsonList struct {
	Values []jsonValue `json:"values"`
}

type jsonMap struct {
	Values []jsonKV `json:"values"`
}

// jsonU64 reads a 64-bit integer written as a number or a decimal string.
type jsonU64 uint64

func (u *jsonU64) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	if s == "" || s == "null" {
		*u = 0
		return nil
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		*u = jsonU64(n)
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64) // intValue is signed
	if err != nil {
		return fmt.Errorf("not a 64-bit integer: %s", b)
	}
	*u = jsonU64(n)
	return nil
}

// jsonF64 reads a double, also written as a string ("NaN", "Infinity" or a number).
type jsonF64 float64

func (f *jsonF64) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseFloat(string(bytes.Trim(b, `"`)), 64)
	if err != nil {
		return fmt.Errorf("not a double: %s", b)
	}
	*f = jsonF64(n)
	return nil
}

// jsonEnum reads an enum as its number or its name (SPAN_KIND_CLIENT, STATUS_CODE_ERROR).
type jsonEnum int32

var enumNames = map[string]int32{
	"SPAN_KIND_UNSPECIFIED": 0, "SPAN_KIND_INTERNAL": 1, "SPAN_KIND_SERVER": 2, "SPAN_KIND_CLIENT": 3,
	"SPAN_KIND_PRODUCER": 4, "SPAN_KIND_CONSUMER": 5,
	"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2,
}

func (e *jsonEnum) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		n, ok := enumNames[s]
		if !ok {
			return fmt.Errorf("unknown enum value %q", s)
		}
		*e = jsonEnum(n)
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 32)
	if err != nil {
		return fmt.Errorf("not an enum: %s", b)
	}
	*e = jsonEnum(n)
	return nil
}

// DecodeJSON reads an ExportTraceServiceRequest in OTLP/JSON.
func DecodeJSON(b []byte) (*Export, error) {
	if string(bytes.TrimSpace(b)) == "null" { // encoding/json would read it as an empty export
		return nil, errors.New("otlp json: the body is null, not an export request")
	}
	var je jsonExport
	if err := json.Unmarshal(b, &je); err != nil {
		return nil, fmt.Errorf("otlp json: %w", err)
	}
	e := &Export{Resources: make([]ResourceSpans, 0, len(je.ResourceSpans))}
	for _, jr := range je.ResourceSpans {
		if jr == nil {
			return nil, errors.New("otlp json: null in resourceSpans")
		}
		rs := ResourceSpans{}
		var err error
		if rs.Attrs, err = kvs(jr.Resource.Attributes, 0); err != nil {
			return nil, err
		}
		for _, ss := range jr.ScopeSpans {
			if ss == nil {
				return nil, errors.New("otlp json: null in scopeSpans")
			}
			for _, js := range ss.Spans {
				if js == nil {
					return nil, errors.New("otlp json: null in spans")
				}
				sp, err := js.span(ss.Scope.Name)
				if err != nil {
					return nil, fmt.Errorf("otlp json: %w", err)
				}
				rs.Spans = append(rs.Spans, sp)
			}
		}
		e.Resources = append(e.Resources, rs)
	}
	return e, nil
}

func (js *jsonSpan) span(scope string) (Span, error) {
	s := Span{Name: js.Name, Kind: int32(js.Kind), Start: uint64(js.Start), End: uint64(js.End), Scope: scope,
		Status: Status{Code: int32(js.Status.Code), Message: js.Status.Message}}
	if err := hexID(s.TraceID[:], js.TraceID, "traceId"); err != nil {
		return s, err
	}
	if err := hexID(s.SpanID[:], js.SpanID, "spanId"); err != nil {
		return s, err
	}
	if js.ParentSpanID != "" {
		if err := hexID(s.ParentSpanID[:], js.ParentSpanID, "parentSpanId"); err != nil {
			return s, err
		}
	}
	var err error
	if s.Attrs, err = kvs(js.Attributes, 0); err != nil {
		return s, err
	}
	for _, je := range js.Events {
		ev := Event{Time: uint64(je.Time), Name: je.Name}
		if ev.Attrs, err = kvs(je.Attributes, 0); err != nil {
			return s, err
		}
		s.Events = append(s.Events, ev)
	}
	return s, nil
}

func hexID(dst []byte, s, name string) error {
	if len(s) != 2*len(dst) {
		return fmt.Errorf("%s %q is not %d hex digits", name, s, 2*len(dst))
	}
	if _, err := hex.Decode(dst, []byte(s)); err != nil {
		return fmt.Errorf("%s %q is not hex", name, s)
	}
	return nil
}

func kvs(in []jsonKV, depth int) ([]KeyValue, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]KeyValue, len(in))
	for i, kv := range in {
		v, err := kv.Value.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[i] = KeyValue{Key: kv.Key, Value: v}
	}
	return out, nil
}

func (jv *jsonValue) value(depth int) (Value, error) {
	if depth > maxNesting {
		return Value{}, fmt.Errorf("attribute values nested deeper than %d", maxNesting)
	}
	switch {
	case jv.String != nil:
		return Value{Kind: KindString, Str: *jv.String}, nil
	case jv.Bool != nil:
		return Value{Kind: KindBool, Bool: *jv.Bool}, nil
	case jv.Int != nil:
		return Value{Kind: KindInt, Int: int64(*jv.Int)}, nil
	case jv.Double != nil:
		return Value{Kind: KindDouble, Double: float64(*jv.Double)}, nil
	case jv.Array != nil:
		v := Value{Kind: KindArray, Array: make([]Value, len(jv.Array.Values))}
		for i := range jv.Array.Values {
			x, err := jv.Array.Values[i].value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.Array[i] = x
		}
		return v, nil
	case jv.KVList != nil:
		m, err := kvs(jv.KVList.Values, depth)
		return Value{Kind: KindMap, Map: m}, err
	case jv.Bytes != nil:
		b, err := base64.StdEncoding.DecodeString(*jv.Bytes)
		if err != nil {
			return Value{}, fmt.Errorf("bytesValue is not base64: %w", err)
		}
		return Value{Kind: KindBytes, Bytes: b}, nil
	}
	return Value{}, nil
}
