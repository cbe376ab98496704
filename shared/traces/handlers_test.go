package traces

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/store"
)

const exampleRange = `"start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T00:10:00Z","log_stream_id":"` + ExampleLogStreamID + `"`

func near(a any, want float64) bool {
	f, ok := a.(float64)
	return ok && math.Abs(f-want) < 1e-9
}

func TestSearchExample(t *testing.T) {
	h := newHarness(t, 0)
	a := h.search(`{` + exampleRange + `}`)
	agg := a.AggregateMetrics
	for name, want := range map[string]float64{"count": 4, "latency_ms": 250, "total_tokens": 500, "total_cost": 3,
		"correctness": 0.5, "toxic": 1.0 / 3} {
		if !near(agg[name], want) {
			t.Errorf("aggregate %s = %v, want %v", name, agg[name], want)
		}
	}
	if tone, _ := agg["tone"].(map[string]any); !near(tone["neutral"], 2) || !near(tone["angry"], 1) || len(tone) != 2 {
		t.Errorf("tone = %v", agg["tone"])
	}
	counts := a.BucketedMetrics["count"]
	if len(counts) != 2 || !near(counts[0]["value"], 2) || !near(counts[1]["value"], 2) ||
		counts[0]["start_bucket_time"] != "2026-01-01T00:00:00Z" || counts[1]["end_bucket_time"] != "2026-01-01T00:10:00Z" {
		t.Errorf("count buckets = %v", counts)
	}
	if !a.EMSCapturedError || a.StandardErrors["1006"]["severity"] != "high" || a.StandardErrors["1006"]["error_type"] != "llm_api_error" ||
		!near(a.StandardErrors["1006"]["error_code"], 1006) || a.StandardErrors["1006"]["retriable"] != true {
		t.Errorf("errors = %v %v", a.EMSCapturedError, a.StandardErrors)
	}
}

func TestSearchEmptyBucketsAndShortLastBucket(t *testing.T) {
	h := newHarness(t, 0)
	a := h.search(`{"start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T00:25:00Z","interval":10,"log_stream_id":"` + ExampleLogStreamID + `"}`)
	b := a.BucketedMetrics["latency_ms"]
	if len(b) != 3 || b[1]["value"] != nil || b[2]["value"] != nil || b[2]["end_bucket_time"] != "2026-01-01T00:25:00Z" {
		t.Errorf("buckets = %v", b)
	}
	if _, ok := b[1]["value"]; !ok {
		t.Error("an empty bucket must carry value null")
	}
}

func TestSearchGroupByModel(t *testing.T) {
	h := newHarness(t, 0)
	// Roll-ups, then a scan (roll-ups cannot answer a filter on input).
	for _, extra := range []string{``, `,"filters":[{"type":"text","name":"input","operator":"contains","value":"QUESTION","case_sensitive":false}]`} {
		body := `{` + exampleRange + `,"group_by":"model"` + extra + `}`
		a := h.search(body)
		if fmt.Sprint(a.GroupByColumns) != "[gpt-4o gpt-4o-mini]" {
			t.Fatalf("groups = %v", a.GroupByColumns)
		}
		cost, _ := a.AggregateMetrics["total_cost"].(map[string]any)
		if !near(cost["gpt-4o"], 2) || !near(cost["gpt-4o-mini"], 1) {
			t.Errorf("%s: total_cost = %v", body, cost)
		}
		b := a.BucketedMetrics["count"][0]
		if !near(b["gpt-4o"], 2) || b["gpt-4o-mini"] != nil {
			t.Errorf("first count bucket = %v", b)
		}
	}
}

