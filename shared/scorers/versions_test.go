package scorers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/auth/authtest"
)

type versionView struct {
	ID              string  `json:"id"`
	Version         int64   `json:"version"`
	ModelName       *string `json:"model_name"`
	NumJudges       *int64  `json:"num_judges"`
	Runtime         *string `json:"runtime"`
	GeneratedScorer *struct {
		Instructions      *string `json:"instructions"`
		ChainPollTemplate struct {
			Template       string `json:"template"`
			ValueFieldName string `json:"value_field_name"`
		} `json:"chain_poll_template"`
		ScorerConfiguration map[string]any `json:"scorer_configuration"`
	} `json:"generated_scorer"`
	RegisteredScorer *struct {
		Name      string  `json:"name"`
		ScoreType *string `json:"score_type"`
	} `json:"registered_scorer"`
	ChainPollTemplate *struct{ Template string } `json:"chain_poll_template"`
}

func (h *harness) call(who *authtest.User, method, path, body string, status int) versionView {
	h.t.Helper()
	code, resp := h.do(who, method, path, body)
	if code != status {
		h.t.Fatalf("%s %s: %d %s, want %d", method, path, code, resp, status)
	}
	var v versionView
	if status == 200 {
		if err := json.Unmarshal([]byte(resp), &v); err != nil {
			h.t.Fatal(err)
		}
	}
	return v
}

// An llm scorer's versions as the original's clients make them: the template sent, else one
// written from the instructions, else the latest version's; settings left out come from
// the latest version, else the scorer's defaults.
func TestLLMVersions(t *testing.T) {
	h := newHarness(t, nil)
	u := &h.org.User
	id := h.scorer(u, `{"name":"tone","scorer_type":"llm","output_type":"boolean","scoreable_node_types":["llm"],"defaults":{"num_judges":3}}`)
	base := "/scorers/" + id + "/version"
	h.call(u, "POST", base+"/llm", `{"model_name":"judge"}`, 422) // the first version needs a template
	v1 := h.call(u, "POST", base+"/llm", `{"instructions":"Is the answer polite?","model_name":"judge"}`, 200)
	if v1.Version != 1 || v1.GeneratedScorer == nil || !strings.Contains(v1.GeneratedScorer.ChainPollTemplate.Template, "Is the answer polite?") ||
		*v1.NumJudges != 3 || v1.ChainPollTemplate == nil || v1.ChainPollTemplate.Template != v1.GeneratedScorer.ChainPollTemplate.Template ||
		v1.GeneratedScorer.ScorerConfiguration["model_alias"] != "judge" {
		t.Fatalf("v1: %+v", v1)
	}
	v2 := h.call(u, "POST", "/v2"+base+"/llm", `{"chain_poll_template":{"template":"Rate {input} -> {output}","value_field_name":"score"},"num_judges":5}`, 200)
	if v2.Version != 2 || v2.GeneratedScorer.ChainPollTemplate.Template != "Rate {input} -> {output}" ||
		v2.GeneratedScorer.ChainPollTemplate.ValueFieldName != "score" || *v2.NumJudges != 5 || *v2.ModelName != "judge" ||
		v2.GeneratedScorer.Instructions == nil || *v2.GeneratedScorer.Instructions != "Is the answer polite?" {
		t.Fatalf("v2: %+v", v2)
	}
	v3 := h.call(u, "POST", base+"/llm", `{}`, 200)
	if v3.Version != 3 || v3.GeneratedScorer.ChainPollTemplate.Template != "Rate {input} -> {output}" {
		t.Fatalf("v3 keeps the latest template: %+v", v3)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"other output type", `{"output_type":"categorical"}`, `"loc":["body","output_type"]`},
		{"too many judges", `{"num_judges":11}`, `"loc":["body","num_judges"]`},
		{"template without text", `{"chain_poll_template":{"metric_description":"x"}}`, `"loc":["body","chain_poll_template","template"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(u, "POST", base+"/llm", tc.body)
			if code != 422 || !strings.Contains(body, tc.want) {
				t.Errorf("%d %s, want a 422 at %s", code, body, tc.want)
			}
		})
	}
	if got := h.call(u, "GET", base, "", 200); got.Version != 3 {
		t.Errorf("latest: %+v", got)
	}
	if got := h.call(u, "GET", base+"?version=1", "", 200); got.ID != v1.ID {
		t.Errorf("version 1: %+v", got)
	}
	h.call(u, "GET", base+"?version=4", "", 404)
	h.call(&h.other.User, "GET", base, "", 404)
	h.call(&h.org.ReadOnly, "POST", base+"/llm", `{}`, 403)
	code, body := h.do(u, "POST", base+"/preset", `{}`)
	if code != 422 || !strings.Contains(body, `"loc":["path","scorer_id"]`) {
		t.Errorf("a preset version of an llm scorer: %d %s", code, body)
	}
}

func TestPresetAndCodeVersions(t *testing.T) {
	h := newHarness(t, nil)
	u := &h.org.User
	preset := h.scorer(u, `{"name":"completeness","scorer_type":"preset"}`)
	h.call(u, "GET", "/v2/scorers/"+preset+"/version", "", 404) // no version yet
	p1 := h.call(u, "POST", "/v2/scorers/"+preset+"/version/preset", `{"model_name":"m","cot_enabled":true}`, 200)
	if p1.Version != 1 || p1.GeneratedScorer != nil || *p1.ModelName != "m" {
		t.Fatalf("preset: %+v", p1)
	}

	code := h.scorer(u, `{"name":"length","scorer_type":"code","scoreable_node_types":["llm"]}`)
	path := "/scorers/" + code + "/version/code"
	upload := func(fields map[string]string, files map[string][]byte) (int, string) {
		body, ct := authtest.Multipart(t, fields, files)
		rec := authtest.DoBody(t, h.rt, h.v, u, "POST", path, ct, body)
		return rec.Code, rec.Body.String()
	}
	status, resp := upload(map[string]string{"validation_result": `{"score_type":"float","result":"ok"}`},
		map[string][]byte{"file:scorer.py": []byte("def scorer_fn(*, response, **kwargs):\n    return len(response)\n")})
	var c1 versionView
	if status != 200 || json.Unmarshal([]byte(resp), &c1) != nil || c1.Version != 1 || c1.RegisteredScorer == nil ||
		c1.RegisteredScorer.Name != "length" || c1.RegisteredScorer.ScoreType == nil || *c1.RegisteredScorer.ScoreType != "float" ||
		c1.Runtime == nil || *c1.Runtime != codeRuntime {
		t.Fatalf("code version: %d %s", status, resp)
	}
	for _, tc := range []struct {
		name   string
		fields map[string]string
		files  map[string][]byte
		want   string
	}{
		{"no file", map[string]string{"validation_result": "ok"}, nil, `"loc":["body","file"]`},
		{"no validation result", nil, map[string][]byte{"file": []byte("x")}, `"loc":["body","validation_result"]`},
		{"not text", map[string]string{"validation_result": "ok"}, map[string][]byte{"file": {0xff, 0xfe}}, `"loc":["body","file"]`},
		{"too large", map[string]string{"validation_result": "ok"}, map[string][]byte{"file": []byte(strings.Repeat("x", maxCodeBytes+1))}, `"loc":["body","file"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if status, body := upload(tc.fields, tc.files); status != 422 || !strings.Contains(body, tc.want) {
				t.Errorf("%d %s, want a 422 at %s", status, body, tc.want)
			}
		})
	}
	// The code stays in the version's own record: the scorer carries the version without it.
	got := h.call(u, "GET", "/v2/scorers/"+code+"/version", "", 200)
	if got.ID != c1.ID || got.RegisteredScorer == nil {
		t.Errorf("latest code version: %+v", got)
	}
}

