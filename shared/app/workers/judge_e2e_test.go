package workers_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/provider/providertest"
)

// question finds the trace's number in a judge's prompt ("q<n>" is each trace's input).
var question = regexp.MustCompile(`q(\d+)\b`)

// TestJudgedEndToEnd: the local host's wiring with the real judge. A custom integration aimed
// at the stub provider, a decision scorer and the log stream's metric settings; 1,000
// complete traces ingested over HTTP are each judged once through the stub, with the
// integration's API key header, and their values show on the records and in the metrics
// search. The key never shows in an answer or a log line.
func TestJudgedEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: 1,000 traces judged through the stub provider")
	}
	const key = "canary-judge-key-5f1e2d"
	stub := providertest.New(t)
	stub.RequireHeader("X-Judge-Key", key)
	stub.Handle("judge-1", func(c providertest.Call) providertest.Reply {
		var n int
		for _, m := range c.Messages {
			if g := question.FindStringSubmatch(m.Content); g != nil {
				n, _ = strconv.Atoi(g[1])
			}
		}
		return providertest.Answer(fmt.Sprintf(`{"explanation":"trace %d","rating":%t}`, n, n%3 == 0))
	})

	h := newE2EHost(t)
	q, do := h.eval, h.do
	do("PUT", "/v2/integrations/custom", `{"endpoint":"`+stub.URL+`","models":["judge-1"],"default_model":"judge-1",`+
		`"authentication_type":"api_key","api_key_header":"X-Judge-Key","api_key_value":"`+key+`"}`, nil)
	var scorer, project, ls struct{ ID string }
	do("POST", "/v2/scorers", `{"name":"helpful","scorer_type":"llm","output_type":"boolean"}`, &scorer)
	do("POST", "/v2/scorers/"+scorer.ID+"/version/decision", `{"question":"Is the answer helpful?","model_name":"judge-1"}`, nil)
	do("POST", "/v2/projects", `{"name":"judged"}`, &project)
	do("POST", "/v2/projects/"+project.ID+"/log_streams", `{"name":"prod"}`, &ls)
	do("PATCH", "/v2/projects/"+project.ID+"/log_streams/"+ls.ID+"/metric_settings",
		`{"scorers":[{"id":"`+scorer.ID+`","name":"helpful","roll_up_method":"category_count"}]}`, nil)

	const n = 1000
	base := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	trues := 0
	for chunk := 0; chunk < n; chunk += 100 {
		var b strings.Builder
		b.WriteString(`{"log_stream_id":"` + ls.ID + `","traces":[`)
		for i := chunk; i < chunk+100; i++ {
			if i%3 == 0 {
				trues++
			}
			if i > chunk {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":"%s","created_at":%q,"name":"chat","input":"q%d","output":"a","is_complete":true}`,
				traceID(i), base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i)
		}
		b.WriteString(`]}`)
		do("POST", "/v2/projects/"+project.ID+"/traces", b.String(), nil)
	}
	h.drain()
	if got := len(stub.CallsFor("judge-1")); got != n {
		t.Errorf("the stub was asked %d times, want %d (one judge per trace)", got, n)
	}
	if dead := q.Dead(); len(dead) != 0 {
		t.Errorf("%d dead letters", len(dead))
	}

	var rec struct {
		MetricInfo map[string]map[string]any `json:"metric_info"`
	}
	do("GET", "/v2/projects/"+project.ID+"/traces/"+traceID(6), "", &rec)
	if mi := rec.MetricInfo["helpful"]; mi["status_type"] != "success" || mi["value"] != true || mi["explanation"] != "trace 6" {
		t.Errorf("trace 6's metric_info %v, want helpful true explained", rec.MetricInfo)
	}
	var search map[string]any
	do("POST", "/v2/projects/"+project.ID+"/metrics/search", fmt.Sprintf(`{"start_time":%q,"end_time":%q,"interval":60,"log_stream_id":%q}`,
		base.Format(time.RFC3339), base.Add(time.Hour).Format(time.RFC3339), ls.ID), &search)
	agg, _ := json.Marshal(search["aggregate_metrics"])
	if !strings.Contains(string(agg), fmt.Sprintf(`"true":%d`, trues)) || !strings.Contains(string(agg), fmt.Sprintf(`"false":%d`, n-trues)) {
		t.Errorf("metrics search's helpful counts, want %d true and %d false: %s", trues, n-trues, agg)
	}
	if strings.Contains(h.answers.String(), key) || strings.Contains(h.logs.String(), key) {
		t.Error("the integration's key shows in an answer or a log line")
	}
}

func traceID(i int) string { return fmt.Sprintf("7e1d9a2c-0000-4000-8000-%012d", i) }