func TestIngestIsIdempotentAndKeepsSummaries(t *testing.T) {
	h := newHarness(t, 0)
	body := `{"log_stream_id":"` + ExampleLogStreamID + `","include_trace_ids":true,"traces":[
	 {"id":"0f0e0d0c-0b0a-4009-8807-060504030201","created_at":"2026-01-01T00:30:10Z","name":"n","input":"i","output":"o",
	  "model":"m1","latency_ms":10,"input_tokens":3,"output_tokens":4,"total_cost":0.1,"session_id":"1f0e0d0c-0b0a-4009-8807-060504030201",
	  "metrics":{"correctness":0.25,"toxic":true,"tone":"calm"},
	  "spans":[{"type":"llm","name":"call","model":"m1","tool_call_id":"t1"},{"type":"tool","name":"search"}]},
	 {"id":"0f0e0d0c-0b0a-4009-8807-060504030202","created_at":"2026-01-01T00:31:00Z","session_id":"1f0e0d0c-0b0a-4009-8807-060504030201",
	  "metrics":{"correctness":{"code":42,"message":"boom","severity":"low"}}}]}`
	before, _ := store.GetRunSummaries(t.Context(), h.tbl, []string{ExampleLogStreamID})
	for i, want := range []int{2, 0} {
		code, resp := h.do(&h.org.User, "POST", ingestPath, body)
		var r ingestResponse
		if err := json.Unmarshal([]byte(resp), &r); code != http.StatusOK || err != nil || r.NumTraces != want || len(r.TraceIDs) != 2 {
			t.Fatalf("attempt %d: %d %s", i, code, resp)
		}
	}
	after, _ := store.GetRunSummaries(t.Context(), h.tbl, []string{ExampleLogStreamID})
	s, s0 := after[ExampleLogStreamID], before[ExampleLogStreamID]
	if s.NumTraces-s0.NumTraces != 2 || s.NumSpans-s0.NumSpans != 2 || s.NumSessions-s0.NumSessions != 1 {
		t.Errorf("summary counts %+v (before %+v)", s, s0)
	}
	if s.Metrics["total_tokens"].Count-s0.Metrics["total_tokens"].Count != 1 || s.Metrics["total_tokens"].Sum.Float64()-s0.Metrics["total_tokens"].Sum.Float64() != 7 {
		t.Errorf("total_tokens stats %+v", s.Metrics["total_tokens"])
	}
	if s.Metrics["tone"].Categories["calm"] != 1 || s.Metrics["correctness"].Count-s0.Metrics["correctness"].Count != 1 {
		t.Errorf("scorer stats %+v", s.Metrics)
	}
	filled, _ := store.FilledColumns(t.Context(), h.tbl, ExampleLogStreamID)
	for _, c := range []string{"model", "session_id", "tool_call_id", "metrics/correctness", "metrics/tone", "trace_id"} {
		if !filled[c] {
			t.Errorf("column %s not marked filled: %v", c, filled)
		}
	}
	a := h.search(`{"start_time":"2026-01-01T00:30:00Z","end_time":"2026-01-01T00:32:00Z","interval":1,"log_stream_id":"` + ExampleLogStreamID + `"}`)
	if !near(a.AggregateMetrics["count"], 2) || a.StandardErrors["42"]["message"] != "boom" || a.StandardErrors["42"]["error_type"] != "uncataloged_error" {
		t.Errorf("search after ingest: %+v", a)
	}
}

func TestIngestConcurrentRollups(t *testing.T) {
	h := newHarness(t, 0)
	const writers, each = 8, 25
	done := make(chan error, writers)
	for w := range writers {
		go func() {
			var b strings.Builder
			b.WriteString(`{"log_stream_id":"` + ExampleLogStreamID + `","traces":[`)
			for i := range each {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `{"created_at":"2026-01-01T01:00:%02dZ","model":"m","latency_ms":%d,"total_cost":0.001}`, i, w*each+i)
			}
			b.WriteString("]}")
			code, resp := h.do(&h.org.Admin, "POST", ingestPath, b.String())
			if code != http.StatusOK {
				done <- fmt.Errorf("%d %s", code, resp)
				return
			}
			done <- nil
		}()
	}
	for range writers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for _, group := range []string{``, `,"group_by":"model"`} {
		a := h.search(`{"start_time":"2026-01-01T01:00:00Z","end_time":"2026-01-01T01:01:00Z","interval":1,"log_stream_id":"` + ExampleLogStreamID + `"` + group + `}`)
		val := func(name string) any {
			if group == "" {
				return a.AggregateMetrics[name]
			}
			return a.AggregateMetrics[name].(map[string]any)["m"]
		}
		n := float64(writers * each)
		if !near(val("count"), n) || !near(val("latency_ms"), (n-1)/2) || !near(val("total_cost"), n*0.001) {
			t.Errorf("%s: count %v latency %v cost %v", group, val("count"), val("latency_ms"), val("total_cost"))
		}
	}
	sum, _ := store.GetRunSummaries(t.Context(), h.tbl, []string{ExampleLogStreamID})
	if sum[ExampleLogStreamID].NumTraces != 4+writers*each {
		t.Errorf("num_traces = %d", sum[ExampleLogStreamID].NumTraces)
	}
	it, err := h.tbl.Get(t.Context(), store.RollupKey(ExampleLogStreamID, store.RollupMinute, "model", time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC), "m"), true)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := store.ParseRollup(it)
	if m := r.Metrics["latency_ms"]; m == nil || *m.Min != fixed.FromInt(0) || *m.Max != fixed.FromInt(writers*each-1) || r.Count != writers*each {
		t.Errorf("roll-up %+v %+v", r, m)
	}
}

