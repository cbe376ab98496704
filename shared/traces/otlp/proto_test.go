package otlp_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/evalobs/evalapi/shared/traces/otlp"
)

var update = flag.Bool("update", false, "rewrite the protobuf recordings from the JSON ones")

const recordings = "../testdata/otlp"

// TestRecordingsBothEncodings: each OTLP/JSON recording, written as protobuf by the
// official generated types, is the .pb recording beside it, and the hand-written protobuf
// decoder reads it (and the official decoder's reading of it) exactly as the JSON decoder
// reads the JSON.
func TestRecordingsBothEncodings(t *testing.T) {
	all, _ := filepath.Glob(filepath.Join(recordings, "*.json"))
	var files []string
	for _, f := range all {
		if !strings.HasSuffix(f, ".golden.json") { // the reads shared/traces expects
			files = append(files, f)
		}
	}
	if len(files) < 4 {
		t.Fatalf("recordings: %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			js, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fromJSON, err := otlp.DecodeJSON(js)
			if err != nil {
				t.Fatal(err)
			}
			pb, err := proto.Marshal(ToProto(fromJSON))
			if err != nil {
				t.Fatal(err)
			}
			pbFile := strings.TrimSuffix(f, ".json") + ".pb"
			if *update {
				if err := os.WriteFile(pbFile, pb, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			recorded, err := os.ReadFile(pbFile)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(recorded, pb) {
				t.Fatalf("%s is stale: run go test ./shared/traces/otlp -update", pbFile)
			}
			mine, err := otlp.DecodeProto(recorded)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(mine, fromJSON) {
				t.Errorf("protobuf and JSON decode differently:\n%+v\n%+v", mine, fromJSON)
			}
			var official tracepb.TracesData
			if err := proto.Unmarshal(recorded, &official); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(&official, ToProto(mine)) {
				t.Errorf("the official decoder reads another export than ours")
			}
		})
	}
}

func TestDecodeRefusesBadInput(t *testing.T) {
	for name, body := range map[string][]byte{
		"truncated": {0x0a, 0x05, 0x0a},
		"short trace id": mustMarshal(t, &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{
			Spans: []*tracepb.Span{{TraceId: []byte{1, 2}, SpanId: make([]byte, 8)}}}}}}}),
	} {
		if _, err := otlp.DecodeProto(body); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	for name, body := range map[string]string{
		"base64 ids":    `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"W47/95gDgQPSabYzgT/GDA==","spanId":"7uGbfsPBsXQ="}]}]}]}`,
		"unknown kind":  `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","kind":"SPAN_KIND_NOPE"}]}]}]}`,
		"not json":      `{"resourceSpans":`,
		"bad int value": `{"resourceSpans":[{"resource":{"attributes":[{"key":"a","value":{"intValue":"x"}}]}}]}`,
	} {
		if _, err := otlp.DecodeJSON([]byte(body)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ToProto is e as the official generated message.
func ToProto(e *otlp.Export) *tracepb.TracesData {
	out := &tracepb.TracesData{}
	for _, rs := range e.Resources {
		prs := &tracepb.ResourceSpans{Resource: &resourcepb.Resource{Attributes: kvsProto(rs.Attrs)}}
		var cur *tracepb.ScopeSpans
		for _, s := range rs.Spans {
			if cur == nil || cur.Scope.Name != s.Scope {
				cur = &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: s.Scope}}
				prs.ScopeSpans = append(prs.ScopeSpans, cur)
			}
			ps := &tracepb.Span{TraceId: clone(s.TraceID[:]), SpanId: clone(s.SpanID[:]), Name: s.Name,
				Kind: tracepb.Span_SpanKind(s.Kind), StartTimeUnixNano: s.Start, EndTimeUnixNano: s.End,
				Attributes: kvsProto(s.Attrs),
				Status:     &tracepb.Status{Code: tracepb.Status_StatusCode(s.Status.Code), Message: s.Status.Message}}
			if !s.IsRoot() {
				ps.ParentSpanId = clone(s.ParentSpanID[:])
			}
			for _, ev := range s.Events {
				ps.Events = append(ps.Events, &tracepb.Span_Event{TimeUnixNano: ev.Time, Name: ev.Name, Attributes: kvsProto(ev.Attrs)})
			}
			cur.Spans = append(cur.Spans, ps)
		}
		out.ResourceSpans = append(out.ResourceSpans, prs)
	}
	return out
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func kvsProto(kvs []otlp.KeyValue) []*commonpb.KeyValue {
	var out []*commonpb.KeyValue
	for _, kv := range kvs {
		out = append(out, &commonpb.KeyValue{Key: kv.Key, Value: valueProto(kv.Value)})
	}
	return out
}

func valueProto(v otlp.Value) *commonpb.AnyValue {
	switch v.Kind {
	case otlp.KindString:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.Str}}
	case otlp.KindBool:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.Bool}}
	case otlp.KindInt:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.Int}}
	case otlp.KindDouble:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.Double}}
	case otlp.KindBytes:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: v.Bytes}}
	case otlp.KindArray:
		a := &commonpb.ArrayValue{}
		for _, x := range v.Array {
			a.Values = append(a.Values, valueProto(x))
		}
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: a}}
	case otlp.KindMap:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: kvsProto(v.Map)}}}
	}
	return &commonpb.AnyValue{}
}

// TestEncodeProtoIsTheOfficialWireForm: EncodeProto writes what the generated types read
// as the same export, and DecodeProto reads it back exactly.
func TestEncodeProtoIsTheOfficialWireForm(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(recordings, "*.pb"))
	for _, f := range files {
		pb, _ := os.ReadFile(f)
		e, err := otlp.DecodeProto(pb)
		if err != nil {
			t.Fatal(err)
		}
		out := otlp.EncodeProto(e)
		var official tracepb.TracesData
		if err := proto.Unmarshal(out, &official); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !proto.Equal(&official, ToProto(e)) {
			t.Errorf("%s: EncodeProto writes another export", f)
		}
		back, err := otlp.DecodeProto(out)
		if err != nil || !reflect.DeepEqual(back, e) {
			t.Errorf("%s: round trip: %v", f, err)
		}
		fromJSON, err := otlp.DecodeJSON(otlp.EncodeJSON(e))
		if err != nil || !reflect.DeepEqual(fromJSON, e) {
			t.Errorf("%s: JSON round trip: %v", f, err)
		}
	}
}
