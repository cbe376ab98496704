package evaluate_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/app/local"
	"github.com/evalobs/evalapi/shared/app/workers"
	"github.com/evalobs/evalapi/shared/evaluate"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

// judge answers true for records whose id digest is even.
type judge struct{ calls atomic.Int64 }

func (j *judge) Judge(_ context.Context, t evaluate.Task) evaluate.Verdict {
	j.calls.Add(1)
	b := truth(t.RecordID)
	return evaluate.Verdict{Value: evaluate.Value{Bool: &b}, Explanation: "fake judge"}
}

func truth(id string) bool { s := sha256.Sum256([]byte(id)); return s[0]%2 == 0 }

// localHost sends requests to the in-process router as the admin.
type localHost struct {
	t   *testing.T
	rt  http.Handler
	key string
}

func (h *localHost) do(method, path, body string, into any) {
	h.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Service-API-Key", h.key)
	rec := httptest.NewRecorder()
	h.rt.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		h.t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
	}
	if into != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), into); err != nil {
			h.t.Fatalf("%s %s: %v: %s", method, path, err, rec.Body.String())
		}
	}
}

// TestEndToEndLocalHost: a scorer in a log stream's settings, 1,000 complete traces
// ingested over HTTP → each judged once, its value on the record (read by id), in the
// metrics search and in the catalog's columns.
func TestEndToEndLocalHost(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: 1,000 traces through the local pipeline")
	}
	ctx := t.Context()
	cfg, err := app.ReadConfig(app.Local, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var s *local.Stream
	onCommit := func(c []embedded.Change) {
		mu.Lock()
		defer mu.Unlock()
		if s != nil {
			s.OnCommit(c)
		}
	}
	d, closeDeps, err := local.Open(ctx, cfg, slog.New(slog.DiscardHandler), local.Options{DataDir: t.TempDir(), OnCommit: onCommit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = closeDeps() })
	t.Cleanup(d.Auth.Wait)
	admin := apptest.Admin(t, d)
	j := &judge{}
	ec := workers.EvalConfig{QuietPeriod: time.Minute, MaxReceiveCount: 5}
	q := local.Evaluation(d, j, ec)
	mu.Lock()
	s = local.NewStream(workers.Stream(d, q, ec), d.Log)
	mu.Unlock()
	t.Cleanup(func() { s.Close(); q.Close() })
	var regs []app.Register
	for _, g := range groups.All() {
		regs = append(regs, g.Register)
	}
	h := &localHost{t: t, rt: app.NewRouter(d, regs...), key: admin.APIKey.RevealString()}

	var scorer, project, ls struct{ ID string }
	h.do("POST", "/v2/scorers", `{"name":"helpful","scorer_type":"llm","output_type":"boolean"}`, &scorer)
	h.do("POST", "/v2/projects", `{"name":"p"}`, &project)
	h.do("POST", "/v2/projects/"+project.ID+"/log_streams", `{"name":"prod"}`, &ls)
	h.do("PATCH", "/v2/projects/"+project.ID+"/log_streams/"+ls.ID+"/metric_settings",
		`{"scorers":[{"id":"`+scorer.ID+`","name":"helpful","roll_up_method":"category_count"}]}`, nil)

	const n = 1000
	base := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	ids := make([]string, n)
	trues := 0
	for chunk := 0; chunk < n; chunk += 100 {
		var b strings.Builder
		b.WriteString(`{"log_stream_id":"` + ls.ID + `","traces":[`)
		for i := chunk; i < chunk+100; i++ {
			ids[i] = fmt.Sprintf("5d9b8a7c-0000-4000-8000-%012d", i)
			if truth(ids[i]) {
				trues++
			}
			if i > chunk {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":%q,"created_at":%q,"name":"chat","input":"q%d","output":"a","is_complete":true}`,
				ids[i], base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i)
		}
		b.WriteString(`]}`)
		h.do("POST", "/v2/projects/"+project.ID+"/traces", b.String(), nil)
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	s.Wait()
	if err := q.Wait(wctx); err != nil {
		t.Fatalf("queue not drained: %v", err)
	}
	s.Wait()
	if got := j.calls.Load(); got != n {
		t.Errorf("judge called %d times, want %d", got, n)
	}
	if dead := q.Dead(); len(dead) != 0 {
		t.Errorf("%d dead letters", len(dead))
	}

	var rec struct {
		MetricInfo map[string]map[string]any `json:"metric_info"`
	}
	h.do("GET", "/v2/projects/"+project.ID+"/traces/"+ids[7], "", &rec)
	if mi := rec.MetricInfo["helpful"]; mi["status_type"] != "success" || mi["value"] != truth(ids[7]) || mi["explanation"] != "fake judge" {
		t.Errorf("metric_info %v", rec.MetricInfo)
	}

	var search map[string]any
	h.do("POST", "/v2/projects/"+project.ID+"/metrics/search", fmt.Sprintf(`{"start_time":%q,"end_time":%q,"interval":60,"log_stream_id":%q}`,
		base.Format(time.RFC3339), base.Add(time.Hour).Format(time.RFC3339), ls.ID), &search)
	agg, _ := json.Marshal(search["aggregate_metrics"])
	if !strings.Contains(string(agg), "helpful") {
		t.Fatalf("metrics search has no helpful: %s", agg)
	}
	counts := categoryCounts(search["aggregate_metrics"], "helpful")
	if counts["true"]+counts["false"] != n || counts["true"] != float64(trues) {
		t.Errorf("metrics search counts %v, want %d true of %d (%s)", counts, trues, n, agg)
	}

	// An evaluate job over the same range and scorer: every pair was judged, so it judges
	// nothing again, counts them all done, and the same request answers the same job.
	evalPath := "/v2/projects/" + project.ID + "/log_streams/" + ls.ID + "/evaluate"
	evalBody := fmt.Sprintf(`{"start_time":%q,"end_time":%q,"scorer_ids":[%q]}`,
		base.Format(time.RFC3339), base.Add(5*time.Minute).Format(time.RFC3339), scorer.ID)
	const inRange = 300 // traces are a second apart
	var job, again, progress struct {
		ID         string `json:"id"`
		Status     string `json:"status"`
		Scanned    int64  `json:"traces_scanned"`
		Dispatched int64  `json:"judgments_dispatched"`
		Done       int64  `json:"judgments_done"`
	}
	h.do("POST", evalPath, evalBody, &job)
	for range 50 {
		s.Wait()
		if err := q.Wait(wctx); err != nil {
			t.Fatal(err)
		}
		h.do("GET", evalPath+"/"+job.ID, "", &progress)
		if progress.Status == "completed" {
			break
		}
	}
	if progress.Status != "completed" || progress.Scanned != inRange || progress.Dispatched != inRange || progress.Done != inRange {
		t.Errorf("job progress %+v, want completed with %d traces, judgments dispatched and done", progress, inRange)
	}
	h.do("POST", evalPath, evalBody, &again)
	if again.ID != job.ID {
		t.Errorf("the same request made job %s, then %s", job.ID, again.ID)
	}
	if got := j.calls.Load(); got != n {
		t.Errorf("judge called %d times after the job, want %d (nothing judged twice)", got, n)
	}

	var cols struct {
		Columns []map[string]any `json:"columns"`
	}
	h.do("POST", "/v2/projects/"+project.ID+"/traces/available_columns", `{"log_stream_id":"`+ls.ID+`"}`, &cols)
	found := false
	for _, c := range cols.Columns {
		found = found || c["id"] == "metrics/helpful"
	}
	if !found {
		t.Errorf("catalog has no metrics/helpful column")
	}
}

// categoryCounts finds the per-category counts of metric in a metrics search's aggregates,
// whatever their nesting: the first object under a key naming the metric whose values are
// numbers keyed "true"/"false".
func categoryCounts(v any, metric string) map[string]float64 {
	var walk func(v any, under bool) map[string]float64
	walk = func(v any, under bool) map[string]float64 {
		switch x := v.(type) {
		case map[string]any:
			if under {
				if t, ok := x["true"].(float64); ok {
					f, _ := x["false"].(float64)
					return map[string]float64{"true": t, "false": f}
				}
			}
			for k, e := range x {
				if r := walk(e, under || strings.Contains(k, metric)); r != nil {
					return r
				}
			}
		case []any:
			for _, e := range x {
				if r := walk(e, under); r != nil {
					return r
				}
			}
		}
		return nil
	}
	return walk(v, false)
}
