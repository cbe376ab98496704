package traces

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// TestOTLPStatuses: the OTLP specification's answers to what an exporter may send.
func TestOTLPStatuses(t *testing.T) {
	h := newOTLPHarness(t)
	js, _ := os.ReadFile(filepath.Join(otlpData, "chat.json"))
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write(bytes.Repeat([]byte{' '}, maxOTLPDecompressed+1))
	zw.Close()
	for _, c := range []struct {
		name, ct string
		body     []byte
		headers  map[string]string
		who      string // admin, readonly, none
		want     int
		detail   string
	}{
		{"content type", "text/plain", js, exampleRun, "admin", 415, "application/x-protobuf"},
		{"encoding", ctJSON, js, map[string]string{"Content-Encoding": "br"}, "admin", 415, "gzip"},
		{"undecodable protobuf", ctProtobuf, []byte{0x0a, 0x09, 0x01}, exampleRun, "admin", 400, "does not decode"},
		{"undecodable json", ctJSON, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz"}]}]}]}`), exampleRun, "admin", 400, "traceId"},
		{"null body", ctJSON, []byte(` null `), exampleRun, "admin", 400, "body is null"},
		{"null resource spans", ctJSON, []byte(`{"resourceSpans":[null]}`), exampleRun, "admin", 400, "null in resourceSpans"},
		{"null span", ctJSON, []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[null]}]}]}`), exampleRun, "admin", 400, "null in spans"},
		{"not gzip", ctJSON, js, map[string]string{"Content-Encoding": "gzip"}, "admin", 400, "gzip"},
		{"gzip bomb", ctJSON, bomb.Bytes(), map[string]string{"Content-Encoding": "gzip"}, "admin", 413, "decompressed"},
		{"no credentials", ctJSON, js, exampleRun, "none", 401, "Not authenticated"},
		// Galileo-API-Key is the header the original client's OpenTelemetry exporter sends.
		{"galileo api key", ctJSON, js, withHeader(exampleRun, "Galileo-API-Key", h.org.Admin.APIKey), "none", 200, ""},
		{"wrong galileo api key", ctJSON, js, withHeader(exampleRun, "Galileo-API-Key", h.org.Admin.APIKey+"x"), "none", 401, "Invalid API key"},
		{"read-only", ctJSON, js, exampleRun, "readonly", 403, "Read-only"},
		{"unknown project id", ctJSON, js, map[string]string{"project": "6a1f0c3e-8b2d-4e5f-9a7c-000000000000"}, "admin", 404, "Project not found"},
		{"unknown log stream id", ctJSON, js, map[string]string{"project": ExampleProjectID, "logstream": "6a1f0c3e-8b2d-4e5f-9a7c-000000000000"}, "admin", 404, "Log stream not found"},
		{"unknown experiment", ctJSON, js, map[string]string{"project": ExampleProjectID, "experimentid": "nightly"}, "admin", 404, "Experiment not found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			who := &h.org.Admin
			switch c.who {
			case "readonly":
				who = &h.org.ReadOnly
			case "none":
				who = nil
			}
			code, body, _ := h.otlpPost(who, "/otel/traces", c.ct, c.body, c.headers)
			if code != c.want || !strings.Contains(string(body), c.detail) {
				t.Errorf("%d %s, want %d with %q", code, body, c.want, c.detail)
			}
		})
	}
}

// TestOTLPRunByName: a project and log stream named in the headers are created on first
// use and found by name afterwards; an experiment is found by name; without headers the
// resource attributes name the run, and a resource naming none has its spans refused in
// partial_success.
func TestOTLPRunByName(t *testing.T) {
	h := newOTLPHarness(t)
	js, _ := os.ReadFile(filepath.Join(otlpData, "chat.json"))
	named := map[string]string{"project": "otel-demo", "logstream": "prod"}
	for range 2 {
		if code, body, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, js, named); code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
	}
	ctx := context.Background()
	p, runs, err := store.ProjectByName(ctx, h.tbl, h.org.ID, "otel-demo")
	if err != nil || len(runs) != 1 || runs[0].Name != "prod" {
		t.Fatalf("project %v, runs %v, %v", p, runs, err)
	}
	sums, err := store.GetRunSummaries(ctx, h.tbl, []string{runs[0].ID})
	if sum := sums[runs[0].ID]; err != nil || sum.NumTraces != 1 || sum.NumSpans != 1 {
		t.Errorf("run summary %+v, %v", sums, err)
	}

	// Resource attributes name the run; a second resource names none.
	var doc map[string]any
	json.Unmarshal(js, &doc)
	rs := doc["resourceSpans"].([]any)
	withRun := rs[0].(map[string]any)
	res := withRun["resource"].(map[string]any)
	res["attributes"] = append(res["attributes"].([]any),
		map[string]any{"key": "galileo.project", "value": map[string]any{"stringValue": "otel-demo"}},
		map[string]any{"key": "galileo.logstream", "value": map[string]any{"stringValue": "staging"}})
	orphan := map[string]any{"resource": map[string]any{}, "scopeSpans": withRun["scopeSpans"]}
	doc["resourceSpans"] = []any{withRun, orphan}
	body, _ := json.Marshal(doc)
	code, answer, _ := h.otlpPost(&h.org.Admin, "/v1/traces", ctJSON, body, nil)
	if code != http.StatusOK || !strings.Contains(string(answer), `"rejectedSpans":"1"`) || !strings.Contains(string(answer), "No project named") {
		t.Errorf("partial success: %d %s", code, answer)
	}
	_, runs, _ = store.ProjectByName(ctx, h.tbl, h.org.ID, "otel-demo")
	if len(runs) != 2 {
		t.Errorf("runs after a resource named staging: %v", runs)
	}
	// The same answer in protobuf: partial_success{rejected_spans: 1, error_message}.
	pb := protoOf(t, body)
	code, answer, _ = h.otlpPost(&h.org.Admin, "/v1/traces", ctProtobuf, pb, nil)
	if code != http.StatusOK || !bytes.Contains(answer, []byte("No project named")) || rejectedOf(t, answer) != 1 {
		t.Errorf("protobuf partial success: %d %q", code, answer)
	}
}

// protoOf re-encodes an OTLP/JSON export as protobuf.
func protoOf(t *testing.T, js []byte) []byte {
	t.Helper()
	e, err := otlp.DecodeJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	return otlp.EncodeProto(e)
}

// rejectedOf reads rejected_spans of an ExportTraceServiceResponse.
func rejectedOf(t *testing.T, b []byte) int64 {
	t.Helper()
	_, _, n := protowire.ConsumeTag(b)
	ps, m := protowire.ConsumeBytes(b[n:])
	if n < 0 || m < 0 {
		t.Fatalf("not a response: %q", b)
	}
	_, _, n = protowire.ConsumeTag(ps)
	v, _ := protowire.ConsumeVarint(ps[n:])
	return int64(v)
}

// TestOTLPDuplicateSpans: a span sent twice in one export (and a trace whose spans exceed
// the inline count) is stored once, and attributes cannot grow a header past its bounds.
func TestOTLPDuplicateSpans(t *testing.T) {
	h := newOTLPHarness(t)
	pb, _ := os.ReadFile(filepath.Join(otlpData, "agent.pb"))
	e, err := otlp.DecodeProto(pb)
	if err != nil {
		t.Fatal(err)
	}
	spans := e.Resources[0].Spans
	for i := range spans {
		spans[i].Attrs = append(spans[i].Attrs, otlp.KeyValue{Key: "big", Value: otlp.Value{Kind: otlp.KindString, Str: strings.Repeat("x", 100_000)}})
	}
	e.Resources[0].Spans = append(append(append([]otlp.Span{}, spans...), spans...), spans...) // 15 spans, 5 distinct
	for range 2 {
		if code, body, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctProtobuf, otlp.EncodeProto(e), exampleRun); code != http.StatusOK {
			t.Fatalf("%d %s", code, body)
		}
	}
	tr := h.readTrace(otlp.TraceUUID(ExampleLogStreamID, spans[0].TraceID))
	if tr["num_spans"] != float64(5) {
		t.Errorf("num_spans %v, want 5", tr["num_spans"])
	}
	if v, _ := tr["user_metadata"].(map[string]any)["big"].(string); len(v) != 1024 {
		t.Errorf("a long attribute is kept with %d characters, want 1024", len(v))
	}
}

// TestOTLPWideTrace: a trace of more spans than a transaction holds inline (its spans are
// written ahead of it) reads back whole, in one export or spread over two.
func TestOTLPWideTrace(t *testing.T) {
	pb, _ := os.ReadFile(filepath.Join(otlpData, "chat.json"))
	base, err := otlp.DecodeJSON(pb)
	if err != nil {
		t.Fatal(err)
	}
	root := base.Resources[0].Spans[0]
	spans := []otlp.Span{root}
	for i := range 60 {
		c := root
		c.SpanID = [8]byte{0xc0, byte(i), 1}
		c.ParentSpanID = root.SpanID
		c.Start += uint64(i) * 1000
		spans = append(spans, c)
	}
	export := func(s []otlp.Span) []byte {
		return otlp.EncodeProto(&otlp.Export{Resources: []otlp.ResourceSpans{{Attrs: base.Resources[0].Attrs, Spans: s}}})
	}
	for name, parts := range map[string][][]otlp.Span{"one": {spans}, "two": {spans[31:], spans[:31]}} {
		t.Run(name, func(t *testing.T) {
			h := newOTLPHarness(t)
			for _, p := range parts {
				if code, body, _ := h.otlpPost(&h.org.Admin, "/v1/traces", ctProtobuf, export(p), exampleRun); code != http.StatusOK {
					t.Fatalf("%d %s", code, body)
				}
			}
			tr := h.readTrace(otlp.TraceUUID(ExampleLogStreamID, root.TraceID))
			kids, _ := tr["spans"].([]any)
			if tr["num_spans"] != float64(61) || len(kids) != 1 || len(kids[0].(map[string]any)["spans"].([]any)) != 60 {
				t.Errorf("num_spans %v, %d top-level spans", tr["num_spans"], len(kids))
			}
			m := tr["metrics"].(map[string]any)
			if m["num_total_tokens"] != float64(61*51) {
				t.Errorf("trace tokens %v, want %d", m["num_total_tokens"], 61*51)
			}
		})
	}
}

// withHeader is a copy of headers with name set to value.
func withHeader(headers map[string]string, name, value string) map[string]string {
	out := map[string]string{name: value}
	for k, v := range headers {
		out[k] = v
	}
	return out
}
