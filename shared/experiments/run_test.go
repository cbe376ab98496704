package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// memQueue keeps sent chunk messages until a test drains them through a worker.
type memQueue struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (q *memQueue) Send(_ context.Context, bodies [][]byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.msgs = append(q.msgs, bodies...)
	return nil
}

// drain hands every message to w until none is left (a failed one goes again).
func (q *memQueue) drain(t *testing.T, w *exprun.Worker) {
	t.Helper()
	for range 10000 {
		q.mu.Lock()
		if len(q.msgs) == 0 {
			q.mu.Unlock()
			return
		}
		m := q.msgs[0]
		q.msgs = q.msgs[1:]
		q.mu.Unlock()
		if err := w.HandleChunk(t.Context(), m); err != nil {
			t.Logf("redelivered after: %v", err)
			_ = q.Send(t.Context(), [][]byte{m})
		}
	}
	t.Fatal("the queue never drained")
}

// echoModel answers every prompt with its last message, upper-cased.
type echoModel struct{}

func (echoModel) Complete(_ context.Context, c exprun.Completion) (exprun.Answer, error) {
	last := c.Messages[len(c.Messages)-1].Content
	return exprun.Answer{Text: strings.ToUpper(last) + " via " + c.ModelName, InputTokens: 10, OutputTokens: 5}, nil
}

// hashScoring scores by a hash of the metric's name and the trace id.
type hashScoring struct {
	tbl   store.Table
	names map[string]string
}

func (s hashScoring) Score(ctx context.Context, req exprun.ScoreRequest) error {
	for _, id := range req.TraceIDs {
		m := map[string]store.MetricValue{}
		for _, sid := range req.ScorerIDs {
			h := fnv.New32a()
			h.Write([]byte(s.names[sid] + id))
			v := float64(h.Sum32()%100) / 100
			m[s.names[sid]] = store.MetricValue{Number: &v}
		}
		if err := records.SetTraceMetrics(ctx, s.tbl, req.RunID, id, m, testNow); err != nil {
			return err
		}
	}
	return nil
}

// dataset creates a dataset of n rows (input, output, topic) owned by who.
func (h *harness) dataset(who *authtest.User, n int) string {
	h.t.Helper()
	d := store.Dataset{ID: uuid.NewString(), OrgID: who.OrgID, Name: "qa-" + uuid.NewString()[:6], ColumnNames: []string{"input", "output", "topic"},
		CreatedBy: who.UserID, CreatedAt: testNow}
	rows := make([]store.NewDatasetRow, n)
	for i := range rows {
		rows[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: []any{fmt.Sprint("q", i), fmt.Sprint("a", i), "geo"}}
	}
	owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: d.ID, OrgID: who.OrgID, UserID: who.UserID, Role: store.DatasetOwner, CreatedAt: testNow}
	if _, err := store.CreateDataset(h.t.Context(), h.tbl, d, owner, rows); err != nil {
		h.t.Fatal(err)
	}
	return d.ID
}

