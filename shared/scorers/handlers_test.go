package scorers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

const unknownID = "0e4b5d7c-1f2a-4b3c-9d8e-7f6a5b4c3d2e"

func decisionPath(id string) string { return "/v2/scorers/" + id + "/version/decision" }

func TestUnauthenticated(t *testing.T) {
	h := newHarness(t, nil)
	for _, r := range []struct{ path, body string }{
		{"/v2/scorers", `{"name":"x","scorer_type":"llm"}`},
		{decisionPath(unknownID), `{"question":"q"}`},
		{decisionPath("not-a-uuid"), `{}`}, // authentication comes before validation
	} {
		code, body := h.do(nil, "POST", r.path, r.body)
		if code != http.StatusUnauthorized {
			t.Fatalf("%s: %d %s, want 401", r.path, code, body)
		}
		apitest.SameJSON(t, body, `{"detail":"Not authenticated"}`)
	}
}

func TestCreateScorer(t *testing.T) {
	h := newHarness(t, nil)
	body := `{"name":"politeness","scorer_type":"llm","output_type":"categorical","input_type":"basic",
		"scoreable_node_types":["llm"],"defaults":{"model_name":"judge","num_judges":3,"cot_enabled":true},"tags":["a"]}`
	code, resp := h.do(&h.org.User, "POST", "/v2/scorers", body)
	var s struct{ ID string }
	if err := json.Unmarshal([]byte(resp), &s); code != 200 || err != nil {
		t.Fatalf("create: %d %s", code, resp)
	}
	apitest.SameJSON(t, resp, fmt.Sprintf(`{"id":%q,"permissions":[],"name":"politeness","scorer_type":"llm","description":"","tags":["a"],
		"defaults":{"model_name":"judge","num_judges":3,"cot_enabled":true},"latest_version":null,"model_type":"llm",
		"default_version_id":null,"default_version":null,"output_type":"categorical","input_type":"basic",
		"scoreable_node_types":["llm"],"label":"politeness","included_fields":[],"is_global":true,"scope_projects":[],
		"metric_color_picker_config":null,"color_threshold_config":null,"version_count":0,
		"created_by":%q,"created_at":"2026-05-06T07:08:09Z","updated_at":"2026-05-06T07:08:09Z"}`,
		s.ID, h.org.User.UserID))
	for _, tc := range []struct {
		name, body string
		who        *authtest.User
		status     int
		want       string
	}{
		{"same name", `{"name":"politeness","scorer_type":"code"}`, &h.org.User, 422,
			`{"detail":[{"type":"value_error","loc":["body","name"],"msg":"Value error, a scorer named 'politeness' already exists","input":"politeness","ctx":{"error":{}}}]}`},
		{"same name, other org", `{"name":"politeness","scorer_type":"llm"}`, &h.other.User, 200, ""},
		{"a name that is a label, in other case", `{"name":"Politeness","scorer_type":"llm"}`, &h.org.User, 422,
			`{"detail":[{"type":"value_error","loc":["body","label"],"msg":"Value error, a scorer labelled 'Politeness' already exists (labels are compared ignoring case)","input":"Politeness","ctx":{"error":{}}}]}`},
		{"a label taken, in other case", `{"name":"kind","label":"POLITENESS","scorer_type":"llm"}`, &h.org.User, 422,
			`{"detail":[{"type":"value_error","loc":["body","label"],"msg":"Value error, a scorer labelled 'POLITENESS' already exists (labels are compared ignoring case)","input":"POLITENESS","ctx":{"error":{}}}]}`},
		{"label too long", `{"name":"kind","label":"` + strings.Repeat("l", 256) + `","scorer_type":"llm"}`, &h.org.User, 422,
			`{"detail":[{"type":"string_too_long","loc":["body","label"],"msg":"String should have at most 255 characters","input":"` + strings.Repeat("l", 256) + `","ctx":{"max_length":255}}]}`},
		{"label empty: the name stands for it", `{"name":"kind","label":"","scorer_type":"llm"}`, &h.org.User, 200, ""},
		{"that name as a label", `{"name":"other","label":"KIND","scorer_type":"llm"}`, &h.org.User, 422, ""},
		{"read-only", `{"name":"x","scorer_type":"llm"}`, &h.org.ReadOnly, 403, `{"detail":"Read-only users cannot perform this action"}`},
		{"name empty", `{"name":"","scorer_type":"llm"}`, &h.org.User, 422,
			`{"detail":[{"type":"string_too_short","loc":["body","name"],"msg":"String should have at least 1 character","input":"","ctx":{"min_length":1}}]}`},
		{"name too long", `{"name":"` + strings.Repeat("n", 256) + `","scorer_type":"llm"}`, &h.org.User, 422,
			`{"detail":[{"type":"string_too_long","loc":["body","name"],"msg":"String should have at most 255 characters","input":"` + strings.Repeat("n", 256) + `","ctx":{"max_length":255}}]}`},
		{"shape", `{"scorer_type":"decision","defaults":{"num_judges":0}}`, &h.org.User, 422,
			`{"detail":[{"type":"missing","loc":["body","name"],"msg":"Field required","input":{"scorer_type":"decision","defaults":{"num_judges":0}}},
			{"type":"enum","loc":["body","scorer_type"],"msg":"Input should be 'llm', 'code', 'luna' or 'preset'","input":"decision","ctx":{"expected":"'llm', 'code', 'luna' or 'preset'"}},
			{"type":"greater_than_equal","loc":["body","defaults","num_judges"],"msg":"Input should be greater than or equal to 1","input":0,"ctx":{"ge":1}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := h.do(tc.who, "POST", "/v2/scorers", tc.body)
			if code != tc.status {
				t.Fatalf("%d %s, want %d", code, resp, tc.status)
			}
			if tc.want != "" {
				apitest.SameJSON(t, resp, tc.want)
			}
		})
	}
}

// version is the part of a version response the tests look at.
type version struct {
	ID             string         `json:"id"`
	Version        int64          `json:"version"`
	ScorerID       string         `json:"scorer_id"`
	ModelName      *string        `json:"model_name"`
	NumJudges      *int64         `json:"num_judges"`
	CotEnabled     *bool          `json:"cot_enabled"`
	DecisionScorer map[string]any `json:"decision_scorer"`
	Template       struct {
		Template string `json:"template"`
	} `json:"chain_poll_template"`
	Raw map[string]any `json:"-"`
}

func (h *harness) version(who *authtest.User, scorerID, body string) version {
	h.t.Helper()
	code, resp := h.do(who, "POST", decisionPath(scorerID), body)
	if code != 200 {
		h.t.Fatalf("decision version: %d %s", code, resp)
	}
	var v version
	if err := json.Unmarshal([]byte(resp), &v); err != nil {
		h.t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(resp), &v.Raw); err != nil {
		h.t.Fatal(err)
	}
	return v
}

func TestDecisionVersion(t *testing.T) {
	h := newHarness(t, nil)
	user := &h.org.User
	id := h.scorer(user, `{"name":"cat","scorer_type":"llm","output_type":"categorical","input_type":"basic",
		"scoreable_node_types":["llm","agent"],"defaults":{"model_name":"judge-1","num_judges":3}}`)

	v1 := h.version(user, id, `{"question":"Is the answer polite?","answer_options":["polite","rude"]}`)
	r := v1.Raw
	for _, k := range []string{"generated_scorer", "registered_scorer", "finetuned_scorer", "luna3_scorer", "runtime", "cot_enabled"} {
		if v, ok := r[k]; !ok || v != nil {
			t.Errorf("%s = %v (present %v), want null", k, v, ok)
		}
	}
	if v1.Version != 1 || v1.ScorerID != id || *v1.ModelName != "judge-1" || *v1.NumJudges != 3 || r["allowed_model"] != true ||
		r["output_type"] != "categorical" || r["input_type"] != "basic" || r["created_by"] != user.UserID ||
		r["created_at"] != "2026-05-06T07:08:09Z" || r["updated_at"] != "2026-05-06T07:08:09Z" ||
		!slices.Equal(toStrings(r["scoreable_node_types"]), []string{"llm", "agent"}) {
		t.Errorf("version 1 = %s", asJSON(t, r))
	}
	d := v1.DecisionScorer
	if d["organization_id"] != h.org.ID || d["question"] != "Is the answer polite?" || d["created_by"] != user.UserID ||
		d["created_at"] != "2026-05-06T07:08:09Z" || d["id"] == "" || d["id"] == v1.ID ||
		!slices.Equal(toStrings(d["answer_options"]), []string{"polite", "rude"}) {
		t.Errorf("decision_scorer = %s", asJSON(t, d))
	}
	if !strings.Contains(v1.Template.Template, "Is the answer polite?") || !strings.Contains(v1.Template.Template, `"polite", "rude"`) {
		t.Errorf("template = %q", v1.Template.Template)
	}

	// Version 2 takes what it does not send from version 1.
	v2 := h.version(user, id, `{"question":"Polite?","model_name":"judge-2","cot_enabled":true,"output_type":"categorical",
		"input_type":"basic","scoreable_node_types":["agent","llm"]}`)
	if v2.Version != 2 || *v2.ModelName != "judge-2" || *v2.NumJudges != 3 || !*v2.CotEnabled ||
		!slices.Equal(toStrings(v2.DecisionScorer["answer_options"]), []string{"polite", "rude"}) {
		t.Errorf("version 2 = %s", asJSON(t, v2.Raw))
	}
	v3 := h.version(user, id, `{"question":"Polite?","answer_options":["a","b","c"],"num_judges":5}`)
	if v3.Version != 3 || *v3.ModelName != "judge-2" || *v3.NumJudges != 5 || !*v3.CotEnabled {
		t.Errorf("version 3 = %s", asJSON(t, v3.Raw))
	}

	discrete := h.scorer(user, `{"name":"levels","scorer_type":"llm","output_type":"discrete"}`)
	dv := h.version(user, discrete, `{"question":"How good?","answer_options":["bad","ok","great"]}`)
	apitest.SameJSON(t, asJSON(t, dv.DecisionScorer["answer_options"]),
		`[{"label":"bad","value":0},{"label":"ok","value":1},{"label":"great","value":2}]`)

	prob := h.scorer(user, `{"name":"prob","scorer_type":"llm","output_type":"boolean_probability"}`)
	pv := h.version(user, prob, `{"question":"Yes?","answer_options":null}`)
	if v, ok := pv.DecisionScorer["answer_options"]; !ok || v != nil || pv.Raw["model_name"] != nil {
		t.Errorf("boolean_probability version = %s", asJSON(t, pv.Raw))
	}
}

func TestDecisionVersionErrors(t *testing.T) {
	h := newHarness(t, nil)
	user := &h.org.User
	id := h.scorer(user, `{"name":"b","scorer_type":"llm","output_type":"boolean"}`)
	code := h.scorer(user, `{"name":"c","scorer_type":"code","output_type":"boolean"}`)
	theirs := h.scorer(&h.other.User, `{"name":"t","scorer_type":"llm","output_type":"boolean"}`)
	for _, tc := range []struct {
		name, path, body string
		who              *authtest.User
		status           int
		want             string
	}{
		{"another org's scorer", decisionPath(theirs), `{"question":"q"}`, user, 404, `{"detail":"Scorer not found"}`},
		{"unknown scorer", decisionPath(unknownID), `{"question":"q"}`, user, 404, `{"detail":"Scorer not found"}`},
		{"bad body for an unknown scorer is 422", decisionPath(unknownID), `{"question":""}`, user, 422,
			`{"detail":[{"type":"string_too_short","loc":["body","question"],"msg":"String should have at least 1 character","input":"","ctx":{"min_length":1}}]}`},
		{"bad path and body", decisionPath("a8098c1a-f86e-11da-bd1a-00112444be1e"), `{"num_judges":11}`, user, 422,
			`{"detail":[{"type":"uuid_version","loc":["path","scorer_id"],"msg":"UUID version 4 expected","input":"a8098c1a-f86e-11da-bd1a-00112444be1e","ctx":{"expected_version":4}},
			{"type":"missing","loc":["body","question"],"msg":"Field required","input":{"num_judges":11}},
			{"type":"less_than_equal","loc":["body","num_judges"],"msg":"Input should be less than or equal to 10","input":11,"ctx":{"le":10}}]}`},
		{"code scorer", decisionPath(code), `{"question":"q"}`, user, 422,
			`{"detail":[{"type":"value_error","loc":["path","scorer_id"],"msg":"Value error, scorer ` + code + ` is a code scorer; decision versions need an llm scorer","input":"` + code + `","ctx":{"error":{}}}]}`},
		{"output type mismatch", decisionPath(id), `{"question":"q","output_type":"categorical"}`, user, 422,
			`{"detail":[{"type":"value_error","loc":["body","output_type"],"msg":"Value error, output_type must match the scorer's 'boolean'","input":"categorical","ctx":{"error":{}}}]}`},
		{"boolean with three options", decisionPath(id), `{"question":"q","answer_options":["a","b","c"]}`, user, 422,
			`{"detail":[{"type":"value_error","loc":["body","answer_options"],"msg":"Value error, a boolean scorer takes exactly 2 distinct answer options","input":["a","b","c"],"ctx":{"error":{}}}]}`},
		{"read-only", decisionPath(id), `{"question":"q"}`, &h.org.ReadOnly, 403, `{"detail":"Read-only users cannot perform this action"}`},
		{"read-only, another org's scorer", decisionPath(theirs), `{"question":"q"}`, &h.org.ReadOnly, 404, `{"detail":"Scorer not found"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := h.do(tc.who, "POST", tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("%d %s, want %d", code, resp, tc.status)
			}
			apitest.SameJSON(t, resp, tc.want)
		})
	}
	// None of the refused requests made a version.
	if vs, err := store.ScorerVersions(t.Context(), h.tbl, id); err != nil || len(vs) != 0 {
		t.Errorf("versions after refusals: %d, %v", len(vs), err)
	}
}

