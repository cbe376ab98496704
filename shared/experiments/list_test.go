package experiments

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/store"
)

// summary folds values of metrics into one trace's worth of summary for run.
func addSummary(t *testing.T, tbl store.Table, run string, traces int64, metrics map[string][]float64) {
	t.Helper()
	d := store.RunSummary{NumTraces: traces, NumSpans: 3 * traces, NumSessions: 1, Metrics: map[string]store.MetricStats{}}
	for name, vs := range metrics {
		var st store.MetricStats
		for _, v := range vs {
			st.Observe(fx(v))
		}
		d.Metrics[name] = st
	}
	if err := store.AddToRunSummary(t.Context(), tbl, run, d, testNow); err != nil {
		t.Fatal(err)
	}
}

func TestListNewestFirstWithCounts(t *testing.T) {
	h := newHarness(t, nil)
	pid := h.project(h.org)
	first := h.create(&h.org.User, pid, `{"name":"first"}`)
	h.clock.Advance(time.Minute)
	second := h.create(&h.org.Admin, pid, `{"name":"second"}`)
	h.create(&h.other.User, h.project(h.other), `{"name":"elsewhere"}`)
	addSummary(t, h.tbl, first, 2, nil)

	got := h.list(&h.org.ReadOnly, pid, "")
	if len(got) != 2 || got[0]["id"] != second || got[1]["id"] != first {
		t.Fatalf("order: %v", got)
	}
	for _, e := range got { // counts are null unless asked for
		subset(t, e, `{"num_spans":null,"num_traces":null,"num_sessions":null}`)
	}
	subset(t, got[0], fmt.Sprintf(`{"created_by_user":{"id":%q,"email":%q,"first_name":"Test","last_name":"admin"},"created_at":"2026-05-06T07:09:09Z"}`,
		h.org.Admin.UserID, h.org.Admin.Email))
	subset(t, got[1], `{"status":{"log_generation":{"progress_percent":100}}}`)
	subset(t, got[0], `{"status":{"log_generation":{"progress_percent":0}}}`)

	counted := h.list(&h.org.User, pid, "?include_counts=true")
	subset(t, counted[1], `{"num_traces":2,"num_spans":6,"num_sessions":1}`)
	subset(t, counted[0], `{"num_traces":0,"num_spans":0,"num_sessions":0}`)

	code, resp := h.do(&h.org.User, "GET", experimentsPath(pid)+"?include_counts=maybe", "")
	if code != 422 {
		t.Fatalf("include_counts=maybe: %d %s", code, resp)
	}
	apitest.SameJSON(t, resp, `{"detail":[{"type":"bool_parsing","loc":["query","include_counts"],"msg":"Input should be a valid boolean, unable to interpret input","input":"maybe"}]}`)
	for _, who := range []string{"other org", "unknown"} {
		p := pid
		u := &h.other.User
		if who == "unknown" {
			p, u = unknownID, &h.org.User
		}
		code, resp := h.do(u, "GET", experimentsPath(p), "")
		if code != 404 {
			t.Fatalf("%s: %d %s", who, code, resp)
		}
		apitest.SameJSON(t, resp, `{"detail":"Project not found"}`)
	}
	if got := h.list(&h.org.User, h.project(h.org), ""); len(got) != 0 {
		t.Fatalf("empty project: %v", got)
	}
}

func TestListMetricsAndRank(t *testing.T) {
	h := newHarness(t, nil)
	pid := h.project(h.org)
	a := h.create(&h.org.User, pid, `{"name":"a"}`)
	b := h.create(&h.org.User, pid, `{"name":"b"}`)
	c := h.create(&h.org.User, pid, `{"name":"c"}`)
	none := h.create(&h.org.User, pid, `{"name":"no scorer metric"}`)
	addSummary(t, h.tbl, a, 2, map[string][]float64{"correctness": {1, 0.8}, "tone": {0.5}, "latency_ms": {100, 300}})
	addSummary(t, h.tbl, b, 1, map[string][]float64{"correctness": {0.5}, "tone": {1}})
	addSummary(t, h.tbl, c, 1, map[string][]float64{"correctness": {0.4}})
	addSummary(t, h.tbl, none, 1, map[string][]float64{"latency_ms": {50}})
	cat := store.MetricStats{}
	cat.ObserveCategory("polite")
	if err := store.AddToRunSummary(t.Context(), h.tbl, c, store.RunSummary{Metrics: map[string]store.MetricStats{"style": cat}}, testNow); err != nil {
		t.Fatal(err)
	}
	byID := map[string]map[string]any{}
	for _, e := range h.list(&h.org.User, pid, "") {
		byID[e["id"].(string)] = e
	}
	// a: correctness avg 0.9 -> 1, tone 0.5 -> 0: score 0.5. b: correctness 0.5 -> 0.2, tone 1 -> 1:
	// score 0.6. c: correctness 0.4 -> 0: score 0 (its categorical metric does not rank).
	subset(t, byID[a], `{"aggregate_metrics":{"correctness":0.9,"tone":0.5,"latency_ms":200},
		"structured_aggregate_metrics":{"correctness":{"average":0.9,"min":0.8,"max":1,"sum":1.8,"count":2},
			"tone":{"average":0.5,"min":0.5,"max":0.5,"sum":0.5,"count":1},
			"latency_ms":{"average":200,"min":100,"max":300,"sum":400,"count":2}},
		"ranking_score":0.5,"rank":2,"winner":false}`)
	subset(t, byID[c], `{"structured_aggregate_metrics":{"correctness":{"average":0.4,"min":0.4,"max":0.4,"sum":0.4,"count":1},
		"style":{"average":null,"min":null,"max":null,"sum":null,"count":1}},"aggregate_metrics":{"correctness":0.4},
		"ranking_score":0,"rank":3,"winner":false}`)
	subset(t, byID[none], `{"ranking_score":null,"rank":null,"winner":null,"aggregate_metrics":{"latency_ms":50}}`)
	if s := byID[b]["ranking_score"].(float64); s < 0.5999 || s > 0.6001 || byID[b]["rank"] != 1.0 || byID[b]["winner"] != true {
		t.Fatalf("b: %v %v %v", byID[b]["ranking_score"], byID[b]["rank"], byID[b]["winner"])
	}
}

