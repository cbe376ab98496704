package experiments

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// TestClientJobs: the original client's run_experiment creates an experiment with nothing
// to run, then POST /jobs playground_run names the dataset, the template version, the
// model (prompt_settings.model_alias) and the scorers; the job runs and reads back as JobDB
// by its id and in its run's list.
func TestClientJobs(t *testing.T) {
	h := newHarness(t, nil)
	u := &h.org.User
	pid := h.project(h.org)
	ds := h.dataset(u, 6)
	tmpl := h.must(u, "POST", "/v2/projects/"+pid+"/templates", `{"name":"qa","template":"Q: {{input}}"}`)
	version := tmpl["selected_version"].(map[string]any)["id"].(string)
	exp := h.must(u, "POST", experimentsPath(pid), `{"name":"client run","task_type":16}`)
	eid := exp["id"].(string)
	scorer := uuid.NewString()

	body := `{"project_id":"` + pid + `","run_id":"` + eid + `","job_name":"playground_run","dataset_id":"` + ds + `",
		"prompt_template_version_id":"` + version + `","task_type":16,"prompt_settings":{"model_alias":"m1","temperature":0.2},
		"scorers":[{"id":"` + scorer + `","name":"quality"}]}`
	job := h.must(u, "POST", "/v2/jobs", body)
	jobID, _ := job["job_id"].(string)
	if jobID == "" || job["run_id"] != eid || job["job_name"] != "playground_run" || job["task_type"] != 16.0 ||
		!strings.Contains(job["link"].(string), jobID) {
		t.Fatalf("created job: %v", job)
	}
	h.queue.drain(t, &exprun.Worker{Table: h.tbl, Model: echoModel{}, Traces: records.RunnerTraces{Table: h.tbl}})

	got := h.must(u, "GET", "/v2/jobs/"+jobID, "")
	if got["status"] != "completed" || got["job_name"] != "playground_run" || got["run_id"] != eid || got["project_id"] != pid ||
		got["steps_total"] != 6.0 || got["steps_completed"] != 6.0 || got["progress_percent"] != 100.0 || got["completed_at"] == nil ||
		got["request_data"].(map[string]any)["model_alias"] != "m1" {
		t.Errorf("job read: %v", got)
	}
	stored, err := store.GetExperiment(t.Context(), h.tbl, h.org.ID, pid, eid)
	if err != nil || stored.Dataset == nil || stored.Dataset.DatasetID != ds || len(stored.Scorers) != 1 ||
		stored.PromptRunSettings["model_alias"] != "m1" || stored.JobID != jobID {
		t.Errorf("the experiment after the job: %+v, %v", stored, err)
	}
	// A second job supersedes the first as the experiment's latest; both stay in its run's
	// list, newest first.
	h.clock.Advance(time.Minute)
	second, _ := h.must(u, "POST", "/v2/jobs", body)["job_id"].(string)
	if second == "" || second == jobID {
		t.Fatalf("second job %q (first %q)", second, jobID)
	}
	runJobs := "/v2/projects/" + pid + "/runs/" + eid + "/jobs"
	for _, tc := range []struct {
		query string
		ids   []string
	}{{"", []string{second, jobID}}, {"?status=completed", []string{jobID}}, {"?status=unstarted", []string{second}}, {"?status=failed", nil}} {
		code, resp := h.do(u, "GET", runJobs+tc.query, "")
		var got []string
		for _, j := range decodeList(t, resp) {
			got = append(got, j["id"].(string))
		}
		if code != 200 || strings.Join(got, ",") != strings.Join(tc.ids, ",") {
			t.Errorf("%s: %d %s, want the jobs %v", tc.query, code, resp, tc.ids)
		}
	}

	// A log stream's evaluate jobs are its run's jobs.
	now := h.clock.Now()
	ls := store.LogStream{ID: uuid.NewString(), ProjectID: pid, OrgID: h.org.ID, Name: "prod", CreatedBy: u.UserID, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateLogStream(t.Context(), h.tbl, ls); err != nil {
		t.Fatal(err)
	}
	ej := store.EvalJob{ID: store.EvalJobID(ls.ID, now.Add(-time.Hour), now, []string{scorer}), OrgID: h.org.ID, ProjectID: pid, RunID: ls.ID,
		Start: now.Add(-time.Hour), End: now, ScorerIDs: []string{scorer}, CreatedBy: u.UserID, CreatedAt: now,
		Status: store.EvalJobDispatched, Sent: 4, Done: 2}
	if _, _, err := store.CreateEvalJob(t.Context(), h.tbl, ej); err != nil {
		t.Fatal(err)
	}
	code, resp := h.do(u, "GET", "/projects/"+pid+"/runs/"+ls.ID+"/jobs", "")
	if code != 200 || !strings.Contains(resp, `"job_name":"log_stream_scorer"`) || !strings.Contains(resp, `"status":"in_progress"`) ||
		!strings.Contains(resp, `"progress_percent":50`) {
		t.Errorf("the log stream's jobs: %d %s", code, resp)
	}
	// The evaluate job by its id alone (through its pointer), and not for another organization.
	if got := h.must(u, "GET", "/v2/jobs/"+ej.ID, ""); got["job_name"] != "log_stream_scorer" || got["run_id"] != ls.ID ||
		got["project_id"] != pid || got["steps_total"] != 4.0 || got["status"] != "in_progress" {
		t.Errorf("the evaluate job by id: %v", got)
	}
	if code, resp := h.do(&h.other.User, "GET", "/v2/jobs/"+ej.ID, ""); code != 404 {
		t.Errorf("another organization's evaluate job: %d %s", code, resp)
	}

	for _, tc := range []struct {
		name   string
		who    *authtest.User
		method string
		path   string
		body   string
		status int
		want   string
	}{
		{"no credentials", nil, "POST", "/v2/jobs", body, 401, ""},
		{"read-only", &h.org.ReadOnly, "POST", "/v2/jobs", body, 403, ""},
		{"another organization", &h.other.User, "POST", "/v2/jobs", body, 404, ""},
		{"unknown experiment", u, "POST", "/v2/jobs", strings.Replace(body, eid, uuid.NewString(), 1), 404, ""},
		{"the client's default job", u, "POST", "/v2/jobs", `{"project_id":"` + pid + `","run_id":"` + eid + `"}`, 422, "only the jobs playground_run"},
		{"another job", u, "POST", "/v2/jobs", `{"project_id":"` + pid + `","run_id":"` + eid + `","job_name":"monitor"}`, 422, `"loc":["body","job_name"]`},
		{"no ids", u, "POST", "/v2/jobs", `{"job_name":"playground_run"}`, 422, `"loc":["body","project_id"]`},
		{"job read, no credentials", nil, "GET", "/v2/jobs/" + jobID, "", 401, ""},
		{"job read, another organization", &h.other.User, "GET", "/v2/jobs/" + jobID, "", 404, ""},
		{"job read, not a uuid", u, "GET", "/v2/jobs/x", "", 422, ""},
		{"run jobs, unknown run", u, "GET", "/v2/projects/" + pid + "/runs/" + uuid.NewString() + "/jobs", "", 404, ""},
		{"run jobs, another organization", &h.other.User, "GET", runJobs, "", 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := h.do(tc.who, tc.method, tc.path, tc.body)
			if code != tc.status || !strings.Contains(resp, tc.want) {
				t.Errorf("%d %s, want %d with %s", code, resp, tc.status, tc.want)
			}
		})
	}
}

// decodeList decodes a JSON array of objects (none when resp is not one: the caller's
// comparison then fails).
func decodeList(t *testing.T, resp string) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal([]byte(resp), &out); err != nil {
		t.Errorf("not a list: %s: %v", resp, err)
	}
	return out
}
