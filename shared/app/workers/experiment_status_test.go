package workers_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/provider/providertest"
	"github.com/evalobs/evalapi/shared/store"
)

// TestExperimentRowKeepsProviderStatus: a row the provider refuses is a trace with the
// provider's HTTP status (docs/EXPERIMENTS.md), not 500; a row answered is 200.
func TestExperimentRowKeepsProviderStatus(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply providertest.Reply
		want  float64
	}{
		{"refused with 400", providertest.Fail(400), 400},
		{"unprocessable 422", providertest.Fail(422), 422},
		{"answered", providertest.Answer("fine"), 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stub := providertest.New(t)
			stub.Reply("gen-1", tc.reply)
			h := newE2EHost(t)
			h.do("PUT", "/v2/integrations/custom", `{"endpoint":"`+stub.URL+`","models":["gen-1"],"authentication_type":"none"}`, nil)
			var project, exp struct {
				ID    string `json:"id"`
				JobID string `json:"job_id"`
			}
			h.do("POST", "/v2/projects", `{"name":"status"}`, &project)
			ds := store.Dataset{ID: uuid.NewString(), OrgID: h.admin.OrgID, Name: "qa", ColumnNames: []string{"input"},
				CreatedBy: h.admin.UserID, CreatedAt: time.Now().UTC()}
			owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: ds.ID, OrgID: h.admin.OrgID, UserID: h.admin.UserID,
				Role: store.DatasetOwner, CreatedAt: ds.CreatedAt}
			rows := []store.NewDatasetRow{{RowID: uuid.NewString(), Values: []any{"q0"}}, {RowID: uuid.NewString(), Values: []any{"q1"}}}
			if _, err := store.CreateDataset(t.Context(), h.d.Table, ds, owner, rows); err != nil {
				t.Fatal(err)
			}
			path := "/v2/projects/" + project.ID + "/experiments"
			h.do("POST", path, `{"name":"run","dataset":{"dataset_id":"`+ds.ID+`","version_index":0},"prompt_model":"gen-1",`+
				`"prompt_template":"Q: {{input}}","trigger":true}`, &exp)
			h.drain()
			var found struct {
				Records []struct {
					StatusCode *float64 `json:"status_code"`
				} `json:"records"`
			}
			h.do("POST", "/v2/projects/"+project.ID+"/traces/search", `{"experiment_id":"`+exp.ID+`"}`, &found)
			if len(found.Records) != 2 {
				t.Fatalf("%d traces, want 2", len(found.Records))
			}
			for _, r := range found.Records {
				if r.StatusCode == nil {
					t.Errorf("status_code null, want %v", tc.want)
				} else if *r.StatusCode != tc.want {
					t.Errorf("status_code %v, want %v", *r.StatusCode, tc.want)
				}
			}
		})
	}
}