func TestRankRule(t *testing.T) {
	sum := func(vs map[string]float64) store.RunSummary {
		s := store.RunSummary{Metrics: map[string]store.MetricStats{}}
		for n, v := range vs {
			var st store.MetricStats
			st.Observe(fx(v))
			s.Metrics[n] = st
		}
		return s
	}
	for _, tc := range []struct {
		name    string
		sums    map[string]store.RunSummary
		rank    map[string]int64 // 0: not ranked
		winners []string
	}{
		{"single ranked experiment is no winner", map[string]store.RunSummary{"x": sum(map[string]float64{"m": 0.3}), "y": sum(nil)},
			map[string]int64{"x": 1, "y": 0}, nil},
		{"ties share the rank and both win", map[string]store.RunSummary{"x": sum(map[string]float64{"m": 0.3}), "y": sum(map[string]float64{"m": 0.3}), "z": sum(map[string]float64{"m": 0.1})},
			map[string]int64{"x": 1, "y": 1, "z": 3}, []string{"x", "y"}},
		{"system metrics do not rank", map[string]store.RunSummary{"x": sum(map[string]float64{"total_cost": 3}), "y": sum(map[string]float64{"latency_ms": 1})},
			map[string]int64{"x": 0, "y": 0}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids := make([]string, 0, len(tc.sums))
			for id := range tc.sums {
				ids = append(ids, id)
			}
			got := rankExperiments(ids, tc.sums)
			for id, want := range tc.rank {
				r := got[id]
				if want == 0 {
					if r.rank != nil || r.score != nil || r.winner != nil {
						t.Errorf("%s ranked: %+v", id, r)
					}
					continue
				}
				if r.rank == nil || *r.rank != want {
					t.Errorf("%s: rank %v, want %d", id, r.rank, want)
				}
				isWinner := false
				for _, w := range tc.winners {
					isWinner = isWinner || w == id
				}
				if r.winner == nil || *r.winner != isWinner {
					t.Errorf("%s: winner %v, want %v", id, r.winner, isWinner)
				}
			}
		})
	}
}

// TestListCost: listing 1,000 experiments costs one Query of the project partition (the
// experiments are small: well under one 1 MB page), one Get of the project made at the
// same time, then the creators and the summaries at once: one batch read each, which the
// adapter splits at 100 keys (1 + 10 BatchGetItem requests). The handler makes them in two
// waves, but how many of them overlap on the embedded store (which answers in microseconds)
// depends on scheduling, so the sequential depth is measured by the round-trip budget of
// events/experiments/list.json, which delays every call; this test counts calls.
func TestListCost(t *testing.T) {
	h := newHarness(t, nil)
	base := h.tbl
	pid := h.project(h.org)
	ctx := t.Context()
	for i := range 1000 {
		e := store.Experiment{ID: uuid.NewString(), ProjectID: pid, OrgID: h.org.ID, Name: fmt.Sprintf("exp-%04d", i),
			TaskType: DefaultTaskType, CreatedBy: h.org.User.UserID, CreatedAt: testNow.Add(time.Duration(i) * time.Second), UpdatedAt: testNow}
		if err := store.CreateExperiment(ctx, base, e); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			addSummary(t, base, e.ID, 1, map[string][]float64{"correctness": {float64(i) / 1000}})
		}
	}
	counted := h.counting()
	got := h.list(&h.org.User, pid, "?include_counts=true")
	c := counted.Snapshot()
	if len(got) != 1000 || got[0]["name"] != "exp-0999" || got[9]["name"] != "exp-0990" || got[9]["winner"] != true {
		t.Fatalf("listed %d, first %v", len(got), got[0]["name"])
	}
	if c.Calls["Query"] != 1 || c.Calls["BatchGet"] != 11 || c.Calls["Get"] != 1 || c.Total != 13 {
		t.Fatalf("cost: %s", c)
	}
	t.Logf("listing 1,000 experiments: %s", c)
}

// fx is f as a fixed-point value.
func fx(f float64) fixed.Value {
	v, err := fixed.FromFloat(f)
	if err != nil {
		panic(err)
	}
	return v
}
