package traces

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

func evalAttrs(name string, value *float64, label, explanation string) []otlp.KeyValue {
	s := func(k, v string) otlp.KeyValue {
		return otlp.KeyValue{Key: k, Value: otlp.Value{Kind: otlp.KindString, Str: v}}
	}
	kvs := []otlp.KeyValue{s("gen_ai.evaluation.name", name), s("gen_ai.response.id", "resp-1")}
	if value != nil {
		kvs = append(kvs, otlp.KeyValue{Key: "gen_ai.evaluation.score.value", Value: otlp.Value{Kind: otlp.KindDouble, Double: *value}})
	}
	if label != "" {
		kvs = append(kvs, s("gen_ai.evaluation.score.label", label))
	}
	if explanation != "" {
		kvs = append(kvs, s("gen_ai.evaluation.explanation", explanation))
	}
	return kvs
}

func f64(v float64) *float64 { return &v }

func spanID8(s string) (id [8]byte) {
	b, _ := hex.DecodeString(s)
	copy(id[:], b)
	return id
}

// evalCarrier is a log-style gen_ai.evaluation.result: a span of its own, parented to the
// span it judges.
func evalCarrier(trace [16]byte, id, parent string, at uint64, attrs []otlp.KeyValue) otlp.Span {
	return otlp.Span{TraceID: trace, SpanID: spanID8(id), ParentSpanID: spanID8(parent), Name: otlp.EvaluationEvent,
		Start: at, End: at, Attrs: attrs}
}