// TestConcurrentVersions sends concurrent decision versions of one scorer: they must get the
// numbers 1 to n, each once, and the scorer's counter must end at n. The embedded store
// takes 50 writers (DefaultRetry's promise); on the emulators 10 are enough to lose races
// there (counted: transactions the backend refused), at a fraction of the cost, since the
// transactions grow as n² and moto copies the table for every action of each.
func TestConcurrentVersions(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		n := 10
		if _, embedded := tbl.(*embedded.DB); embedded {
			n = 50
		}
		races := &raceCount{Table: tbl}
		h := newHarness(t, races)
		user := &h.org.User
		id := h.scorer(user, `{"name":"busy","scorer_type":"llm","output_type":"boolean"}`)
		got := make([]int64, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				code, resp := h.do(user, "POST", decisionPath(id), fmt.Sprintf(`{"question":"q%d"}`, i))
				var v version
				if err := json.Unmarshal([]byte(resp), &v); code != 200 || err != nil {
					t.Errorf("request %d: %d %s", i, code, resp)
					return
				}
				got[i] = v.Version
			})
		}
		wg.Wait()
		if lost := races.lost.Load(); lost == 0 {
			t.Errorf("%d concurrent versions lost no race on the backend: the test no longer crosses its conditions", n)
		}
		slices.Sort(got)
		for i, v := range got {
			if v != int64(i+1) {
				t.Fatalf("versions handed out = %v, want 1..%d each once", got, n)
			}
		}
		stored, err := store.ScorerVersions(t.Context(), tbl, id)
		if err != nil || len(stored) != n {
			t.Fatalf("stored versions: %d, %v", len(stored), err)
		}
		questions := map[string]bool{}
		for i, v := range stored {
			questions[v.Decision.Question] = true
			if v.Version != int64(i+1) {
				t.Errorf("stored version %d has number %d", i+1, v.Version)
			}
		}
		s, err := store.GetScorer(t.Context(), tbl, h.org.ID, id)
		if err != nil || s.VersionCount != int64(n) || len(questions) != n {
			t.Errorf("version_count %d (%v), %d distinct questions; want %d", s.VersionCount, err, len(questions), n)
		}
	})
}

// raceCount counts the transactions the table refused for a condition or a conflict: the
// races a version write lost.
type raceCount struct {
	store.Table
	lost atomic.Int64
}

func (r *raceCount) Transact(ctx context.Context, ops []store.Op) error {
	err := r.Table.Transact(ctx, ops)
	if errors.Is(err, store.ErrConditionFailed) || errors.Is(err, store.ErrConflict) {
		r.lost.Add(1)
	}
	return err
}

func toStrings(v any) []string {
	xs, _ := v.([]any)
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i], _ = x.(string)
	}
	return out
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