func TestTooWideQueryAnswers422Quickly(t *testing.T) {
	h := newHarness(t, 3) // the example run holds 4 traces
	start := time.Now()
	code, resp := h.do(&h.org.Admin, "POST", searchPath, `{`+exampleRange+`,"filters":[{"type":"text","name":"input","operator":"contains","value":"q"}]}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(resp, "narrow start_time and end_time") || time.Since(start) > time.Second {
		t.Fatalf("%d %s in %v", code, resp, time.Since(start))
	}
	// Roll-ups answer the same range without filters, whatever the bound.
	if a := h.search(`{` + exampleRange + `}`); !near(a.AggregateMetrics["count"], 4) {
		t.Errorf("roll-up answer %v", a.AggregateMetrics)
	}
}

func TestSearchAndIngestRefusals(t *testing.T) {
	h := newHarness(t, 0)
	ls := `"log_stream_id":"` + ExampleLogStreamID + `"`
	for _, tc := range []struct {
		name, path, body string
		who              string
		code             int
		typ              string
		loc              string
	}{
		{"missing times", searchPath, `{` + ls + `}`, "admin", 422, "missing", "[body start_time]"},
		{"start after end", searchPath, `{"start_time":"2026-01-02T00:00:00Z","end_time":"2026-01-01T00:00:00Z",` + ls + `}`, "admin", 422, "value_error", "[body]"},
		{"two runs", searchPath, `{` + exampleRange + `,"experiment_id":"` + ExampleProjectID + `"}`, "admin", 422, "value_error", "[body]"},
		{"no run", searchPath, `{"start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T01:00:00Z"}`, "admin", 422, "value_error", "[body]"},
		{"interval 0", searchPath, `{` + exampleRange + `,"interval":0}`, "admin", 422, "greater_than_equal", "[body interval]"},
		{"too many buckets", searchPath, `{"start_time":"2026-01-01T00:00:00Z","end_time":"2026-03-01T00:00:00Z","interval":1,` + ls + `}`, "admin", 422, "value_error", "[body]"},
		{"range of centuries", searchPath, `{"start_time":"1000-01-01T00:00:00Z","end_time":"2026-01-01T00:00:00Z","interval":10000000,` + ls + `}`, "admin", 422, "value_error", "[body]"},
		{"bad filter type", searchPath, `{` + exampleRange + `,"filters":[{"type":"nope","name":"input"}]}`, "admin", 422, "union_tag_invalid", "[body filters 0]"},
		{"no filter type", searchPath, `{` + exampleRange + `,"filters":[{"name":"input"}]}`, "admin", 422, "union_tag_not_found", "[body filters 0]"},
		{"bad operator", searchPath, `{` + exampleRange + `,"filters":[{"type":"text","name":"input","operator":"gt","value":"x"}]}`, "admin", 422, "enum", "[body filters 0 text operator]"},
		{"no column", searchPath, `{` + exampleRange + `,"filters":[{"type":"text","operator":"eq","value":"x"}]}`, "admin", 422, "missing", "[body filters 0 text name]"},
		{"column of other kind", searchPath, `{` + exampleRange + `,"filters":[{"type":"text","name":"status_code","operator":"eq","value":"x"}]}`, "admin", 422, "value_error", "[body filters 0 text name]"},
		{"between needs two", searchPath, `{` + exampleRange + `,"filters":[{"type":"number","name":"status_code","operator":"between","value":[1]}]}`, "admin", 422, "too_short", "[body filters 0 number value]"},
		{"unknown metric column", searchPath, `{` + exampleRange + `,"filters":[{"type":"number","column_id":"metrics/nope","operator":"gt","value":1}]}`, "admin", 422, "value_error", "[body filters 0 number name]"},
		{"unknown group_by", searchPath, `{` + exampleRange + `,"group_by":"nope"}`, "admin", 422, "value_error", "[body group_by]"},
		{"no traces", ingestPath, `{` + ls + `,"traces":[]}`, "admin", 422, "too_short", "[body traces]"},
		{"bad severity", ingestPath, `{` + ls + `,"traces":[{"metrics":{"x":{"code":1,"message":"m","severity":"bad"}}}]}`, "admin", 422, "enum", "[body traces 0 metrics x severity]"},
		{"span without type", ingestPath, `{` + ls + `,"traces":[{"spans":[{}]}]}`, "admin", 422, "missing", "[body traces 0 spans 0 type]"},
		{"read-only ingest", ingestPath, `{` + ls + `,"traces":[{}]}`, "readonly", 403, "", ""},
		{"unauthenticated", searchPath, `{` + exampleRange + `}`, "", 401, "", ""},
		{"other org", searchPath, `{` + exampleRange + `}`, "other", 404, "", ""},
		{"experiment id of a log stream", searchPath, `{"start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T01:00:00Z","experiment_id":"` + ExampleLogStreamID + `"}`, "admin", 404, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var resp string
			switch tc.who {
			case "admin":
				code, resp = h.do(&h.org.Admin, "POST", tc.path, tc.body)
			case "readonly":
				code, resp = h.do(&h.org.ReadOnly, "POST", tc.path, tc.body)
			case "other":
				code, resp = h.do(&h.other.Admin, "POST", tc.path, tc.body)
			default:
				code, resp = h.do(nil, "POST", tc.path, tc.body)
			}
			if code != tc.code {
				t.Fatalf("status %d, want %d: %s", code, tc.code, resp)
			}
			if tc.typ == "" {
				return
			}
			d := detail(t, resp)
			if len(d) == 0 || d[0]["type"] != tc.typ || fmt.Sprint(d[0]["loc"]) != tc.loc {
				t.Errorf("detail = %v, want %s at %s", d, tc.typ, tc.loc)
			}
		})
	}
}

func TestExperimentRun(t *testing.T) {
	h := newHarness(t, 0)
	const expID = "6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b99"
	e := store.Experiment{ID: expID, ProjectID: ExampleProjectID, OrgID: h.org.ID, Name: "exp", CreatedAt: testNow, UpdatedAt: testNow,
		MetricSettings: store.MetricSettings{Scorers: []store.ScorerConfig{{ID: "s", Name: ptr("grade"), RollUpMethod: ptr("max")}}}}
	if err := store.CreateExperiment(t.Context(), h.tbl, e); err != nil {
		t.Fatal(err)
	}
	code, resp := h.do(&h.org.Admin, "POST", ingestPath, `{"experiment_id":"`+expID+`","traces":[
		{"created_at":"2026-01-01T00:00:10Z","metrics":{"grade":3}},{"created_at":"2026-01-01T00:00:20Z","metrics":{"grade":7}}]}`)
	if code != http.StatusOK || !strings.Contains(resp, `"num_traces":2`) {
		t.Fatalf("ingest into experiment: %d %s", code, resp)
	}
	a := h.search(`{"start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T00:01:00Z","experiment_id":"` + expID + `"}`)
	if !near(a.AggregateMetrics["count"], 2) || !near(a.AggregateMetrics["grade"], 7) {
		t.Errorf("experiment search %v", a.AggregateMetrics)
	}
	if _, ok := a.AggregateMetrics["correctness"]; ok {
		t.Error("the log stream's scorers leaked into the experiment's metrics")
	}
	sum, _ := store.GetRunSummaries(t.Context(), h.tbl, []string{expID})
	if sum[expID].NumTraces != 2 || *sum[expID].Metrics["grade"].Max != fixed.FromInt(7) {
		t.Errorf("experiment summary %+v", sum[expID])
	}
	// An experiment named as a log stream, and a metrics testing id, are not found.
	for _, field := range []string{"log_stream_id", "metrics_testing_id"} {
		code, resp := h.do(&h.org.Admin, "POST", searchPath, `{"start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T00:01:00Z","`+field+`":"`+expID+`"}`)
		if code != http.StatusNotFound {
			t.Errorf("%s: %d %s", field, code, resp)
		}
	}
}

// A filter naming a column the catalog refuses echoes the column as sent, under name or its
// alias column_id.
func TestFilterColumnErrorEchoesTheColumn(t *testing.T) {
	h := newHarness(t, 0)
	for _, tc := range []struct{ filter, input string }{
		{`{"type":"text","name":"status_code","operator":"eq","value":"x"}`, "status_code"},
		{`{"type":"number","column_id":"metrics/nope","operator":"gt","value":1}`, "metrics/nope"},
	} {
		code, resp := h.do(&h.org.Admin, "POST", searchPath, `{`+exampleRange+`,"filters":[`+tc.filter+`]}`)
		if code != 422 {
			t.Fatalf("%s: %d %s", tc.filter, code, resp)
		}
		if d := detail(t, resp); len(d) != 1 || d[0]["input"] != tc.input {
			t.Errorf("%s: detail %v, want input %q", tc.filter, d, tc.input)
		}
	}
}
