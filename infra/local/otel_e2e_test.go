package main

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// TestOTLPExporterEndToEnd points the OpenTelemetry Go SDK's OTLP/HTTP exporter at the
// local host, as a user does with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and
// OTEL_EXPORTER_OTLP_HEADERS: an agent's spans go in three exports, children first, and
// form one trace in a project and log stream the export creates by name. An evaluator's
// judgments (gen_ai.evaluation.result: an event of the chat span, and log-style spans of
// their own exported before the spans they judge) become external metric values of the
// judged spans, rolled up on the trace and reported by the metrics search. Exporting
// everything again changes nothing.
func TestOTLPExporterEndToEnd(t *testing.T) {
	h := startHost(t, "DATA_DIR="+t.TempDir(), "ADMIN_EMAIL="+adminEmail, "ADMIN_PASSWORD="+adminPassword)
	c := client{base: h.URL, v: apitest.Validator(t)}
	m := apiKeyLine.FindStringSubmatch(h.stdout.String())
	if m == nil {
		t.Fatalf("no API key printed:\n%s", h.stdout.String())
	}
	key := m[1]
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(h.URL+"/otel/traces"),
		otlptracehttp.WithHeaders(map[string]string{"Service-API-Key": key, "project": "otel-e2e", "logstream": "agents"}),
		otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Shutdown(ctx)

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "e2e-agent"))))
	tr := tp.Tracer("e2e")
	rctx, root := tr.Start(ctx, "invoke_agent planner", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "planner"),
		attribute.String("input.value", "Plan a trip"), attribute.String("output.value", "Done")))
	_, chat := tr.Start(rctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", "gpt-4o"),
		attribute.Int("gen_ai.usage.input_tokens", 30), attribute.Int("gen_ai.usage.output_tokens", 5),
		attribute.String("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"Plan a trip"}]}]`)))
	chat.AddEvent("gen_ai.evaluation.result", trace.WithAttributes(attribute.String("gen_ai.evaluation.name", "relevance"),
		attribute.Float64("gen_ai.evaluation.score.value", 0.8), attribute.String("gen_ai.evaluation.score.label", "relevant"),
		attribute.String("gen_ai.evaluation.explanation", "on topic")))
	chat.End()
	tctx, tool := tr.Start(rctx, "execute_tool search", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.call.id", "call_9")))
	_, fetch := tr.Start(tctx, "GET", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("http.request.method", "GET"), attribute.Int("http.response.status_code", 502)))
	fetch.SetStatus(codes.Error, "bad gateway")
	fetch.End()
	tool.End()
	root.End()
	// A later evaluator's judgments, log-style: spans of their own parented to the judged ones.
	judge := func(of trace.Span, attrs ...attribute.KeyValue) {
		_, j := tr.Start(trace.ContextWithSpanContext(ctx, of.SpanContext()), "gen_ai.evaluation.result", trace.WithAttributes(attrs...))
		j.End()
	}
	judge(chat, attribute.String("gen_ai.evaluation.name", "helpfulness"), attribute.String("gen_ai.evaluation.score.label", "helpful"))
	judge(tool, attribute.String("gen_ai.evaluation.name", "relevance"), attribute.Float64("gen_ai.evaluation.score.value", 0.4))
	spans := rec.Ended() // in end order: chat, GET, tool, root, the two judgments
	if len(spans) != 6 {
		t.Fatalf("%d spans recorded", len(spans))
	}
	// The judgments first: they wait for their spans.
	for _, batch := range [][]sdktrace.ReadOnlySpan{{spans[4], spans[5]}, {spans[0]}, {spans[1], spans[2]}, {spans[3]}} {
		if err := exp.ExportSpans(ctx, batch); err != nil {
			t.Fatalf("export: %v", err)
		}
	}

	header := http.Header{"Service-API-Key": {key}}
	get := func(path string, into any) {
		t.Helper()
		resp, body := c.do(t, http.MethodGet, path, header, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		if err := json.Unmarshal([]byte(body), into); err != nil {
			t.Fatal(err)
		}
	}
	var projects []struct{ ID, Name string }
	get("/v2/projects?project_name="+url.QueryEscape("otel-e2e"), &projects)
	if len(projects) != 1 {
		t.Fatalf("projects named otel-e2e: %v", projects)
	}
	var streams []struct{ ID, Name string }
	get("/v2/projects/"+projects[0].ID+"/log_streams", &streams)
	if len(streams) != 1 || streams[0].Name != "agents" {
		t.Fatalf("log streams: %v", streams)
	}
	traceID := otlp.TraceUUID(streams[0].ID, spans[3].SpanContext().TraceID())
	read := func() (map[string]any, string) {
		var tr map[string]any
		get("/v2/projects/"+projects[0].ID+"/traces/"+traceID, &tr)
		delete(tr, "updated_at")
		b, _ := json.Marshal(tr)
		return tr, string(b)
	}
	got, before := read()
	if got["is_complete"] != true || got["name"] != "invoke_agent planner" || got["num_spans"] != float64(4) {
		t.Fatalf("trace: %s", before)
	}
	kidsOf := func(n map[string]any) []map[string]any {
		list, _ := n["spans"].([]any)
		out := make([]map[string]any, len(list))
		for i, x := range list {
			out[i], _ = x.(map[string]any)
		}
		return out
	}
	kids := kidsOf(got)
	if len(kids) != 1 || kids[0]["type"] != "agent" || len(kidsOf(kids[0])) != 2 {
		t.Fatalf("tree: %s", before)
	}
	toolSpan := kidsOf(kids[0])[1]
	if calls := kidsOf(toolSpan); toolSpan["type"] != "tool" || len(calls) != 1 || calls[0]["status_code"] != float64(502) {
		t.Errorf("tool step: %s", before)
	}
	metric := func(n map[string]any, name string) map[string]any {
		mi, _ := n["metric_info"].(map[string]any)
		v, _ := mi[name].(map[string]any)
		return v
	}
	near := func(v any, want float64) bool { f, ok := v.(float64); return ok && math.Abs(f-want) < 1e-9 }
	chatSpan := kidsOf(kids[0])[0]
	if v := metric(chatSpan, "relevance"); v["value"] != 0.8 || v["explanation"] != "relevant: on topic" || v["source"] != "external" {
		t.Errorf("chat relevance: %v", v)
	}
	if v := metric(chatSpan, "helpfulness"); v["value"] != "helpful" || v["source"] != "external" {
		t.Errorf("chat helpfulness: %v", v)
	}
	if v := metric(toolSpan, "relevance"); v["value"] != 0.4 {
		t.Errorf("tool relevance: %v", v)
	}
	if v := metric(got, "relevance"); !near(v["value"], 0.6) {
		t.Errorf("trace relevance (the average of its spans'): %v", v)
	}
	now := time.Now().UTC().Truncate(time.Minute)
	resp, body := c.do(t, http.MethodPost, "/v2/projects/"+projects[0].ID+"/metrics/search", header, strings.NewReader(
		`{"log_stream_id":"`+streams[0].ID+`","start_time":"`+now.Add(-time.Hour).Format(time.RFC3339)+`","end_time":"`+now.Add(time.Hour).Format(time.RFC3339)+`"}`))
	var search struct {
		AggregateMetrics map[string]any `json:"aggregate_metrics"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &search) != nil || !near(search.AggregateMetrics["relevance"], 0.6) {
		t.Errorf("metrics search: %d %s", resp.StatusCode, body)
	}
	count := func() string {
		resp, body := c.do(t, http.MethodPost, "/v2/projects/"+projects[0].ID+"/spans/count", header,
			strings.NewReader(`{"log_stream_id":"`+streams[0].ID+`"}`))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("count: %d %s", resp.StatusCode, body)
		}
		return body
	}
	spansBefore := count()

	if err := exp.ExportSpans(ctx, spans); err != nil {
		t.Fatalf("re-export: %v", err)
	}
	if _, after := read(); after != before {
		t.Errorf("re-export changed the trace:\n%s\n%s", before, after)
	}
	if after := count(); after != spansBefore {
		t.Errorf("re-export changed the span count: %s, then %s", spansBefore, after)
	}
}
