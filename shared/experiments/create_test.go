package experiments

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/datasets"
	"github.com/evalobs/evalapi/shared/store"
)

const unknownID = "0e4b5d7c-1f2a-4b3c-9d8e-7f6a5b4c3d2e"

func TestUnauthenticated(t *testing.T) {
	h := newHarness(t, nil)
	for _, r := range []struct{ method, path, body string }{
		{"GET", experimentsPath(unknownID), ""},
		{"POST", experimentsPath(unknownID), `{"name":"x"}`},
		{"GET", experimentsPath("not-a-uuid"), ""}, // authentication comes before validation
	} {
		code, body := h.do(nil, r.method, r.path, r.body)
		if code != http.StatusUnauthorized {
			t.Fatalf("%s %s: %d %s, want 401", r.method, r.path, code, body)
		}
		apitest.SameJSON(t, body, `{"detail":"Not authenticated"}`)
	}
}

func TestCreateExperimentEveryField(t *testing.T) {
	h := newHarness(t, nil)
	pid := h.project(h.org)
	if err := datasets.SeedExample(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, testNow); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"name":"baseline","task_type":17,
		"dataset":{"dataset_id":%q,"version_index":1},
		"prompt":{"prompt_template_id":"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","version_index":2,"name":"qa","content":"Answer {q}"},
		"prompt_run_settings":{"temperature":0.2,"max_tokens":256,"stop_sequences":["\n"],"logprobs":false,"response_format":{"type":"json_object"}},
		"prompt_model":"gpt-x","playground":{"playground_id":"2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e","name":"pg"},
		"tags":{"suite":"nightly"},"experiment_group":{"id":"3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f","name":"g1"},
		"scorers":[{"id":"4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a","name":"correctness"}]}`, datasets.ExampleDatasetID)
	code, resp := h.do(&h.org.User, "POST", experimentsPath(pid), body)
	if code != 200 {
		t.Fatalf("create: %d %s", code, resp)
	}
	id := h.list(&h.org.User, pid, "")[0]["id"].(string)
	u := h.org.User
	apitest.SameJSON(t, resp, fmt.Sprintf(`{"id":%q,"project_id":%q,"task_type":17,"created_at":"2026-05-06T07:08:09Z","updated_at":"2026-05-06T07:08:09Z",
		"name":"baseline","created_by":%q,"created_by_user":{"id":%q,"email":%q,"first_name":"Test","last_name":"user"},
		"num_spans":null,"num_traces":null,"num_sessions":null,
		"dataset":{"dataset_id":%q,"version_index":1,"name":"fixture-qa"},
		"aggregate_metrics":{},"structured_aggregate_metrics":{},"aggregate_feedback":{},"rating_aggregates":{},
		"ranking_score":null,"rank":null,"winner":null,
		"playground_id":"2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e","playground":{"playground_id":"2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e","name":"pg"},
		"prompt_run_settings":{"logprobs":false,"deployment_name":null,"temperature":0.2,"max_tokens":256,"stop_sequences":["\n"],
			"tools":null,"tool_choice":null,"response_format":{"type":"json_object"}},
		"prompt_model":"gpt-x","prompt":{"prompt_template_id":"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","version_index":2,"name":"qa","content":"Answer {q}"},
		"tags":{"suite":[{"key":"suite","value":"nightly","tag_type":"generic","project_id":%q,"run_id":%q,"created_by":%q,"id":%q,
			"created_at":"2026-05-06T07:08:09Z","updated_at":"2026-05-06T07:08:09Z"}]},"status":{"log_generation":{"progress_percent":0}},
		"experiment_group_id":"3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f","experiment_group_name":"g1","experiment_group_is_system":false,
		"prompt_template_version_id":null,"playground_prompt_id":null,"trigger":false,"job_id":null}`,
		id, pid, u.UserID, u.UserID, u.Email, datasets.ExampleDatasetID, pid, id, u.UserID, store.DerivedID(id, "tag", "suite")))

	// The experiment is a run: GetRun finds it with its metric settings.
	run, err := store.GetRun(t.Context(), h.tbl, h.org.ID, pid, id)
	if err != nil || run.Kind != store.RunExperiment || run.Name != "baseline" || len(run.Scorers) != 1 || run.Scorers[0].Name == nil || *run.Scorers[0].Name != "correctness" {
		t.Fatalf("GetRun: %+v %v", run, err)
	}
}

func TestCreateExperimentMinimal(t *testing.T) {
	h := newHarness(t, nil)
	pid := h.project(h.org)
	code, resp := h.do(&h.org.User, "POST", experimentsPath(pid), `{"name":"only a name"}`)
	if code != 200 {
		t.Fatalf("create: %d %s", code, resp)
	}
	for _, null := range []string{`"dataset":null`, `"prompt":null`, `"prompt_run_settings":null`, `"playground_id":null`,
		`"playground":null`, `"prompt_model":null`, `"tags":{}`, `"experiment_group_id":null`, `"experiment_group_name":null`,
		`"experiment_group_is_system":null`, `"task_type":16`} {
		if !strings.Contains(resp, null) {
			t.Errorf("missing %s in %s", null, resp)
		}
	}
}

func TestCreateExperimentRefusals(t *testing.T) {
	h := newHarness(t, nil)
	pid := h.project(h.org)
	h.create(&h.org.User, pid, `{"name":"taken"}`)
	// The admin's dataset, shared with no one: the user cannot see it (nor its name), the
	// organization admin can.
	if err := datasets.SeedExample(t.Context(), h.tbl, h.org.ID, h.org.Admin.UserID, testNow); err != nil {
		t.Fatal(err)
	}
	hidden := `{"name":"with-hidden","dataset":{"dataset_id":"` + datasets.ExampleDatasetID + `","version_index":1}}`
	if code, resp := h.do(&h.org.Admin, "POST", experimentsPath(pid), hidden); code != 200 || !strings.Contains(resp, `"name":"fixture-qa"`) {
		t.Fatalf("admin with the dataset: %d %s", code, resp)
	}
	for _, tc := range []struct {
		name, project, body string
		who                 *authtest.User
		status              int
		want                string
	}{
		{"same name", pid, `{"name":"taken"}`, &h.org.User, 422,
			`{"detail":[{"type":"value_error","loc":["body","name"],"msg":"Value error, an experiment named 'taken' already exists","input":"taken","ctx":{"error":{}}}]}`},
		{"read-only", pid, `{"name":"x"}`, &h.org.ReadOnly, 403, `{"detail":"Read-only users cannot perform this action"}`},
		{"unknown project", unknownID, `{"name":"x"}`, &h.org.User, 404, `{"detail":"Project not found"}`},
		{"other organization", pid, `{"name":"x"}`, &h.other.User, 404, `{"detail":"Project not found"}`},
		{"unknown dataset", pid, `{"name":"x","dataset":{"dataset_id":"` + unknownID + `","version_index":0}}`, &h.org.User, 404, `{"detail":"Dataset not found"}`},
		{"dataset without a role", pid, hidden, &h.org.User, 404, `{"detail":"Dataset not found"}`},
		{"task type", pid, `{"name":"x","task_type":7}`, &h.org.User, 422,
			`{"detail":[{"type":"enum","loc":["body","task_type"],"msg":"Input should be 13, 15, 16, 17, 18 or 19","input":7,"ctx":{"expected":"13, 15, 16, 17, 18 or 19"}}]}`},
		{"shape", "not-a-uuid", `{"dataset":{"version_index":-1},"scorers":[{"id":"` + unknownID + `"},{"id":"` + unknownID + `"}]}`, &h.org.User, 422,
			`{"detail":[{"type":"uuid_parsing","loc":["path","project_id"],"msg":"Input should be a valid UUID, invalid character: found ` + "`n`" + ` at 1","input":"not-a-uuid","ctx":{"error":"invalid character: found ` + "`n`" + ` at 1"}},
			{"type":"missing","loc":["body","name"],"msg":"Field required","input":{"dataset":{"version_index":-1},"scorers":[{"id":"` + unknownID + `"},{"id":"` + unknownID + `"}]}},
			{"type":"missing","loc":["body","dataset","dataset_id"],"msg":"Field required","input":{"version_index":-1}},
			{"type":"greater_than_equal","loc":["body","dataset","version_index"],"msg":"Input should be greater than or equal to 0","input":-1,"ctx":{"ge":0}},
			{"type":"value_error","loc":["body","scorers",1,"id"],"msg":"Value error, scorer ` + unknownID + ` is configured twice","input":"` + unknownID + `","ctx":{"error":{}}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := h.do(tc.who, "POST", experimentsPath(tc.project), tc.body)
			if code != tc.status {
				t.Fatalf("%d %s, want %d", code, resp, tc.status)
			}
			apitest.SameJSON(t, resp, tc.want)
		})
	}
	if got := h.list(&h.org.User, pid, ""); len(got) != 2 { // "taken" and the admin's
		t.Fatalf("refused creates left %d experiments, want the 2 made before", len(got))
	}
}