func (h *harness) must(who *authtest.User, method, path, body string) map[string]any {
	h.t.Helper()
	code, resp := h.do(who, method, path, body)
	if code != http.StatusOK {
		h.t.Fatalf("%s %s: %d %s", method, path, code, resp)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(resp), &out); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// TestRunThroughTheRoutes: templates and their versions, experiments started by trigger
// on a template version and on an inline prompt, their jobs, operation 12's progress and
// aggregates, the comparison, and the job controls.
func TestRunThroughTheRoutes(t *testing.T) {
	h := newHarness(t, nil)
	u := &h.org.User
	pid := h.project(h.org)
	ds := h.dataset(u, 40)
	tp := "/v2/projects/" + pid + "/templates"

	tmpl := h.must(u, "POST", tp, `{"name":"qa","template":[{"role":"system","content":"About {{topic}}."},{"role":"user","content":"{{ input }}"}],"settings":{"temperature":0.1}}`)
	tid := tmpl["id"].(string)
	v0 := tmpl["selected_version"].(map[string]any)
	if v0["version"] != 0.0 || tmpl["total_versions"] != 1.0 || tmpl["template"] == "" {
		t.Fatalf("created template: %v", tmpl)
	}
	v1 := h.must(u, "POST", tp+"/"+tid+"/versions", `{"template":"Q: {{input}} in {{lang}}"}`)
	if v1["version"] != 1.0 || v1["content_changed"] != true || v1["settings_changed"] != true {
		t.Fatalf("version 1: %v", v1)
	}
	got := h.must(u, "GET", tp+"/"+tid, "")
	if got["max_version"] != 1.0 || got["selected_version_id"] != v1["id"] || fmt.Sprint(got["all_available_versions"]) != "[0 1]" {
		t.Fatalf("template after a version: %v", got)
	}
	if sel := h.must(u, "PUT", tp+"/"+tid+"/versions/0", ""); sel["selected_version_id"] != v0["id"] {
		t.Fatalf("select version 0: %v", sel)
	}
	if code, _ := h.do(u, "PUT", tp+"/"+tid+"/versions/7", ""); code != 404 {
		t.Errorf("select a version that does not exist: %d", code)
	}
	if list := h.must(u, "GET", tp+"/"+tid+"/versions/1", ""); list["template"] != "Q: {{input}} in {{lang}}" {
		t.Errorf("version 1 read back: %v", list)
	}

	scorers := `[{"id":"` + uuid.NewString() + `","name":"quality"},{"id":"` + uuid.NewString() + `","name":"tone"}]`
	var sc []store.ScorerConfig
	_ = json.Unmarshal([]byte(scorers), &sc)
	names := map[string]string{sc[0].ID: "quality", sc[1].ID: "tone"}
	dsRef := `"dataset":{"dataset_id":"` + ds + `","version_index":0}`

	code, body := h.do(u, "POST", experimentsPath(pid), `{"name":"bad",`+dsRef+`,"prompt_model":"m1","trigger":true,"prompt_template_version_id":"`+v1["id"].(string)+`"}`)
	if code != 422 || !strings.Contains(body, "[lang]") {
		t.Fatalf("a variable that is no column: %d %s", code, body)
	}
	a := h.must(u, "POST", experimentsPath(pid), `{"name":"A",`+dsRef+`,"prompt_model":"m1","trigger":true,"scorers":`+scorers+`,"prompt_template_version_id":"`+v0["id"].(string)+`"}`)
	// B names its model as the original's clients do, in prompt_settings.model_alias.
	b := h.must(u, "POST", experimentsPath(pid), `{"name":"B",`+dsRef+`,"prompt_settings":{"model_alias":"m2"},"trigger":true,"scorers":`+scorers+`,"prompt_template":"Say {{input}}","token_budget":100000}`)
	if a["job_id"] == nil || b["job_id"] == nil || a["prompt"].(map[string]any)["version_index"] != 0.0 {
		t.Fatalf("triggered experiments: %v\n%v", a, b)
	}
	h.queue.drain(t, &exprun.Worker{Table: h.tbl, Model: echoModel{}, Scoring: hashScoring{tbl: h.tbl, names: names},
		Traces: records.RunnerTraces{Table: h.tbl}})

	jobPath := func(e map[string]any) string {
		return experimentsPath(pid) + "/" + e["id"].(string) + "/jobs/" + e["job_id"].(string)
	}
	job := h.must(u, "GET", jobPath(a), "")
	if job["state"] != "completed" || job["rows_done"] != 40.0 || job["progress_percent"] != 100.0 ||
		job["scoring"].(map[string]any)["progress_percent"] != 100.0 {
		t.Fatalf("job: %v", job)
	}
	listed := map[string]map[string]any{}
	for _, e := range h.list(u, pid, "?include_counts=true") {
		listed[e["name"].(string)] = e
	}
	for _, name := range []string{"A", "B"} {
		e := listed[name]
		st := e["status"].(map[string]any)["log_generation"].(map[string]any)
		if st["progress_percent"] != 100.0 || e["num_traces"] != 40.0 || e["aggregate_metrics"].(map[string]any)["quality"] == nil {
			t.Errorf("%s as listed: %v", name, e)
		}
	}

	cmp := h.must(u, "POST", experimentsPath(pid)+"/compare", `{"experiment_ids":["`+a["id"].(string)+`","`+b["id"].(string)+`"],"limit":15}`)
	rows := cmp["rows"].([]any)
	if len(rows) != 15 || cmp["next_starting_token"] != 15.0 || len(cmp["experiments"].([]any)) != 2 {
		t.Fatalf("compare: %v", cmp)
	}
	r0 := rows[0].(map[string]any)
	ra := r0["results"].(map[string]any)[a["id"].(string)].(map[string]any)
	rb := r0["results"].(map[string]any)[b["id"].(string)].(map[string]any)
	if r0["index"] != 0.0 || ra["output"] != "Q0 via m1" || rb["output"] != "SAY Q0 via m2" || ra["metrics"].(map[string]any)["tone"] == nil {
		t.Errorf("row 0 compared: %v", r0)
	}
	if code, body := h.do(u, "POST", experimentsPath(pid)+"/compare", `{"experiment_ids":["`+a["id"].(string)+`"]}`); code != 422 {
		t.Errorf("compare one experiment: %d %s", code, body)
	}

	// Controls: a finished job has nothing to retry; a new start runs; a cancel stops it.
	if code, _ := h.do(u, "POST", jobPath(a)+"/retry", ""); code != 409 {
		t.Errorf("retry a job without failed rows: %d", code)
	}
	again := h.must(u, "POST", experimentsPath(pid)+"/"+a["id"].(string)+"/start", `{}`)
	if code, _ := h.do(u, "POST", experimentsPath(pid)+"/"+a["id"].(string)+"/start", ""); code != 409 {
		t.Errorf("a second start while one is queued: %d", code)
	}
	cancelled := h.must(u, "POST", experimentsPath(pid)+"/"+a["id"].(string)+"/jobs/"+again["id"].(string)+"/cancel", "")
	if cancelled["state"] != "cancelled" {
		t.Errorf("cancel: %v", cancelled)
	}
	if code, _ := h.do(&h.other.Admin, "GET", jobPath(a), ""); code != 404 {
		t.Errorf("another organization reads the job: %d", code)
	}
	if code, _ := h.do(&h.org.ReadOnly, "POST", jobPath(a)+"/cancel", ""); code != 403 {
		t.Errorf("a read-only user cancels: %d", code)
	}
}

// TestTemplateVersionsUnderConcurrency: versions added at once are numbered 1..n, each once.
func TestTemplateVersionsUnderConcurrency(t *testing.T) {
	h := newHarness(t, nil)
	u := &h.org.User
	pid := h.project(h.org)
	tp := "/v2/projects/" + pid + "/templates"
	tid := h.must(u, "POST", tp, `{"name":"t","template":"hi {{x}}"}`)["id"].(string)
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			code, body := h.do(u, "POST", tp+"/"+tid+"/versions", fmt.Sprintf(`{"template":"v%d"}`, i))
			if code != 200 {
				t.Errorf("version %d: %d %s", i, code, body)
			}
		})
	}
	wg.Wait()
	got := h.must(u, "GET", tp+"/"+tid, "")
	if fmt.Sprint(got["all_available_versions"]) != "[0 1 2 3 4 5 6 7 8]" || got["total_versions"] != float64(n+1) {
		t.Errorf("versions: %v", got["all_available_versions"])
	}
	if code, body := h.do(u, "POST", tp, `{"name":"t","template":"dup"}`); code != 422 || !strings.Contains(body, "already exists") {
		t.Errorf("a second template of one name: %d %s", code, body)
	}
	if code, body := h.do(u, "POST", tp, `{"name":"x","template":[{"role":"robot","content":1}]}`); code != 422 ||
		!strings.Contains(body, `"loc":["body","template",0,"role"]`) || !strings.Contains(body, `"loc":["body","template",0,"content"]`) {
		t.Errorf("bad messages: %d %s", code, body)
	}
}
