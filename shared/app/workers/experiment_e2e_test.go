package workers_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/provider/providertest"
	"github.com/evalobs/evalapi/shared/store"
)

var (
	rowQuestion = regexp.MustCompile(`Q: q(\d+)\b`)
	rowAnswer   = regexp.MustCompile(`A(\d+)\b`)
)

// TestExperimentEndToEnd: the local host's wiring with the stub provider for both the rows'
// model and the judges. A 1,000-row dataset, a template and two judge scorers → a job that
// generates 1,000 traces (one model call each), each judged once by both scorers through the
// stream's dispatcher; progress reaches exactly 100, scoring 100, and operation 12's
// aggregates equal the reference the test computes from what the stub answered.
func TestExperimentEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: 1,000 rows generated and judged twice through the stub provider")
	}
	const n = 1000
	stub := providertest.New(t)
	stub.Handle("gen-1", func(c providertest.Call) providertest.Reply {
		for _, m := range c.Messages {
			if g := rowQuestion.FindStringSubmatch(m.Content); g != nil {
				return providertest.Answer("A" + g[1])
			}
		}
		return providertest.Answer("no question")
	})
	// quality: answers to even rows are good; tone: rows divisible by 3 are polite.
	stub.Handle("judge-1", func(c providertest.Call) providertest.Reply {
		var row int
		polite := false
		for _, m := range c.Messages {
			if g := rowAnswer.FindStringSubmatch(m.Content); g != nil {
				row, _ = strconv.Atoi(g[1])
			}
			polite = polite || strings.Contains(m.Content, "polite")
		}
		v := row%2 == 0
		if polite {
			v = row%3 == 0
		}
		return providertest.Answer(fmt.Sprintf(`{"explanation":"row %d","rating":%t}`, row, v))
	})
	h := newE2EHost(t)
	h.do("PUT", "/v2/integrations/custom", `{"endpoint":"`+stub.URL+`","models":["gen-1","judge-1"],"authentication_type":"none",`+
		`"model_prices":{"gen-1":{"input_per_million":1,"output_per_million":2}}}`, nil)
	var quality, tone, project struct{ ID string }
	h.do("POST", "/v2/scorers", `{"name":"quality","scorer_type":"llm","output_type":"boolean"}`, &quality)
	h.do("POST", "/v2/scorers/"+quality.ID+"/version/decision", `{"question":"Is the answer good?","model_name":"judge-1"}`, nil)
	h.do("POST", "/v2/scorers", `{"name":"tone","scorer_type":"llm","output_type":"boolean"}`, &tone)
	h.do("POST", "/v2/scorers/"+tone.ID+"/version/decision", `{"question":"Is the answer polite?","model_name":"judge-1"}`, nil)
	h.do("POST", "/v2/projects", `{"name":"experiments-e2e"}`, &project)

	ds := store.Dataset{ID: uuid.NewString(), OrgID: h.admin.OrgID, Name: "qa", ColumnNames: []string{"input", "output"},
		CreatedBy: h.admin.UserID, CreatedAt: time.Now().UTC()}
	rows := make([]store.NewDatasetRow, n)
	for i := range rows {
		rows[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: []any{fmt.Sprint("q", i), fmt.Sprint("A", i)}}
	}
	owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: ds.ID, OrgID: h.admin.OrgID, UserID: h.admin.UserID,
		Role: store.DatasetOwner, CreatedAt: ds.CreatedAt}
	if _, err := store.CreateDataset(t.Context(), h.d.Table, ds, owner, rows); err != nil {
		t.Fatal(err)
	}

	var exp struct {
		ID    string `json:"id"`
		JobID string `json:"job_id"`
	}
	path := "/v2/projects/" + project.ID + "/experiments"
	h.do("POST", path, `{"name":"run","dataset":{"dataset_id":"`+ds.ID+`","version_index":0},"prompt_model":"gen-1",`+
		`"prompt_template":"Q: {{input}}","trigger":true,"scorers":[{"id":"`+quality.ID+`","name":"quality"},{"id":"`+tone.ID+`","name":"tone"}]}`, &exp)
	h.drain()

	var job struct {
		State    string `json:"state"`
		Done     int64  `json:"rows_done"`
		Failed   int64  `json:"rows_failed"`
		Progress int64  `json:"progress_percent"`
		Scoring  struct {
			Progress int64 `json:"progress_percent"`
			Scored   int64 `json:"rows_scored"`
		} `json:"scoring"`
	}
	h.do("GET", path+"/"+exp.ID+"/jobs/"+exp.JobID, "", &job)
	if job.State != "completed" || job.Done != n || job.Failed != 0 || job.Progress != 100 || job.Scoring.Progress != 100 || job.Scoring.Scored != n {
		t.Errorf("job %+v, want completed with %d rows done and scored", job, n)
	}
	if g, j := len(stub.CallsFor("gen-1")), len(stub.CallsFor("judge-1")); g != n || j != 2*n {
		t.Errorf("the stub answered %d rows and %d judgments, want %d and %d", g, j, n, 2*n)
	}

	var listed []map[string]any
	h.do("GET", path, "", &listed)
	if len(listed) != 1 {
		t.Fatalf("experiments listed: %v", listed)
	}
	agg, _ := listed[0]["aggregate_metrics"].(map[string]any)
	want := map[string]float64{"quality": float64((n + 1) / 2), "tone": float64((n + 2) / 3)} // trues among rows 0..n-1
	structured, _ := listed[0]["structured_aggregate_metrics"].(map[string]any)
	for name, trues := range want {
		m, _ := structured[name].(map[string]any)
		if m["count"] != float64(n) || m["sum"] != trues || agg[name] != trues/n {
			t.Errorf("%s aggregates %v (average %v), want count %d, %v true, average %v", name, m, agg[name], n, trues, trues/n)
		}
	}
	if st := listed[0]["status"].(map[string]any)["log_generation"].(map[string]any); st["progress_percent"] != 100.0 {
		t.Errorf("operation 12's progress %v", st)
	}
}