// The original's clients create experiments with fields of their own: prompt_settings (the
// specification's prompt_run_settings, which wins when both are sent), the group by id and
// name, playground_id, prompt_template_version_id, playground_prompt_id and trigger. They
// are kept and answered.
func TestCreateExperimentClientFields(t *testing.T) {
	h := newHarness(t, nil)
	pid := h.project(h.org)
	for _, tc := range []struct{ name, body, want string }{
		{"client's fields", `{"name":"c1","prompt_settings":{"temperature":0.5,"model_alias":"m"},"experiment_group_name":"nightly",
			"playground_id":"2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e","prompt_template_version_id":"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
			"playground_prompt_id":"4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a","trigger":false}`,
			`"playground_id":"2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e","playground":{"playground_id":"2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e","name":""},` +
				`"prompt_run_settings":{"deployment_name":null,"model_alias":"m","temperature":0.5,"stop_sequences":null,"tools":null,"tool_choice":null,"response_format":null}`},
		{"both settings: the specification's wins", `{"name":"c2","prompt_settings":{"temperature":0.5},"prompt_run_settings":{"temperature":0.9},` +
			`"experiment_group_id":"3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f","experiment_group_name":"g"}`,
			`"temperature":0.9`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := h.do(&h.org.User, "POST", experimentsPath(pid), tc.body)
			if code != 200 || !strings.Contains(resp, tc.want) {
				t.Fatalf("create: %d %s\nwant it to hold %s", code, resp, tc.want)
			}
		})
	}
	got := h.list(&h.org.User, pid, "")
	byName := map[string]map[string]any{}
	for _, e := range got {
		byName[e["name"].(string)] = e
	}
	c1, c2 := byName["c1"], byName["c2"]
	if c1["trigger"] != false || c1["prompt_template_version_id"] != "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" ||
		c1["playground_prompt_id"] != "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a" || c1["experiment_group_name"] != "nightly" ||
		c1["experiment_group_id"] != store.DerivedID(pid, "experiment group", "nightly") {
		t.Errorf("c1 as listed: %v", c1)
	}
	// The model the client names in prompt_settings.model_alias is the experiment's model.
	if c1["prompt_model"] != "m" || c2["prompt_model"] != nil {
		t.Errorf("prompt_model as listed: c1 %v, c2 %v", c1["prompt_model"], c2["prompt_model"])
	}
	if c2["experiment_group_id"] != "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f" || c2["experiment_group_name"] != "g" {
		t.Errorf("c2 as listed: %v", c2)
	}
	code, body := h.do(&h.org.User, "POST", experimentsPath(pid), `{"name":"c3","experiment_group_name":"","playground_id":"nope"}`)
	if code != 422 || !strings.Contains(body, `"loc":["body","playground_id"]`) || !strings.Contains(body, `"loc":["body","experiment_group_name"]`) {
		t.Errorf("bad client fields: %d %s", code, body)
	}
}