// POST /scorers/list: the organization's scorers, filtered, sorted and paged.
func TestListScorers(t *testing.T) {
	h := newHarness(t, nil)
	u := &h.org.User
	for _, b := range []string{`{"name":"Beta","scorer_type":"llm","tags":["rag","prod"]}`, `{"name":"alpha","label":"First Letter","scorer_type":"code"}`,
		`{"name":"gamma","scorer_type":"luna","tags":["prod"]}`} {
		h.scorer(u, b)
	}
	h.scorer(&h.other.User, `{"name":"alpha","scorer_type":"llm"}`)
	for _, tc := range []struct{ name, query, body, want string }{
		{"all by name", "", `{}`, "Beta,alpha,gamma"},
		{"no body", "", ``, "Beta,alpha,gamma"},
		{"name, case-insensitive by default", "", `{"filters":[{"name":"name","operator":"eq","value":"beta"}]}`, "Beta"},
		// The original's client looks metrics up by label, so: the label set, else the name.
		{"label as the client filters it", "", `{"filters":[{"name":"label","operator":"eq","value":"first letter","case_sensitive":false}]}`, "alpha"},
		{"label defaults to the name", "", `{"filters":[{"name":"label","operator":"eq","value":"BETA","case_sensitive":false}]}`, "Beta"},
		{"label case-sensitive by default", "", `{"filters":[{"name":"label","operator":"eq","value":"beta"}]}`, ""},
		{"label one_of", "", `{"filters":[{"name":"label","operator":"one_of","value":["gamma","First Letter"]}]}`, "alpha,gamma"},
		{"type", "", `{"filters":[{"name":"scorer_type","operator":"one_of","value":["llm","code"]}]}`, "Beta,alpha"},
		{"tags", "", `{"filters":[{"name":"tags","operator":"one_of","value":["prod"]}]}`, "Beta,gamma"},
		{"no small models", "", `{"filters":[{"name":"exclude_slm_scorers"}]}`, "Beta,alpha"},
		{"scoped to a project, with the global ones", "", `{"filters":[{"name":"scope_projects","project_ids":["0e4b5d7c-1f2a-4b3c-9d8e-7f6a5b4c3d2e"],"include_global":true}]}`, "Beta,alpha,gamma"},
		{"scoped to a project only", "", `{"filters":[{"name":"scope_projects","project_ids":["0e4b5d7c-1f2a-4b3c-9d8e-7f6a5b4c3d2e"]}]}`, ""},
		{"descending", "", `{"sort":{"name":"name","ascending":false}}`, "gamma,alpha,Beta"},
		{"a page", "?starting_token=1&limit=1", `{}`, "alpha"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(u, "POST", "/scorers/list"+tc.query, tc.body)
			var page struct {
				Scorers []struct{ Name string } `json:"scorers"`
			}
			if code != http.StatusOK || json.Unmarshal([]byte(body), &page) != nil {
				t.Fatalf("%d %s", code, body)
			}
			var names []string
			for _, s := range page.Scorers {
				names = append(names, s.Name)
			}
			if got := strings.Join(names, ","); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	code, body := h.do(u, "POST", "/v2/scorers/list", `{"sort":{"name":"enabled_in_run"}}`)
	if code != 422 || !strings.Contains(body, fmt.Sprintf(`"loc":["body","sort",%q,"value"]`, "enabled_in_run")) {
		t.Errorf("a custom_uuid sort without its value: %d %s", code, body)
	}
}

// The original client's create_custom_llm_metric sends the user prompt alone: the version
// takes the scorer's output type, else boolean, and a template written from the prompt.
func TestLLMVersionFromUserPrompt(t *testing.T) {
	h := newHarness(t, nil)
	u := &h.org.User
	for _, tc := range []struct {
		name, scorer, body, output string
		contains, lacks            []string
	}{
		{"no output type: boolean", `{"name":"helpful","scorer_type":"llm"}`,
			`{"user_prompt":"Is the response helpful?","model_name":"judge","cot_enabled":true}`, "boolean",
			[]string{"Instructions:\nIs the response helpful?", "Answer true or false.", "Input:\n{input}", "Output:\n{output}", "step by step"}, nil},
		{"the scorer's output type", `{"name":"count","scorer_type":"llm","output_type":"count"}`,
			`{"user_prompt":"How many facts does {response} state?"}`, "count",
			[]string{"How many facts does {response} state?", "Answer with a whole number."}, []string{"Input:\n{input}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := h.scorer(u, tc.scorer)
			code, body := h.do(u, "POST", "/scorers/"+id+"/version/llm", tc.body)
			var v struct {
				OutputType      string `json:"output_type"`
				GeneratedScorer struct {
					UserPrompt        string `json:"user_prompt"`
					ChainPollTemplate struct {
						Template       string         `json:"template"`
						ResponseSchema map[string]any `json:"response_schema"`
					} `json:"chain_poll_template"`
				} `json:"generated_scorer"`
			}
			if code != 200 || json.Unmarshal([]byte(body), &v) != nil {
				t.Fatalf("%d %s", code, body)
			}
			tpl := v.GeneratedScorer.ChainPollTemplate.Template
			if v.OutputType != tc.output || v.GeneratedScorer.UserPrompt == "" || v.GeneratedScorer.ChainPollTemplate.ResponseSchema == nil {
				t.Errorf("output type %q, user prompt %q, schema %v", v.OutputType, v.GeneratedScorer.UserPrompt, v.GeneratedScorer.ChainPollTemplate.ResponseSchema)
			}
			for _, want := range tc.contains {
				if !strings.Contains(tpl, want) {
					t.Errorf("template lacks %q:\n%s", want, tpl)
				}
			}
			for _, not := range tc.lacks {
				if strings.Contains(tpl, not) {
					t.Errorf("template has %q:\n%s", not, tpl)
				}
			}
		})
	}
	id := h.scorer(u, `{"name":"empty prompt","scorer_type":"llm"}`)
	for _, tc := range []struct {
		who    *authtest.User
		path   string
		body   string
		status int
	}{
		{nil, "/scorers/" + id + "/version/llm", `{"user_prompt":"x"}`, 401},
		{&h.org.ReadOnly, "/scorers/" + id + "/version/llm", `{"user_prompt":"x"}`, 403},
		{&h.other.User, "/scorers/" + id + "/version/llm", `{"user_prompt":"x"}`, 404},
		{u, "/scorers/" + id + "/version/llm", `{"user_prompt":""}`, 422},
		{u, "/scorers/" + id + "/version/llm", `{"user_prompt":null}`, 422}, // nothing to write a template from
	} {
		if code, body := h.do(tc.who, "POST", tc.path, tc.body); code != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.body, code, body, tc.status)
		}
	}
}
