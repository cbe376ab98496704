package projects

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

type projectView struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Type          string `json:"type"`
	CreatedByUser struct {
		ID    string `json:"id"`
		Email string `json:"email"`
	} `json:"created_by_user"`
	Runs []struct {
		ID         string                            `json:"id"`
		Name       string                            `json:"name"`
		TaskType   *int64                            `json:"task_type"`
		NumSamples int64                             `json:"num_samples"`
		RunTags    []struct{ Key, Value, ID string } `json:"run_tags"`
		Creator    struct {
			Email            string `json:"email"`
			OrganizationID   string `json:"organization_id"`
			OrganizationName string `json:"organization_name"`
		} `json:"creator"`
	} `json:"runs"`
}

func names(ps []projectView) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return strings.Join(out, ",")
}

// The client finds projects by name and type, lists them all, and pages through them with
// filters and sorts; a project shows its creator and its runs (log streams and experiments).
func TestListAndFindProjects(t *testing.T) {
	h := newHarness(t)
	user, stranger := &h.org.User, &h.other.User
	for _, p := range []string{`{"name":"alpha"}`, `{"name":"beta","type":"llm_monitor"}`, `{"name":"gamma","type":"protect"}`} {
		h.advance(time.Minute) // distinct creation times: newest first
		h.must(user, "POST", "/v2/projects", p, nil)
	}
	h.must(stranger, "POST", "/v2/projects", `{"name":"alpha"}`, nil)
	var all []projectView
	h.must(user, "GET", "/projects", "", &all)
	if names(all) != "gamma,beta,alpha" {
		t.Fatalf("GET /projects: %s", names(all))
	}
	var one []projectView
	h.must(user, "GET", "/v2/projects?project_name=beta", "", &one)
	if names(one) != "beta" || one[0].Type != "llm_monitor" || one[0].CreatedByUser.Email != user.Email {
		t.Errorf("by name: %+v", one)
	}
	h.must(user, "GET", "/v2/projects?project_name=beta&type=gen_ai", "", &one)
	if len(one) != 0 {
		t.Errorf("by name and another type: %+v", one)
	}
	h.must(user, "GET", "/v2/projects?project_name=nope", "", &one)
	if len(one) != 0 {
		t.Errorf("unknown name: %+v", one)
	}
	var thin []map[string]any
	h.must(user, "GET", "/v2/projects/all?type=protect", "", &thin)
	if len(thin) != 1 || thin[0]["name"] != "gamma" || thin[0]["created_by_user"] != nil || thin[0]["runs"] == nil {
		t.Errorf("all of type protect: %v", thin)
	}

	// Runs: a log stream and a tagged experiment of beta.
	beta := all[1].ID
	ls := h.logStream(user, beta, "prod")
	exp := store.Experiment{ID: "6f1e2d3c-4b5a-4968-8776-554433221100", ProjectID: beta, OrgID: h.org.ID, Name: "exp",
		TaskType: 16, CreatedBy: user.UserID, CreatedAt: h.now.Add(time.Hour), UpdatedAt: h.now.Add(time.Hour),
		Tags: map[string]string{"suite": "nightly"}}
	if err := store.CreateExperiment(t.Context(), h.tbl, exp); err != nil {
		t.Fatal(err)
	}
	var p projectView
	h.must(user, "GET", "/v2/projects/"+beta, "", &p)
	if len(p.Runs) != 2 || p.Runs[0].ID != ls || p.Runs[0].TaskType != nil || p.Runs[1].ID != exp.ID ||
		p.Runs[1].TaskType == nil || *p.Runs[1].TaskType != 16 || len(p.Runs[1].RunTags) != 1 ||
		p.Runs[1].RunTags[0].Key != "suite" || p.Runs[1].Creator.OrganizationID != h.org.ID || p.Runs[1].Creator.Email != user.Email {
		t.Errorf("runs of beta: %+v", p.Runs)
	}
	var again projectView
	h.must(user, "GET", "/v2/projects/"+beta, "", &again)
	if again.Runs[1].RunTags[0].ID != p.Runs[1].RunTags[0].ID {
		t.Error("a tag's id changes between reads")
	}

	for _, tc := range []struct{ name, query, body, want string }{
		{"default: newest first", "", `{}`, "gamma,beta,alpha"},
		{"no body", "", ``, "gamma,beta,alpha"},
		{"by name, case-insensitive", "", `{"filters":[{"name":"name","operator":"contains","value":"A","case_sensitive":false}]}`, "gamma,beta,alpha"},
		{"by name, case-sensitive", "", `{"filters":[{"name":"name","operator":"contains","value":"A"}]}`, ""},
		{"by type", "", `{"filters":[{"name":"type","operator":"one_of","value":["gen_ai","protect"]}]}`, "gamma,alpha"},
		{"with runs", "", `{"filters":[{"name":"runs","operator":"gte","value":1}]}`, "beta"},
		{"by name ascending", "", `{"sort":{"name":"name","ascending":true}}`, "alpha,beta,gamma"},
		{"by runs descending", "", `{"sort":{"name":"runs","ascending":false,"sort_type":"custom"}}`, "beta,gamma,alpha"},
		{"a page", "?starting_token=1&limit=1", `{"sort":{"name":"name"}}`, "beta"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var page struct {
				Projects          []projectView `json:"projects"`
				NextStartingToken *int          `json:"next_starting_token"`
				Paginated         bool          `json:"paginated"`
			}
			h.must(user, "POST", "/v2/projects/paginated"+tc.query, tc.body, &page)
			if names(page.Projects) != tc.want {
				t.Errorf("got %s, want %s", names(page.Projects), tc.want)
			}
			if tc.query != "" && (page.NextStartingToken == nil || *page.NextStartingToken != 2 || !page.Paginated) {
				t.Errorf("next_starting_token %v paginated %v", page.NextStartingToken, page.Paginated)
			}
		})
	}
	for _, tc := range []struct{ name, body, want string }{
		{"unknown filter", `{"filters":[{"name":"colour","value":"x"}]}`,
			`{"detail":[{"type":"union_tag_invalid","loc":["body","filters",0],"msg":"Input tag 'colour' found using 'name' does not match any of the expected tags: 'id', 'name', 'type', 'creator', 'created_at', 'updated_at', 'runs', 'bookmark'","input":{"name":"colour","value":"x"},"ctx":{"discriminator":"'name'","tag":"colour","expected_tags":"'id', 'name', 'type', 'creator', 'created_at', 'updated_at', 'runs', 'bookmark'"}}]}`},
		{"operator missing", `{"filters":[{"name":"name","value":"x"}]}`,
			`{"detail":[{"type":"missing","loc":["body","filters",0,"name","operator"],"msg":"Field required","input":{"name":"name","value":"x"}}]}`},
		{"unknown sort", `{"sort":{"name":"colour"}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(user, "POST", "/v2/projects/paginated", tc.body)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("%d %s, want 422", code, body)
			}
			if tc.want != "" {
				apitest.SameJSON(t, body, tc.want)
			}
		})
	}
}

// Deleting a project answers the original's message, frees the name, and is an editor's
// right; the project is gone for every read at once.
func TestDeleteProject(t *testing.T) {
	h := newHarness(t)
	user, ro, stranger := &h.org.User, &h.org.ReadOnly, &h.other.User
	pid := h.project(user, "doomed")
	h.logStream(user, pid, "prod")
	for _, tc := range []struct {
		who    *authtest.User
		status int
	}{{stranger, 404}, {ro, 403}} {
		if code, body := h.do(tc.who, "DELETE", "/v2/projects/"+pid, ""); code != tc.status {
			t.Errorf("delete: %d %s, want %d", code, body, tc.status)
		}
	}
	code, body := h.do(user, "DELETE", "/projects/"+pid, "")
	if code != 200 {
		t.Fatalf("delete: %d %s", code, body)
	}
	apitest.SameJSON(t, body, `{"message":"Deleted project doomed"}`)
	for _, path := range []string{"/v2/projects/" + pid, "/v2/projects/" + pid + "/log_streams"} {
		if code, _ := h.do(user, "GET", path, ""); code != 404 {
			t.Errorf("GET %s after the delete: %d", path, code)
		}
	}
	if code, _ := h.do(user, "DELETE", "/v2/projects/"+pid, ""); code != 404 {
		t.Errorf("second delete: %d", code)
	}
	h.project(user, "doomed")
}

// The log streams of a project: listed (with counts when asked), paged, searched, read,
// renamed and deleted.
func TestLogStreamOperations(t *testing.T) {
	h := newHarness(t)
	user, ro := &h.org.User, &h.org.ReadOnly
	pid := h.project(user, "p")
	var ids []string
	for _, n := range []string{"prod", "staging", "dev"} {
		h.advance(time.Minute)
		ids = append(ids, h.logStream(user, pid, n))
	}
	if err := store.AddToRunSummary(t.Context(), h.tbl, ids[0], store.RunSummary{NumTraces: 3, NumSpans: 7}, h.now); err != nil {
		t.Fatal(err)
	}
	base := "/v2/projects/" + pid + "/log_streams"
	type stream struct {
		ID            string                 `json:"id"`
		Name          string                 `json:"name"`
		NumTraces     *int64                 `json:"num_traces"`
		NumSpans      *int64                 `json:"num_spans"`
		CreatedByUser struct{ Email string } `json:"created_by_user"`
	}
	streamNames := func(s []stream) string {
		out := make([]string, len(s))
		for i, x := range s {
			out[i] = x.Name
		}
		return strings.Join(out, ",")
	}
	var list []stream
	h.must(user, "GET", base+"?include_counts=true", "", &list)
	if streamNames(list) != "prod,staging,dev" || list[0].NumTraces == nil || *list[0].NumTraces != 3 || *list[0].NumSpans != 7 ||
		list[0].CreatedByUser.Email != user.Email {
		t.Errorf("list: %+v", list)
	}
	h.must(user, "GET", strings.TrimPrefix(base, "/v2"), "", &list)
	if list[0].NumTraces != nil {
		t.Errorf("counts without include_counts: %+v", list[0])
	}
	var page struct {
		LogStreams        []stream `json:"log_streams"`
		NextStartingToken *int     `json:"next_starting_token"`
	}
	h.must(user, "GET", base+"/paginated?limit=2", "", &page)
	if streamNames(page.LogStreams) != "prod,staging" || page.NextStartingToken == nil || *page.NextStartingToken != 2 {
		t.Errorf("paginated: %+v", page)
	}
	h.must(user, "POST", base+"/search", `{"filters":[{"name":"name","operator":"eq","value":"staging"}]}`, &page)
	if streamNames(page.LogStreams) != "staging" || page.NextStartingToken != nil {
		t.Errorf("search by name: %+v", page)
	}
	h.must(user, "POST", base+"/search", `{"limit":1}`, &page)
	if streamNames(page.LogStreams) != "dev" {
		t.Errorf("search, default sort (newest first): %+v", page)
	}
	var one stream
	h.must(user, "GET", base+"/"+ids[1], "", &one)
	if one.Name != "staging" {
		t.Errorf("get: %+v", one)
	}
	if code, _ := h.do(ro, "PUT", base+"/"+ids[1], `{"name":"qa"}`); code != 403 {
		t.Errorf("rename by read-only: %d", code)
	}
	if code, body := h.do(user, "PUT", base+"/"+ids[1], `{"name":"prod"}`); code != 422 || !strings.Contains(body, "already exists") {
		t.Errorf("rename onto a taken name: %d %s", code, body)
	}
	h.must(user, "PUT", base+"/"+ids[1], `{"name":"qa"}`, &one)
	if one.Name != "qa" {
		t.Errorf("rename: %+v", one)
	}
	if code, _ := h.do(user, "DELETE", base+"/"+ids[1], ""); code != http.StatusNoContent {
		t.Errorf("delete: %d", code)
	}
	for _, m := range []string{"GET", "DELETE"} {
		if code, _ := h.do(user, m, base+"/"+ids[1], ""); code != 404 {
			t.Errorf("%s after the delete: %d", m, code)
		}
	}
	h.must(user, "GET", base, "", &list)
	if streamNames(list) != "prod,dev" {
		t.Errorf("after the delete: %s", streamNames(list))
	}

}