// evalExports are the 2026 recording's spans, the chat span carrying one evaluation event,
// and two log-style evaluations (of the older chat and of the 2026 chat).
func evalExports(t *testing.T) (res []otlp.KeyValue, spans, carriers []otlp.Span) {
	js, err := os.ReadFile(filepath.Join(otlpData, "genai2026.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := otlp.DecodeJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	spans = e.Resources[0].Spans
	at := spans[2].End + 1e9
	spans[2].Events = append(spans[2].Events, otlp.Event{Time: at, Name: otlp.EvaluationEvent,
		Attrs: evalAttrs("relevance", f64(0.9), "relevant", "answers the question")})
	trace := spans[0].TraceID
	carriers = []otlp.Span{
		evalCarrier(trace, "e100000000000001", "a100000000000005", at, evalAttrs("relevance", f64(0.5), "", "partly")),
		evalCarrier(trace, "e100000000000002", "a100000000000003", at, evalAttrs("courtesy", nil, "polite", "")),
	}
	return e.Resources[0].Attrs, spans, carriers
}

// TestOTLPEvaluations: gen_ai.evaluation.result events, on the evaluated span and
// log-style, become external metric values of the span they judge, and the trace rolls
// them up; sending the judgments before, with or after their spans ends the same; a
// re-export writes nothing; a new value for a (span, name) replaces the old and moves the
// metrics search by exactly the difference, from the roll-ups and from a scan alike.
func TestOTLPEvaluations(t *testing.T) {
	res, spans, carriers := evalExports(t)
	id := otlp.TraceUUID(ExampleLogStreamID, spans[0].TraceID)
	read := func(h *harness) (map[string]any, string) {
		tr := h.readTrace(id)
		delete(tr, "updated_at")
		for _, sp := range tr["spans"].([]any) { // the root's children; their stamps vary by order
			delete(sp.(map[string]any), "updated_at")
		}
		b, _ := json.Marshal(tr)
		return tr, string(b)
	}
	post := func(h *harness, ss []otlp.Span) {
		t.Helper()
		if code, body, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, jsonExport(t, res, ss), exampleRun); code != http.StatusOK {
			t.Fatalf("export: %d %s", code, body)
		}
	}
	all := append(append([]otlp.Span{}, spans...), carriers...)
	orders := map[string][][]otlp.Span{
		"at once":              {all},
		"judgments first":      {carriers, spans},
		"judgments after":      {spans, carriers},
		"root last":            {carriers[:1], spans[1:], carriers[1:], spans[:1]},
		"one by one, reversed": reversedOneByOne(all),
	}
	var want string
	for _, name := range []string{"at once", "judgments first", "judgments after", "root last", "one by one, reversed"} {
		h := newOTLPHarness(t)
		for _, part := range orders[name] {
			post(h, part)
		}
		tr, got := read(h)
		if want == "" {
			want = got
			checkEvaluated(t, tr)
		} else if got != want {
			t.Errorf("%s: the trace differs from the one export's:\n%s\n%s", name, got, want)
		}
		if n := h.writes(func() {
			for _, part := range orders[name] {
				post(h, part)
			}
		}); n != 0 {
			t.Errorf("%s: re-exports wrote %d times", name, n)
		}
		if name != "judgments first" {
			continue
		}
		// A new value of (older chat, relevance): the span's value is replaced and the
		// trace's average and the search move by exactly (0.1 - 0.5) / 2.
		rollups := `{"start_time":"2026-01-05T10:00:00Z","end_time":"2026-01-05T11:00:00Z","log_stream_id":"` + ExampleLogStreamID + `"}`
		scan := `{"start_time":"2026-01-05T09:59:30Z","end_time":"2026-01-05T11:00:00Z","log_stream_id":"` + ExampleLogStreamID + `"}`
		for _, q := range []string{rollups, scan} {
			if a := h.search(q); a.AggregateMetrics["relevance"] != 0.7 || fmt.Sprint(a.AggregateMetrics["courtesy"]) != "map[polite:1]" {
				t.Errorf("search %s before: %v", q, a.AggregateMetrics)
			}
		}
		later := carriers[0]
		later.SpanID, later.Start, later.Attrs = spanID8("e100000000000003"), later.Start+1e9, evalAttrs("relevance", f64(0.1), "", "off topic")
		post(h, []otlp.Span{later})
		tr, _ = read(h)
		if v := metricOf(tr, "anthropic.chat", "relevance"); v["value"] != 0.1 || v["explanation"] != "off topic" {
			t.Errorf("replaced value: %v", v)
		}
		if v := tr["metric_info"].(map[string]any)["relevance"].(map[string]any); v["value"] != 0.5 {
			t.Errorf("trace roll-up after the replacement: %v", v)
		}
		for _, q := range []string{rollups, scan} {
			if a := h.search(q); a.AggregateMetrics["relevance"] != 0.5 {
				t.Errorf("search %s after: %v", q, a.AggregateMetrics)
			}
		}
		if n := h.writes(func() { post(h, []otlp.Span{later}) }); n != 0 {
			t.Errorf("re-export of the new value wrote %d times", n)
		}
	}
}

func reversedOneByOne(all []otlp.Span) [][]otlp.Span {
	out := make([][]otlp.Span, len(all))
	for i := range all {
		out[len(all)-1-i] = []otlp.Span{all[i]}
	}
	return out
}

// metricOf is the metric_info entry name of the span named span in a trace read.
func metricOf(tr map[string]any, span, name string) map[string]any {
	var walk func(list []any) map[string]any
	walk = func(list []any) map[string]any {
		for _, x := range list {
			sp := x.(map[string]any)
			if sp["name"] == span {
				mi, _ := sp["metric_info"].(map[string]any)
				v, _ := mi[name].(map[string]any)
				return v
			}
			if kids, ok := sp["spans"].([]any); ok {
				if v := walk(kids); v != nil {
					return v
				}
			}
		}
		return nil
	}
	return walk(tr["spans"].([]any))
}

// checkEvaluated checks the values of evalExports on the spans and the trace.
func checkEvaluated(t *testing.T, tr map[string]any) {
	t.Helper()
	for _, c := range []struct {
		span, name string
		want       map[string]any
	}{
		{"chat claude-sonnet-4-5", "relevance", map[string]any{"status_type": "success", "value": 0.9,
			"explanation": "relevant: answers the question", "source": "external"}},
		{"chat claude-sonnet-4-5", "courtesy", map[string]any{"status_type": "success", "value": "polite", "source": "external"}},
		{"anthropic.chat", "relevance", map[string]any{"status_type": "success", "value": 0.5, "explanation": "partly", "source": "external"}},
	} {
		if got := metricOf(tr, c.span, c.name); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s %s: %v, want %v", c.span, c.name, got, c.want)
		}
	}
	mi := tr["metric_info"].(map[string]any)
	if rel := mi["relevance"].(map[string]any); rel["value"] != 0.7 {
		t.Errorf("trace relevance: %v", rel)
	}
	if c := mi["courtesy"].(map[string]any); c["value"] != "polite" {
		t.Errorf("trace courtesy: %v", c)
	}
	if tr["num_spans"] != 6.0 {
		t.Errorf("num_spans %v: the judgments' carriers are not spans", tr["num_spans"])
	}
}

