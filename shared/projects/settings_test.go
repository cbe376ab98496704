package projects

import (
	"encoding/json"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

const (
	scorerA = "11111111-2222-4333-8444-555555555555"
	scorerB = "22222222-3333-4444-8555-666666666666"
	verID   = "33333333-4444-4555-8666-777777777777"
)

// config is a scorer config as the API answers it: every field present, null unless set.
func config(set map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"scorer_version_id", "filters", "roll_up_method", "name", "scorer_type", "model_name",
		"num_judges", "scorer_version", "scoreable_node_types", "cot_enabled", "output_type", "input_type",
		"multimodal_capabilities", "roll_up_config", "score_type", "model_type", "chainpoll_template", "metric_name",
		"scorer_path_name", "user_code", "model_alias", "default_model_alias", "prompt", "lora_weights_path",
		"registered_scorer_id", "roll_up_strategy", "required_scorers", "required_metric_ids", "lora_task_id",
		"luna_input_type", "luna_output_type", "class_name_to_vocab_ix"} {
		out[k] = nil
	}
	out["ground_truth"], out["requires_tools_in_llm_span"] = false, false
	for k, v := range set {
		out[k] = v
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

// patchBody sets every field kind: each filter kind, a pinned version, a template, a roll-up
// config, the vocabulary map and segment filters of every filter kind.
const patchBody = `{
 "scorers": [
  {"id": "` + scorerA + `", "name": "tone", "scorer_type": "llm", "model_name": "gpt", "num_judges": 3,
   "roll_up_method": "average", "scoreable_node_types": ["llm"], "cot_enabled": true, "output_type": "percentage",
   "input_type": "basic", "multimodal_capabilities": ["vision"], "roll_up_config": {"roll_up_methods": ["average", "max"]},
   "score_type": "float", "model_type": "llm", "metric_name": "Tone", "prompt": "p", "ground_truth": true,
   "roll_up_strategy": "avg", "required_scorers": ["a"], "required_metric_ids": [], "lora_task_id": 7,
   "luna_input_type": "span", "luna_output_type": "float", "class_name_to_vocab_ix": {"yes": 1, "no": [2, 3]},
   "scorer_version_id": "` + verID + `", "registered_scorer_id": "` + verID + `",
   "filters": [
     {"name": "node_name", "operator": "eq", "value": "llm", "case_sensitive": false},
     {"name": "metadata", "operator": "one_of", "key": "env", "value": ["prod", "dev"]},
     {"name": "modality", "operator": "one_of", "value": ["image", "audio"]}],
   "chainpoll_template": {"template": "T {input}", "metric_few_shot_examples": [
     {"generation_prompt_and_response": "g", "evaluating_response": "e"}], "response_schema": {"type": "object"}},
   "scorer_version": {"id": "` + verID + `", "version": 2, "scorer_id": "` + scorerA + `", "model_name": "m",
     "registered_scorer": {"id": "` + verID + `", "name": "r"}}},
  {"id": "` + scorerB + `", "unknown_field": "ignored"}
 ],
 "segment_filters": [
  {"sample_rate": 0.5},
  {"sample_rate": 1, "llm_scorers": true, "filter": {"name": "node_name", "operator": "contains", "value": "agent"}},
  {"sample_rate": 0, "multimodal_scorers": true, "filter": {"name": "modality", "operator": "eq", "value": "image"}},
  {"sample_rate": 0.1, "filter": {"name": "metadata", "operator": "ne", "key": "k", "value": "v"}}
 ]
}`

func expectedSettings() map[string]any {
	return map[string]any{
		"scorers": []any{
			config(map[string]any{"id": scorerA, "name": "tone", "scorer_type": "llm", "model_name": "gpt", "num_judges": 3,
				"roll_up_method": "average", "scoreable_node_types": []any{"llm"}, "cot_enabled": true, "output_type": "percentage",
				"input_type": "basic", "multimodal_capabilities": []any{"vision"},
				"roll_up_config": map[string]any{"roll_up_methods": []any{"average", "max"}},
				"score_type":     "float", "model_type": "llm", "metric_name": "Tone", "prompt": "p", "ground_truth": true,
				"roll_up_strategy": "avg", "required_scorers": []any{"a"}, "required_metric_ids": []any{}, "lora_task_id": 7,
				"luna_input_type": "span", "luna_output_type": "float",
				"class_name_to_vocab_ix": map[string]any{"yes": 1, "no": []any{2, 3}},
				"scorer_version_id":      verID, "registered_scorer_id": verID,
				"filters": []any{
					map[string]any{"name": "node_name", "operator": "eq", "value": "llm", "case_sensitive": false},
					map[string]any{"name": "metadata", "operator": "one_of", "key": "env", "value": []any{"prod", "dev"}},
					map[string]any{"name": "modality", "operator": "one_of", "value": []any{"image", "audio"}}},
				"chainpoll_template": map[string]any{"template": "T {input}", "metric_system_prompt": nil, "metric_description": nil,
					"value_field_name": "rating", "explanation_field_name": "explanation",
					"metric_few_shot_examples": []any{map[string]any{"generation_prompt_and_response": "g", "evaluating_response": "e"}},
					"response_schema":          map[string]any{"type": "object"}},
				"scorer_version": map[string]any{"id": verID, "version": 2, "scorer_id": scorerA, "model_name": "m",
					"num_judges": nil, "cot_enabled": nil, "generated_scorer": nil, "finetuned_scorer": nil,
					"registered_scorer": map[string]any{"id": verID, "name": "r", "score_type": nil}},
			}),
			config(map[string]any{"id": scorerB, "scorer_type": "llm"}), // resolved: the clients require one
		},
		"segment_filters": []any{
			map[string]any{"sample_rate": 0.5, "filter": nil, "llm_scorers": false, "multimodal_scorers": false},
			map[string]any{"sample_rate": 1, "llm_scorers": true, "multimodal_scorers": false,
				"filter": map[string]any{"name": "node_name", "operator": "contains", "value": "agent", "case_sensitive": true}},
			map[string]any{"sample_rate": 0, "llm_scorers": false, "multimodal_scorers": true,
				"filter": map[string]any{"name": "modality", "operator": "eq", "value": "image"}},
			map[string]any{"sample_rate": 0.1, "llm_scorers": false, "multimodal_scorers": false,
				"filter": map[string]any{"name": "metadata", "operator": "ne", "key": "k", "value": "v"}},
		},
	}
}

func TestMetricSettingsRoundTrip(t *testing.T) {
	h := newHarness(t)
	user := &h.org.User
	pid := h.project(user, "p")
	lsid := h.logStream(user, pid, "ls")
	path := "/v2/projects/" + pid + "/log_streams/" + lsid + "/metric_settings"

	code, body := h.do(user, "GET", path, "")
	if code != 200 {
		t.Fatalf("GET new settings: %d %s", code, body)
	}
	apitest.SameJSON(t, body, `{"scorers":[],"segment_filters":null}`)

	want := asJSON(t, expectedSettings())
	code, body = h.do(user, "PATCH", path, patchBody)
	if code != 200 {
		t.Fatalf("PATCH: %d %s", code, body)
	}
	apitest.SameJSON(t, body, want)
	for _, who := range []*authtest.User{user, &h.org.ReadOnly} {
		code, body = h.do(who, "GET", path, "")
		if code != 200 {
			t.Fatalf("GET: %d %s", code, body)
		}
		apitest.SameJSON(t, body, want)
	}

	// Parts that are absent or null stay; a part that is sent replaces.
	code, body = h.do(user, "PATCH", path, `{"segment_filters":[],"scorers":null}`)
	exp := expectedSettings()
	exp["segment_filters"] = []any{}
	if code != 200 {
		t.Fatalf("PATCH segment filters: %d %s", code, body)
	}
	apitest.SameJSON(t, body, asJSON(t, exp))
	code, body = h.do(user, "PATCH", path, `{"scorers":[{"id":"`+scorerB+`"}]}`)
	exp["scorers"] = []any{config(map[string]any{"id": scorerB, "scorer_type": "llm"})}
	if code != 200 {
		t.Fatalf("PATCH scorers: %d %s", code, body)
	}
	apitest.SameJSON(t, body, asJSON(t, exp))
}

func TestMetricSettingsErrors(t *testing.T) {
	h := newHarness(t)
	user, stranger := &h.org.User, &h.other.User
	pid := h.project(user, "p")
	lsid := h.logStream(user, pid, "ls")
	otherPid := h.project(user, "p2")
	strangerPid := h.project(stranger, "theirs")
	strangerLs := h.logStream(stranger, strangerPid, "ls")
	path := func(p, ls string) string { return "/v2/projects/" + p + "/log_streams/" + ls + "/metric_settings" }
	for _, tc := range []struct {
		name, method, path, body string
		who                      *authtest.User
		status                   int
		want                     string
	}{
		{"log stream of another project", "GET", path(otherPid, lsid), "", user, 404, `{"detail":"Log stream not found"}`},
		{"unknown log stream", "GET", path(pid, unknown), "", user, 404, `{"detail":"Log stream not found"}`},
		{"unknown project", "GET", path(unknown, lsid), "", user, 404, `{"detail":"Project not found"}`},
		{"another org's log stream", "GET", path(strangerPid, strangerLs), "", user, 404, `{"detail":"Project not found"}`},
		{"another org's log stream, PATCH", "PATCH", path(strangerPid, strangerLs), `{}`, user, 404, `{"detail":"Project not found"}`},
		{"my log stream, their project id", "GET", path(strangerPid, lsid), "", user, 404, `{"detail":"Project not found"}`},
		{"my project, their log stream id", "GET", path(pid, strangerLs), "", user, 404, `{"detail":"Log stream not found"}`},
		{"both ids bad", "GET", path("p", v1UUID), "", user, 422,
			`{"detail":[{"type":"uuid_parsing","loc":["path","project_id"],"msg":"Input should be a valid UUID, invalid character: found ` + "`p`" + ` at 1","input":"p","ctx":{"error":"invalid character: found ` + "`p`" + ` at 1"}},
			{"type":"uuid_version","loc":["path","log_stream_id"],"msg":"UUID version 4 expected","input":"` + v1UUID + `","ctx":{"expected_version":4}}]}`},
		{"read-only PATCH", "PATCH", path(pid, lsid), `{"scorers":[]}`, &h.org.ReadOnly, 403, `{"detail":"Read-only users cannot perform this action"}`},
		{"bad sample rate", "PATCH", path(pid, lsid), `{"segment_filters":[{"sample_rate":2}]}`, user, 422,
			`{"detail":[{"type":"less_than_equal","loc":["body","segment_filters",0,"sample_rate"],"msg":"Input should be less than or equal to 1","input":2,"ctx":{"le":1}}]}`},
		{"bad filter tag, unknown log stream: 422 first", "PATCH", path(pid, unknown), `{"scorers":[{"id":"` + scorerA + `","filters":[{"name":"x"}]}]}`, user, 422,
			`{"detail":[{"type":"union_tag_invalid","loc":["body","scorers",0,"filters",0],"msg":"Input tag 'x' found using 'name' does not match any of the expected tags: 'node_name', 'metadata', 'modality'","input":{"name":"x"},"ctx":{"discriminator":"'name'","tag":"x","expected_tags":"'node_name', 'metadata', 'modality'"}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(tc.who, tc.method, tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("status %d %s, want %d", code, body, tc.status)
			}
			apitest.SameJSON(t, body, tc.want)
		})
	}
}

// A scorer config sent without scorer_type is answered with one, since the original's
// clients require it: the type of the organization's scorer it names, else the one its
// fields imply.
func TestMetricSettingsResolveScorerType(t *testing.T) {
	h := newHarness(t)
	user := &h.org.User
	pid := h.project(user, "p")
	lsid := h.logStream(user, pid, "ls")
	path := "/v2/projects/" + pid + "/log_streams/" + lsid + "/metric_settings"
	scorer := store.Scorer{ID: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", OrgID: h.org.ID, Name: "mine", ScorerType: "code"}
	if err := store.CreateScorer(t.Context(), h.tbl, scorer); err != nil {
		t.Fatal(err)
	}
	body := `{"scorers":[{"id":"` + scorer.ID + `"},{"id":"11111111-2222-4333-8444-555555555555","model_type":"slm"},` +
		`{"id":"22222222-3333-4444-8555-666666666666","name":"correctness"},{"id":"33333333-4444-4555-8666-777777777777"},` +
		`{"id":"44444444-5555-4666-8777-888888888888","scorer_type":"preset","user_code":"x"}]}`
	code, resp := h.do(user, "PATCH", path, body)
	if code != 200 {
		t.Fatalf("PATCH: %d %s", code, resp)
	}
	var got struct {
		Scorers []struct {
			ScorerType *string `json:"scorer_type"`
		} `json:"scorers"`
	}
	if err := json.Unmarshal([]byte(resp), &got); err != nil {
		t.Fatal(err)
	}
	want := []string{"code", "luna", "preset", "llm", "preset"}
	for i, s := range got.Scorers {
		if s.ScorerType == nil || *s.ScorerType != want[i] {
			t.Errorf("scorer %d: scorer_type %v, want %s", i, s.ScorerType, want[i])
		}
	}
}
