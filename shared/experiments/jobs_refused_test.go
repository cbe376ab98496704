package experiments

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

// TestClientJobRefusedKeepsSettings: POST /jobs sets the experiment's run only with the job
// that runs it, so a start refused (a job still queued, a deployment without a queue) leaves
// the dataset, the template version, the settings and the scorers as they were.
func TestClientJobRefusedKeepsSettings(t *testing.T) {
	h := newHarness(t, nil)
	u := &h.org.User
	pid := h.project(h.org)
	ds, other := h.dataset(u, 3), h.dataset(u, 2)
	tmpl := h.must(u, "POST", "/v2/projects/"+pid+"/templates", `{"name":"qa","template":"Q: {{input}}"}`)
	version := tmpl["selected_version"].(map[string]any)["id"].(string)
	eid := h.must(u, "POST", experimentsPath(pid), `{"name":"client run","task_type":16}`)["id"].(string)
	jobBody := func(dataset, model, scorer string) string {
		return `{"project_id":"` + pid + `","run_id":"` + eid + `","job_name":"playground_run","dataset_id":"` + dataset + `",
			"prompt_template_version_id":"` + version + `","prompt_settings":{"model_alias":"` + model + `"},
			"scorers":[{"id":"` + scorer + `","name":"quality"}]}`
	}
	first := uuid.NewString()
	h.must(u, "POST", "/v2/jobs", jobBody(ds, "m1", first)) // queued: never drained
	want, err := store.GetExperiment(t.Context(), h.tbl, h.org.ID, pid, eid)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name   string
		body   string
		noRuns bool
		status int
		want   string
	}{
		{"a job still queued", jobBody(other, "m2", uuid.NewString()), false, 409, "queued or running"},
		{"a deployment without a queue", jobBody(other, "m3", uuid.NewString()), true, 503, "no queue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.clock.Advance(time.Minute) // a write would stamp a new updated_at
			if tc.noRuns {
				h.counting() // the group mounted again without a runner
			}
			code, resp := h.do(u, "POST", "/v2/jobs", tc.body)
			if code != tc.status || !strings.Contains(resp, tc.want) {
				t.Fatalf("%d %s, want %d with %s", code, resp, tc.status, tc.want)
			}
			got, err := store.GetExperiment(t.Context(), h.tbl, h.org.ID, pid, eid)
			if err != nil {
				t.Fatal(err)
			}
			if got.Dataset == nil || got.Dataset.DatasetID != ds || got.PromptRunSettings["model_alias"] != "m1" ||
				len(got.Scorers) != 1 || got.Scorers[0].ID != first || !got.UpdatedAt.Equal(want.UpdatedAt) ||
				got.JobID != want.JobID || !reflect.DeepEqual(got.PromptMessages, want.PromptMessages) {
				t.Errorf("the experiment after a refused start: dataset %+v, settings %v, scorers %+v, updated %v, job %s; want %s, m1, %s, %v, %s",
					got.Dataset, got.PromptRunSettings, got.Scorers, got.UpdatedAt, got.JobID, ds, first, want.UpdatedAt, want.JobID)
			}
		})
	}
}