// TestOTLPEvaluationBesideScorer: a run whose metric settings hold a scorer of the
// evaluation's name keeps the external value under name_external, apart from the scorer's
// own value, which it neither overwrites nor is summed with; the catalog lists both, and
// the records searches filter on the external one.
func TestOTLPEvaluationBesideScorer(t *testing.T) {
	h := newOTLPHarness(t)
	ctx := t.Context()
	ls, err := store.GetLogStream(ctx, h.tbl, h.org.ID, ExampleProjectID, ExampleLogStreamID)
	mustDo(t, err)
	name := "relevance"
	scorers := []store.ScorerConfig{{ID: "3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b", Name: &name}}
	_, err = store.SetMetricSettings(ctx, h.tbl, ls, &scorers, nil, testNow)
	mustDo(t, err)
	res, spans, carriers := evalExports(t)
	body := jsonExport(t, res, append(spans, carriers...))
	if code, resp, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, body, exampleRun); code != http.StatusOK {
		t.Fatalf("export: %d %s", code, resp)
	}
	tr := h.readTrace(otlp.TraceUUID(ExampleLogStreamID, spans[0].TraceID))
	if v := metricOf(tr, "chat claude-sonnet-4-5", "relevance_external"); v["value"] != 0.9 {
		t.Errorf("external value beside the scorer: %v", v)
	}
	if v := metricOf(tr, "chat claude-sonnet-4-5", "relevance"); v != nil {
		t.Errorf("the external value took the scorer's name: %v", v)
	}
	if v := metricOf(tr, "chat claude-sonnet-4-5", "courtesy"); v["value"] != "polite" {
		t.Errorf("a name no scorer has keeps its name: %v", v)
	}
	code, resp := h.do(&h.org.Admin, "POST", "/v2/projects/"+ExampleProjectID+"/traces/available_columns",
		`{"log_stream_id":"`+ExampleLogStreamID+`"}`)
	if code != http.StatusOK {
		t.Fatalf("columns: %d %s", code, resp)
	}
	var cols struct {
		Columns []map[string]any `json:"columns"`
	}
	mustDo(t, json.Unmarshal([]byte(resp), &cols))
	found := map[string]bool{}
	for _, c := range cols.Columns {
		found[c["id"].(string)] = true
	}
	for _, id := range []string{"metrics/relevance", "metrics/relevance_external", "metrics/courtesy"} {
		if !found[id] {
			t.Errorf("the catalog lacks %s", id)
		}
	}
	// The records searches filter on an external metric like on a scorer's.
	var page pageAnswer
	h.call("POST", projectPath+"/spans/search", `{"log_stream_id":"`+ExampleLogStreamID+
		`","filters":[{"type":"number","name":"metrics/relevance_external","operator":"gte","value":0.6}]}`, 200, &page)
	if len(page.Records) != 1 || page.Records[0]["name"] != "chat claude-sonnet-4-5" {
		t.Errorf("spans with relevance_external >= 0.6: %v", page.Records)
	}
	page = pageAnswer{}
	h.call("POST", projectPath+"/traces/search", `{"log_stream_id":"`+ExampleLogStreamID+
		`","filters":[{"type":"number","name":"metrics/relevance_external","operator":"gte","value":0.6}]}`, 200, &page)
	if len(page.Records) != 1 {
		t.Errorf("traces with relevance_external >= 0.6: %v", page.Records)
	}
}

