package traces

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

func TestAvailableColumns(t *testing.T) {
	const (
		pid     = "44444444-5555-4666-8777-000000000001"
		lsid    = "44444444-5555-4666-8777-000000000002"
		expID   = "44444444-5555-4666-8777-888888888888"
		scorerA = "44444444-5555-4666-8777-00000000000a"
		scorerB = "44444444-5555-4666-8777-00000000000b"
		unknown = "0e4b5d7c-1f2a-4b3c-9d8e-7f6a5b4c3d2e"
	)
	h := newHarness(t, 0)
	user := &h.org.User
	ctx := t.Context()
	tone, exp := "tone", "exp_metric"
	pct, maxm := "percentage", "max"
	mustDo(t, store.CreateProject(ctx, h.tbl, store.Project{ID: pid, OrgID: h.org.ID, Name: "p", CreatedBy: user.UserID, CreatedAt: testNow, UpdatedAt: testNow}))
	ls := store.LogStream{ID: lsid, ProjectID: pid, OrgID: h.org.ID, Name: "ls", CreatedBy: user.UserID, CreatedAt: testNow, UpdatedAt: testNow}
	mustDo(t, store.CreateLogStream(ctx, h.tbl, ls))
	scorers := []store.ScorerConfig{{ID: scorerA, Name: &tone, OutputType: &pct, RollUpMethod: &maxm}, {ID: scorerB}}
	_, err := store.SetMetricSettings(ctx, h.tbl, ls, &scorers, nil, testNow)
	mustDo(t, err)
	mustDo(t, store.CreateExperiment(ctx, h.tbl, store.Experiment{ID: expID, ProjectID: pid, OrgID: h.org.ID, Name: "e",
		CreatedBy: user.UserID, CreatedAt: testNow, UpdatedAt: testNow, MetricSettings: store.MetricSettings{Scorers: []store.ScorerConfig{{ID: scorerA, Name: &exp}}}}))
	mustDo(t, store.MarkColumnsFilled(ctx, h.tbl, lsid, "input", "tags", "metrics/tone"))

	path := "/v2/projects/" + pid + "/traces/available_columns"
	var resp struct {
		Columns []map[string]any `json:"columns"`
	}
	h.must(user, "POST", path, `{"log_stream_id":"`+lsid+`"}`, &resp)
	if len(resp.Columns) != 38 {
		t.Fatalf("%d columns, want 36 standard and 2 metric", len(resp.Columns))
	}
	for i, c := range resp.Columns {
		filled := c["id"] == "input" || c["id"] == "tags" || c["id"] == "metrics/tone"
		if c["is_empty"] != !filled {
			t.Errorf("column %d %v: is_empty %v, want %v", i, c["id"], c["is_empty"], !filled)
		}
	}
	apitest.SameJSON(t, asJSON(t, resp.Columns[36]), `{"id":"metrics/tone","label":"tone","description":"Values of the metric tone.",
		"category":"metric","group_label":"Metrics","data_type":"floating_point","data_unit":"percentage","filter_type":"number",
		"filterable":true,"sortable":true,"multi_valued":false,"is_empty":false,"is_optional":true,"applicable_types":[],
		"allowed_values":null,"roll_up_method":"max","threshold":{"buckets":[0.33,0.66],"display_value_levels":["Low","Medium","High"],"inverted":false}}`)
	if resp.Columns[37]["id"] != "metrics/"+scorerB || resp.Columns[37]["data_unit"] != nil || resp.Columns[37]["roll_up_method"] != "average" {
		t.Errorf("unnamed scorer column = %v", resp.Columns[37])
	}
	if resp.Columns[0]["id"] != "input" || resp.Columns[35]["id"] != "selector_path" {
		t.Errorf("standard columns out of order: %v ... %v", resp.Columns[0]["id"], resp.Columns[35]["id"])
	}

	h.must(user, "POST", path, `{"experiment_id":"`+expID+`"}`, &resp)
	if len(resp.Columns) != 37 || resp.Columns[36]["id"] != "metrics/exp_metric" || resp.Columns[0]["is_empty"] != true {
		t.Errorf("experiment columns: %d, last %v", len(resp.Columns), resp.Columns[len(resp.Columns)-1]["id"])
	}

	exactlyOne := func(input string) string {
		return `{"detail":[{"type":"value_error","loc":["body"],"msg":"Value error, exactly one of log_stream_id and experiment_id is required","input":` + input + `,"ctx":{"error":{}}}]}`
	}
	for _, tc := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"another org's log stream", "/v2/projects/" + ExampleProjectID + "/traces/available_columns", `{"log_stream_id":"` + ExampleLogStreamID + `"}`, 404, `{"detail":"Project not found"}`},
		{"unknown log stream", path, `{"log_stream_id":"` + unknown + `"}`, 404, `{"detail":"Log stream not found"}`},
		{"unknown experiment", path, `{"experiment_id":"` + unknown + `"}`, 404, `{"detail":"Experiment not found"}`},
		{"a log stream named as experiment", path, `{"experiment_id":"` + lsid + `"}`, 404, `{"detail":"Experiment not found"}`},
		{"neither", path, `{}`, 422, exactlyOne(`{}`)},
		{"both", path, `{"log_stream_id":"` + lsid + `","experiment_id":"` + expID + `"}`, 422,
			exactlyOne(`{"log_stream_id":"` + lsid + `","experiment_id":"` + expID + `"}`)},
		{"unauthenticated", path, `{"log_stream_id":"` + unknown + `"}`, 401, `{"detail":"Not authenticated"}`},
		{"bad id", path, `{"log_stream_id":"x"}`, 422,
			`{"detail":[{"type":"uuid_parsing","loc":["body","log_stream_id"],"msg":"Input should be a valid UUID, invalid character: found ` + "`x`" + ` at 1","input":"x","ctx":{"error":"invalid character: found ` + "`x`" + ` at 1"}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			who := user
			switch tc.name {
			case "another org's log stream":
				who = &h.other.User
			case "unauthenticated":
				who = nil
			}
			code, body := h.do(who, "POST", tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("status %d %s, want %d", code, body, tc.status)
			}
			apitest.SameJSON(t, body, tc.want)
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// must sends a request that has to succeed and decodes its JSON answer into out.
func (h *harness) must(who *authtest.User, method, path, body string, out any) {
	h.t.Helper()
	code, resp := h.do(who, method, path, body)
	if code != http.StatusOK {
		h.t.Fatalf("%s %s = %d %s", method, path, code, resp)
	}
	if err := json.Unmarshal([]byte(resp), out); err != nil {
		h.t.Fatal(err)
	}
}
