package projects

import (
	"context"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/store"
)

func TestAvailableColumns(t *testing.T) {
	expID := "44444444-5555-4666-8777-888888888888"
	experiments := func(_ context.Context, orgID, projectID, id string) (store.MetricSettings, error) {
		if id != expID {
			return store.MetricSettings{}, store.ErrNotFound
		}
		name := "exp_metric"
		return store.MetricSettings{Scorers: []store.ScorerConfig{{ID: scorerA, Name: &name}}}, nil
	}
	h := newHarness(t, experiments)
	user := &h.org.User
	pid := h.project(user, "p")
	lsid := h.logStream(user, pid, "ls")
	h.must(user, "PATCH", "/v2/projects/"+pid+"/log_streams/"+lsid+"/metric_settings",
		`{"scorers":[{"id":"`+scorerA+`","name":"tone","output_type":"percentage","roll_up_method":"max"},{"id":"`+scorerB+`"}]}`, nil)
	if err := store.MarkColumnsFilled(t.Context(), h.tbl, lsid, "input", "tags", "metrics/tone"); err != nil {
		t.Fatal(err)
	}
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

	strangerPid := h.project(&h.other.User, "theirs")
	strangerLs := h.logStream(&h.other.User, strangerPid, "ls")
	exactlyOne := func(input string) string {
		return `{"detail":[{"type":"value_error","loc":["body"],"msg":"Value error, exactly one of log_stream_id and experiment_id is required","input":` + input + `,"ctx":{"error":{}}}]}`
	}
	for _, tc := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"another org's log stream", "/v2/projects/" + strangerPid + "/traces/available_columns", `{"log_stream_id":"` + strangerLs + `"}`, 404, `{"detail":"Project not found"}`},
		{"unknown log stream", path, `{"log_stream_id":"` + unknown + `"}`, 404, `{"detail":"Log stream not found"}`},
		{"unknown experiment", path, `{"experiment_id":"` + unknown + `"}`, 404, `{"detail":"Experiment not found"}`},
		{"neither", path, `{}`, 422, exactlyOne(`{}`)},
		{"both", path, `{"log_stream_id":"` + lsid + `","experiment_id":"` + expID + `"}`, 422,
			exactlyOne(`{"log_stream_id":"` + lsid + `","experiment_id":"` + expID + `"}`)},
		{"bad id", path, `{"log_stream_id":"x"}`, 422,
			`{"detail":[{"type":"uuid_parsing","loc":["body","log_stream_id"],"msg":"Input should be a valid UUID, invalid character: found ` + "`x`" + ` at 1","input":"x","ctx":{"error":"invalid character: found ` + "`x`" + ` at 1"}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(user, "POST", tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("status %d %s, want %d", code, body, tc.status)
			}
			apitest.SameJSON(t, body, tc.want)
		})
	}
}

func TestAvailableColumnsWithoutExperiments(t *testing.T) {
	h := newHarness(t, nil)
	pid := h.project(&h.org.User, "p")
	code, body := h.do(&h.org.User, "POST", "/v2/projects/"+pid+"/traces/available_columns", `{"experiment_id":"`+unknown+`"}`)
	if code != 404 {
		t.Fatalf("%d %s", code, body)
	}
	apitest.SameJSON(t, body, `{"detail":"Experiment not found"}`)
}