// withoutStamps drops updated_at at every level of a read (merges stamp it).
func withoutStamps(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "updated_at")
		for _, y := range x {
			withoutStamps(y)
		}
	case []any:
		for _, y := range x {
			withoutStamps(y)
		}
	}
	return v
}

// TestOTLPEvaluationRecordings: the 2026 recordings of an agent whose chat span carries a
// judgment (genai2026_evaluated) and of a later evaluator's log-style judgments
// (genai2026_judgments), sent in protobuf and in JSON, judgments before or after their
// spans, read back as one golden trace (genai2026_judged.golden.json), and re-sending both
// writes nothing.
func TestOTLPEvaluationRecordings(t *testing.T) {
	golden := filepath.Join(otlpData, "genai2026_judged.golden.json")
	var want []byte
	for _, enc := range []struct{ name, ct, ext string }{{"json", ctJSON, ".json"}, {"protobuf", ctProtobuf, ".pb"}} {
		var bodies [2][]byte
		for i, name := range []string{"genai2026_evaluated", "genai2026_judgments"} {
			b, err := os.ReadFile(filepath.Join(otlpData, name+enc.ext))
			mustDo(t, err)
			bodies[i] = b
		}
		js, _ := os.ReadFile(filepath.Join(otlpData, "genai2026.json"))
		id := traceIDOf(t, js)
		for _, order := range [][]int{{0, 1}, {1, 0}} {
			t.Run(fmt.Sprint(enc.name, order), func(t *testing.T) {
				h := newOTLPHarness(t)
				send := func() {
					for _, i := range order {
						if code, body, _ := h.otlpPost(&h.org.Admin, "/v1/traces", enc.ct, bodies[i], exampleRun); code != http.StatusOK {
							t.Fatalf("export %d: %d %s", i, code, body)
						}
					}
				}
				send()
				got, _ := json.MarshalIndent(withoutStamps(h.readTrace(id)), "", " ")
				if want == nil {
					if *updateGolden {
						mustDo(t, os.WriteFile(golden, append(got, '\n'), 0o644))
					}
					var err error
					if want, err = os.ReadFile(golden); err != nil {
						t.Fatalf("%v (run with -update)", err)
					}
				}
				if string(want) != string(got)+"\n" {
					t.Errorf("the judged trace differs from %s:\n%s", golden, got)
				}
				if n := h.writes(send); n != 0 {
					t.Errorf("re-sending wrote %d times", n)
				}
			})
		}
	}
}

// TestOTLPEvaluationNamedAsSystemMetric: a judgment named as a system metric (latency_ms,
// total_tokens, total_cost) is kept apart from it, as beside a scorer of its name: folded in
// under the plain name, it would move the latency's roll-ups and summary.
func TestOTLPEvaluationNamedAsSystemMetric(t *testing.T) {
	h := newOTLPHarness(t)
	run, err := store.GetRun(t.Context(), h.tbl, h.org.ID, ExampleProjectID, ExampleLogStreamID)
	mustDo(t, err)
	key, err := (&handlers{Deps: Deps{Deps: base.Deps{Table: h.tbl}}}).otelEvalKey(t.Context(), run)
	mustDo(t, err)
	for name, want := range map[string]string{
		"latency_ms": "latency_ms_external", "total_tokens": "total_tokens_external",
		"total_cost": "total_cost_external", "courtesy": "courtesy",
	} {
		if got := key(name); got != want {
			t.Errorf("a judgment named %s is stored as %s, want %s", name, got, want)
		}
	}
}
