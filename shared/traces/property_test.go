package traces

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The property test: random traces, random queries (filters of every kind, intervals,
// group_by columns); the roll-up path, the scan path and a naive reference aggregation
// written here must agree.

var (
	propStart  = time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	propModels = []string{"gpt-4o", "GPT-4o", "claude", "llama"}
	propNames  = []string{"chat", "search", "Chat"}
	propTags   = []string{"a", "b", "B", "c"}
	propTones  = []string{"calm", "angry", "neutral"}
)

var propScorers = []store.ScorerConfig{
	{ID: "p1", Name: ptr("correctness"), RollUpMethod: ptr("average")},
	{ID: "p2", Name: ptr("score_sum"), RollUpMethod: ptr("sum")},
	{ID: "p3", Name: ptr("score_max"), RollUpMethod: ptr("max")},
	{ID: "p4", Name: ptr("score_min"), RollUpMethod: ptr("min")},
	{ID: "p5", Name: ptr("tone"), RollUpMethod: ptr("category_count")},
	{ID: "p6", Name: ptr("toxic"), RollUpMethod: ptr("percentage_true")},
	{ID: "p7", Name: ptr("toxic"), RollUpMethod: ptr("sum")}, // a second scorer of one metric adds nothing
	{ID: "p8", Name: ptr("flag"), RollUpMethod: ptr("percentage_false")},
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

// milli is a random value with three decimals, so that fixed-point sums are exact.
func milli(r *rand.Rand, max int) float64 { return float64(r.Intn(max*1000)) / 1000 }

func randomTrace(r *rand.Rand, i int, sessions []string) store.Trace {
	tr := store.Trace{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Type: "trace", IsComplete: r.Intn(4) > 0,
		CreatedAt:     propStart.Add(time.Duration(r.Int63n(int64(3 * time.Hour)))),
		Name:          pick(r, propNames),
		RecordContent: randomContent(r)}
	if r.Intn(5) > 0 {
		tr.Model = ptr(pick(r, propModels))
	}
	if r.Intn(3) > 0 {
		tr.Provider = ptr(pick(r, []string{"openai", "anthropic"}))
	}
	if r.Intn(4) > 0 {
		tr.StatusCode = ptr(int64(pick(r, []int{200, 400, 500})))
	}
	if r.Intn(2) > 0 {
		tr.Temperature = ptr(milli(r, 2))
	}
	if r.Intn(3) > 0 {
		tr.SessionID = ptr(pick(r, sessions))
	}
	if r.Intn(3) == 0 {
		u := tr.CreatedAt.Add(time.Duration(r.Intn(600)) * time.Second)
		tr.UpdatedAt = &u
	}
	for range r.Intn(3) {
		tr.Tags = append(tr.Tags, pick(r, propTags))
	}
	if r.Intn(6) > 0 {
		tr.LatencyMs = ptr(milli(r, 1000))
	}
	if r.Intn(6) > 0 {
		tr.TotalTokens = ptr(int64(r.Intn(5000)))
	}
	if r.Intn(6) > 0 {
		tr.TotalCost = ptr(milli(r, 3))
	}
	if r.Intn(3) == 0 {
		tr.Spans = []store.Span{{ID: fmt.Sprintf("10000000-0000-4000-8000-%012d", i), Type: "llm", TraceID: tr.ID, ParentID: tr.ID, Depth: 1}}
		tr.NumSpans = 1
		tr.HasChildren = true
	}
	tr.Metrics = map[string]store.MetricValue{}
	num := func(name string) {
		if r.Intn(5) > 0 {
			tr.Metrics[name] = store.MetricValue{Number: ptr(milli(r, 10) - 5)}
		}
	}
	for _, n := range []string{"correctness", "score_sum", "score_max", "score_min"} {
		num(n)
	}
	if r.Intn(8) == 0 {
		code := int64(pick(r, []int{1001, 1002}))
		tr.Metrics["correctness"] = store.MetricValue{Error: &store.ScorerError{Code: code, Message: "m" + strconv.FormatInt(code, 10), Severity: "low"}}
	}
	if r.Intn(4) > 0 {
		tr.Metrics["tone"] = store.MetricValue{Category: ptr(pick(r, propTones))}
	}
	for _, n := range []string{"toxic", "flag"} {
		if r.Intn(4) > 0 {
			tr.Metrics[n] = store.MetricValue{Bool: ptr(r.Intn(2) == 0)}
		}
	}
	return tr
}

// randomContent is a trace's input and output in the shapes the scan's raw-content test must
// read as the decoded content's text: plain strings, strings whose escapes hide or split the
// text, message lists (whose text is their JSON), and no content at all.
func randomContent(r *rand.Rand) store.RecordContent {
	in := "input " + strconv.Itoa(r.Intn(5))
	var c store.RecordContent
	switch r.Intn(6) {
	case 0:
		c.Input = store.StringContent(`say "` + in + `"`)
	case 1:
		c.Input = store.Content(`"` + strings.Replace(in, "p", `\u0070`, 1) + `"`)
	case 2:
		c.Input = store.Content(`[{"role":"user","content":"` + in + `"}]`)
	case 3:
	default:
		c.Input = store.StringContent(in)
	}
	switch r.Intn(3) {
	case 0:
		c.Output = store.StringContent("\"out\"\n")
	case 1:
		c.Output = store.StringContent("out")
	}
	return c
}

// propRun stores a project and log stream with propScorers and ingests n random traces in
// batches; it returns the run and the traces as stored.
func propRun(t testing.TB, tbl store.Table, r *rand.Rand, n int) (store.Run, []store.Trace) {
	ctx := t.Context()
	orgID, pid, lsid := "org-prop", "20000000-0000-4000-8000-000000000001", "20000000-0000-4000-8000-000000000002"
	if err := store.CreateProject(ctx, tbl, store.Project{ID: pid, OrgID: orgID, Name: "p"}); err != nil {
		t.Fatal(err)
	}
	ls := store.LogStream{ID: lsid, ProjectID: pid, OrgID: orgID, Name: "ls"}
	if err := store.CreateLogStream(ctx, tbl, ls); err != nil {
		t.Fatal(err)
	}
	sc := propScorers
	if _, err := store.SetMetricSettings(ctx, tbl, ls, &sc, nil, propStart); err != nil {
		t.Fatal(err)
	}
	run, err := store.GetRun(ctx, tbl, orgID, pid, lsid)
	if err != nil {
		t.Fatal(err)
	}
	sessions := []string{"30000000-0000-4000-8000-000000000001", "30000000-0000-4000-8000-000000000002"}
	all := make([]store.Trace, n)
	for i := range all {
		all[i] = randomTrace(r, i, sessions)
	}
	for i := 0; i < n; i += 100 {
		batch := slices.Clone(all[i:min(i+100, n)])
		if _, err := records.Ingest(ctx, tbl, run, batch, propStart); err != nil {
			t.Fatal(err)
		}
		copy(all[i:], batch)
	}
	return run, all
}

// randomFilter is a filter of a random kind, as JSON, on a column of that kind.
func randomFilter(r *rand.Rand, traces []store.Trace, rollupOnly bool) map[string]any {
	strs := func(pool []string) any {
		if r.Intn(2) == 0 {
			return pick(r, pool)
		}
		return []any{pick(r, pool), pick(r, pool)}
	}
	if rollupOnly {
		switch r.Intn(3) {
		case 0:
			return map[string]any{"type": "text", "name": pick(r, []string{"model", "name", "provider", "type"}),
				"operator": pick(r, operators["text"]), "value": strs(append(propModels, append(propNames, "openai", "chat", "trace", "4o")...)),
				"case_sensitive": r.Intn(2) == 0}
		default:
			op := pick(r, operators["number"])
			var v any = float64(pick(r, []int{200, 400, 450, 500}))
			if op == "between" {
				v = []any{200.0, float64(pick(r, []int{200, 400, 500}))}
			}
			return map[string]any{"type": "number", "column_id": "status_code", "operator": op, "value": v}
		}
	}
	tr := pick(r, traces)
	switch pick(r, filterKinds) {
	case "text":
		return map[string]any{"type": "text", "name": pick(r, []string{"input", "output", "name", "model", "external_id"}),
			"operator": pick(r, operators["text"]), "value": strs([]string{"input 1", "INPUT 2", "put", "out", "chat", "gpt-4o"}),
			"case_sensitive": r.Intn(2) == 0}
	case "id":
		col := pick(r, []string{"id", "session_id", "run_id", "trace_id"})
		pool := []string{tr.ID, strings.ToUpper(tr.ID), "30000000-0000-4000-8000-000000000001", tr.RunID}
		op := pick(r, operators["id"])
		if op == "contains" {
			pool = []string{"0001", "4000", "zz"}
		}
		return map[string]any{"type": "id", "name": col, "operator": op, "value": strs(pool)}
	case "number":
		col := pick(r, []string{"status_code", "temperature", "metrics/correctness", "metrics/score_sum", "metrics/tone"})
		op := pick(r, operators["number"])
		var v any = milli(r, 4) - 1
		if op == "between" {
			lo := milli(r, 4) - 2
			v = []any{lo, lo + milli(r, 3)}
		}
		return map[string]any{"type": "number", "name": col, "operator": op, "value": v}
	case "boolean":
		return map[string]any{"type": "boolean", "name": pick(r, []string{"is_complete", "has_children"}),
			"operator": pick(r, operators["boolean"]), "value": r.Intn(2) == 0}
	case "date":
		when := propStart.Add(time.Duration(r.Int63n(int64(3 * time.Hour))))
		if r.Intn(4) == 0 {
			when = tr.CreatedAt
		}
		return map[string]any{"type": "date", "name": pick(r, []string{"created_at", "updated_at"}),
			"operator": pick(r, operators["date"]), "value": when.Format(time.RFC3339Nano)}
	case "collection":
		return map[string]any{"type": "collection", "name": "tags", "operator": pick(r, operators["collection"]),
			"value": strs(propTags), "case_sensitive": r.Intn(2) == 0}
	}
	return map[string]any{"type": "fully_annotated", "user_ids": []any{"40000000-0000-4000-8000-000000000001"}}
}

// randomQuery is a search body over run.
func randomQuery(r *rand.Rand, run store.Run, traces []store.Trace) map[string]any {
	start := propStart.Add(time.Duration(r.Intn(120)-10) * time.Minute)
	end := start.Add(time.Duration(1+r.Intn(150)) * time.Minute)
	if r.Intn(4) == 0 { // not whole minutes: only a scan can answer
		start = start.Add(time.Duration(r.Intn(60000)) * time.Millisecond)
	}
	interval := 1 + r.Intn(30)
	if r.Intn(4) == 0 { // whole hours in buckets of whole hours: hourly roll-ups can answer
		start = propStart.Add(time.Duration(r.Intn(4)-1) * time.Hour)
		end = start.Add(time.Duration(1+r.Intn(4)) * time.Hour)
		interval = 60 * (1 + r.Intn(2))
	}
	q := map[string]any{"start_time": start.Format(time.RFC3339Nano), "end_time": end.Format(time.RFC3339Nano),
		"log_stream_id": run.ID, "interval": float64(interval)}
	groups := []string{"", "", "model", "provider", "name", "type", "status_code", "tags", "input", "metrics/correctness", "session_id", "is_complete"}
	g := pick(r, groups)
	if g != "" {
		q["group_by"] = g
	}
	var filters []any
	switch r.Intn(4) {
	case 0: // none
	case 1: // one filter the roll-ups can answer, grouped by its column or not at all
		f := randomFilter(r, traces, true)
		filters = append(filters, f)
		if g != "" {
			q["group_by"] = f["name"]
			if f["name"] == nil {
				q["group_by"] = f["column_id"]
			}
		}
	default:
		for range 1 + r.Intn(2) {
			filters = append(filters, randomFilter(r, traces, false))
		}
	}
	if filters != nil {
		q["filters"] = filters
	}
	return q
}

func TestPropertyPathsAgreeWithReference(t *testing.T) {
	r := rand.New(rand.NewSource(20260201))
	tbl := testenv.Embedded(t)
	t0 := time.Now()
	run, traces := propRun(t, tbl, r, 400)
	t.Logf("ingested in %v", time.Since(t0))
	cases := 300
	if testing.Short() {
		cases = 150
	}
	usedRollups, usedHours := 0, 0
	for c := range cases {
		body := randomQuery(r, run, traces)
		raw, _ := json.Marshal(body)
		q := parseQuery(t, run, raw)
		want := reference(run, traces, q, body)
		for _, rollups := range []bool{true, false} {
			got, err := searchWith(t.Context(), tbl, run, q, DefaultScanBound, rollups)
			if err != nil {
				t.Fatalf("case %d %s: %v", c, raw, err)
			}
			if _, level, ok := rollupPlan(q); ok && rollups {
				usedRollups++
				if level == store.RollupHour {
					usedHours++
				}
			}
			gb, _ := json.Marshal(got)
			var gotAny any
			_ = json.Unmarshal(gb, &gotAny)
			if diff := compare("", gotAny, want); diff != "" {
				t.Fatalf("case %d (roll-ups allowed %v) %s:\n%s", c, rollups, raw, diff)
			}
		}
		// The scan cut into as many parallel time slices as it takes for a large run.
		a := newAggregator(q.start, q.end, q.interval, metricsFor(run))
		var gcol columns.Column
		if q.groupBy != "" {
			gcol, _ = columns.ForSettings(run.MetricSettings).Lookup(q.groupBy)
		}
		if err := fromScan(t.Context(), tbl, run.ID, q, gcol, a, 1<<40, DefaultScanBound); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(a.response(q.groupBy != ""))
		var gotAny any
		_ = json.Unmarshal(gb, &gotAny)
		if diff := compare("", gotAny, want); diff != "" {
			t.Fatalf("case %d (sliced scan) %s:\n%s", c, raw, diff)
		}
	}
	if usedRollups < cases/5 || usedHours < cases/20 {
		t.Errorf("only %d of %d cases used the roll-ups, %d the hourly ones", usedRollups, cases, usedHours)
	}
}

// parseQuery validates a body as the handler does.
func parseQuery(t *testing.T, run store.Run, raw []byte) searchRequest {
	t.Helper()
	body, jerr := validate.ParseJSON(raw)
	if jerr != nil {
		t.Fatal(jerr)
	}
	errs := validate.New()
	q := readSearch(errs, body, true)
	if err := errs.Err(); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if err := checkColumns(run, q, body); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return q
}

// compare reports the first difference between got and want, numbers within 1e-6.
func compare(path string, got, want any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: got %v, want %v", path, got, want)
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if d := compare(path+"."+k, g[k], w[k]); d != "" {
				return d
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: got %v, want %v", path, got, want)
		}
		for i := range w {
			if d := compare(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); d != "" {
				return d
			}
		}
	case float64:
		g, ok := got.(float64)
		if !ok || math.Abs(g-w) > 1e-6*math.Max(1, math.Abs(w)) {
			return fmt.Sprintf("%s: got %v, want %v", path, got, want)
		}
	default:
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Sprintf("%s: got %v, want %v", path, got, want)
		}
	}
	return ""
}
