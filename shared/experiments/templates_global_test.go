package experiments

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

// globalTemplate creates a template through POST /v2/templates (in the project, or of the
// organization when projectID is "") and returns its id.
func (h *harness) globalTemplate(who *authtest.User, projectID, name, template string) string {
	h.t.Helper()
	path := "/v2/templates"
	if projectID != "" {
		path += "?project_id=" + projectID
	}
	return h.must(who, "POST", path, fmt.Sprintf(`{"name":%q,"template":%q}`, name, template))["id"].(string)
}

func TestGlobalTemplatesAreTheProjectTemplates(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		h := newHarness(t, tbl)
		u := &h.org.User
		pid := h.project(h.org)
		// Created by the project route, read by the global one, and the other way round.
		byProject := h.must(u, "POST", "/v2/projects/"+pid+"/templates", `{"name":"p","template":"hi {{x}}"}`)["id"].(string)
		if got := h.must(u, "GET", "/templates/"+byProject, ""); got["name"] != "p" || got["template"] != "hi {{x}}" {
			t.Errorf("a project template read globally: %v", got)
		}
		byGlobal := h.globalTemplate(u, pid, "g", "yo {{y}}")
		if got := h.must(u, "GET", "/v2/projects/"+pid+"/templates/"+byGlobal, ""); got["name"] != "g" {
			t.Errorf("a global template read by its project: %v", got)
		}
		// An organization template is no project's, and its name is its own.
		org := h.globalTemplate(u, "", "g", "org {{z}}")
		code, body := h.do(u, "GET", "/v2/projects/"+pid+"/templates", "")
		if code != 200 || strings.Contains(body, org) || !strings.Contains(body, byGlobal) {
			t.Errorf("project list: %d %s", code, body)
		}
		if code, body := h.do(u, "POST", "/v2/templates", `{"name":"g","template":"again"}`); code != 422 || !strings.Contains(body, "already exists") {
			t.Errorf("a second organization template named g: %d %s", code, body)
		}
		// Versions through the global routes, seen by the project's.
		v := h.must(u, "POST", "/v2/templates/"+org+"/versions", `{"template":"org v1 {{z}}"}`)
		if v["version"] != float64(1) || v["content_changed"] != true {
			t.Errorf("new version: %v", v)
		}
		if got := h.must(u, "GET", "/v2/templates/"+org+"/versions/0", ""); got["template"] != "org {{z}}" {
			t.Errorf("version 0: %v", got)
		}
		if got := h.must(u, "PUT", "/v2/templates/"+org+"/versions/0", ""); got["template"] != "org {{z}}" || got["max_version"] != float64(1) {
			t.Errorf("select version 0: %v", got)
		}
		page := h.must(u, "POST", "/v2/templates/"+org+"/versions/query?limit=1", `{"sort":{"name":"version","ascending":false}}`)
		vs := page["versions"].([]any)
		if len(vs) != 1 || vs[0].(map[string]any)["version"] != float64(1) || page["next_starting_token"] != float64(1) {
			t.Errorf("versions query: %v", page)
		}
		// Renamed; the old name is free again.
		if got := h.must(u, "PATCH", "/v2/templates/"+org, `{"name":"renamed"}`); got["name"] != "renamed" {
			t.Errorf("rename: %v", got)
		}
		h.globalTemplate(u, "", "g", "the name is free")
		if code, body := h.do(u, "PATCH", "/v2/templates/"+org, `{"name":"g"}`); code != 422 || !strings.Contains(body, `"loc":["body","name"]`) {
			t.Errorf("rename onto a taken name: %d %s", code, body)
		}
		if got := h.must(u, "PATCH", "/v2/templates/"+org, `{"name":null}`); got["name"] != "renamed" {
			t.Errorf("a null name changes nothing: %v", got)
		}
	})
}

func TestQueryTemplates(t *testing.T) {
	h := newHarness(t, nil)
	u, admin := &h.org.User, &h.org.Admin
	p1, p2 := h.project(h.org), h.project(h.org)
	a := h.globalTemplate(u, p1, "Alpha", "a")
	h.clock.Advance(time.Second)
	b := h.globalTemplate(admin, p2, "beta", "b")
	h.clock.Advance(time.Second)
	c := h.globalTemplate(u, "", "gamma", "c")
	h.globalTemplate(&h.other.User, "", "alpha-elsewhere", "x") // another organization's
	ids := func(body map[string]any) string {
		var out []string
		for _, t := range body["templates"].([]any) {
			out = append(out, t.(map[string]any)["id"].(string))
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		name, query, body, want string
	}{
		{"newest first", "", ``, strings.Join([]string{c, b, a}, ",")},
		{"by name", "", `{"sort":{"name":"name","ascending":true}}`, strings.Join([]string{a, b, c}, ",")},
		{"name contains, case-folded", "", `{"filters":[{"name":"name","operator":"contains","value":"ALPHA","case_sensitive":false}]}`, a},
		{"name is case-sensitive by default", "", `{"filters":[{"name":"name","operator":"eq","value":"alpha"}]}`, ""},
		{"creator", "", fmt.Sprintf(`{"filters":[{"name":"creator","value":%q}]}`, admin.UserID), b},
		{"used in project", "", fmt.Sprintf(`{"filters":[{"name":"used_in_project","value":%q}]}`, p1), a},
		{"not in project", "", fmt.Sprintf(`{"filters":[{"name":"not_in_project","value":%q}]}`, p1), strings.Join([]string{c, b}, ",")},
		{"a page", "?starting_token=1&limit=1", ``, b},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := h.must(u, "POST", "/v2/templates/query"+tc.query, tc.body)
			if ids(got) != tc.want {
				t.Errorf("got %s, want %s", ids(got), tc.want)
			}
		})
	}
	if code, body := h.do(u, "POST", "/v2/templates/query", `{"filters":[{"name":"size","value":1}]}`); code != 422 || !strings.Contains(body, "union_tag_invalid") {
		t.Errorf("an unknown filter: %d %s", code, body)
	}
}

func TestGlobalTemplateRefusals(t *testing.T) {
	h := newHarness(t, nil)
	u, ro := &h.org.User, &h.org.ReadOnly
	pid := h.project(h.org)
	id := h.globalTemplate(u, pid, "t", "hi {{x}}")
	theirs := h.globalTemplate(&h.other.User, "", "t", "theirs")
	missing := uuid.NewString()
	for _, tc := range []struct {
		name         string
		who          *authtest.User
		method, path string
		body         string
		code         int
		contains     string
	}{
		{"no credential", nil, "GET", "/v2/templates/" + id, "", 401, "Not authenticated"},
		{"no credential, create", nil, "POST", "/v2/templates", `{"name":"x","template":"y"}`, 401, "Not authenticated"},
		{"read-only creates", ro, "POST", "/v2/templates", `{"name":"x","template":"y"}`, 403, "Read-only"},
		{"read-only renames", ro, "PATCH", "/v2/templates/" + id, `{"name":"x"}`, 403, "Read-only"},
		{"read-only deletes", ro, "DELETE", "/v2/templates/" + id, "", 403, "Read-only"},
		{"read-only bulk deletes", ro, "DELETE", "/v2/templates/bulk_delete", fmt.Sprintf(`{"template_ids":[%q]}`, id), 403, "Read-only"},
		{"read-only adds a version", ro, "POST", "/v2/templates/" + id + "/versions", `{"template":"v"}`, 403, "Read-only"},
		{"read-only selects", ro, "PUT", "/v2/templates/" + id + "/versions/0", "", 403, "Read-only"},
		{"read-only shares", ro, "POST", "/v2/templates/" + id + "/users", fmt.Sprintf(`[{"user_id":%q}]`, ro.UserID), 403, "Read-only"},
		{"unknown project", u, "POST", "/v2/templates?project_id=" + missing, `{"name":"x","template":"y"}`, 404, "Project not found"},
		{"unknown template", u, "GET", "/v2/templates/" + missing, "", 404, "Prompt template not found"},
		{"another organization's", u, "GET", "/v2/templates/" + theirs, "", 404, "Prompt template not found"},
		{"another organization's, deleted", u, "DELETE", "/v2/templates/" + theirs, "", 404, "Prompt template not found"},
		{"unknown version", u, "GET", "/v2/templates/" + id + "/versions/7", "", 404, "Prompt template version not found"},
		{"select an unknown version", u, "PUT", "/v2/templates/" + id + "/versions/7", "", 404, "Prompt template version not found"},
		{"unknown collaborator", u, "PATCH", "/v2/templates/" + id + "/users/" + missing, `{"role":"editor"}`, 404, "Collaborator not found"},
		{"bad id", u, "GET", "/v2/templates/nope", "", 422, `"loc":["path","template_id"]`},
		{"bad project id", u, "POST", "/v2/templates?project_id=nope", `{"name":"x","template":"y"}`, 422, `"loc":["query","project_id"]`},
		{"no name", u, "POST", "/v2/templates", `{"template":"y"}`, 422, `"loc":["body","name"]`},
		{"empty template", u, "POST", "/v2/templates", `{"name":"x","template":""}`, 422, `"loc":["body","template"]`},
		{"negative version", u, "GET", "/v2/templates/" + id + "/versions/-1", "", 422, `"loc":["path","version"]`},
		{"name too long", u, "PATCH", "/v2/templates/" + id, fmt.Sprintf(`{"name":%q}`, strings.Repeat("n", 256)), 422, "string_too_long"},
		{"no ids", u, "DELETE", "/v2/templates/bulk_delete", `{"template_ids":[]}`, 422, "too_short"},
		{"a bad role", u, "PATCH", "/v2/templates/" + id + "/users/" + u.UserID, `{"role":"king"}`, 422, `"loc":["body","role"]`},
		{"a bad sort", u, "POST", "/v2/templates/" + id + "/versions/query", `{"sort":{"name":"size"}}`, 422, "union_tag_invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(tc.who, tc.method, tc.path, tc.body)
			if code != tc.code || !strings.Contains(body, tc.contains) {
				t.Errorf("%s %s: %d %s, want %d with %q", tc.method, tc.path, code, body, tc.code, tc.contains)
			}
		})
	}
	// Nothing a refused request asked for happened.
	if got := h.must(u, "GET", "/v2/templates/"+id, ""); got["name"] != "t" || got["total_versions"] != float64(1) {
		t.Errorf("after the refusals: %v", got)
	}
}

func TestDeleteTemplates(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		h := newHarness(t, tbl)
		u := &h.org.User
		pid := h.project(h.org)
		one := h.globalTemplate(u, pid, "one", "1")
		h.must(u, "POST", "/v2/templates/"+one+"/versions", `{"template":"1b"}`)
		if got := h.must(u, "DELETE", "/v2/templates/"+one, ""); got["message"] != "Deleted prompt template 'one'" {
			t.Errorf("delete: %v", got)
		}
		for _, path := range []string{"/v2/templates/" + one, "/v2/projects/" + pid + "/templates/" + one, "/v2/templates/" + one + "/versions/1"} {
			if code, _ := h.do(u, "GET", path, ""); code != 404 {
				t.Errorf("GET %s after the delete: %d", path, code)
			}
		}
		h.globalTemplate(u, pid, "one", "the name is free again")

		two, three := h.globalTemplate(u, pid, "two", "2"), h.globalTemplate(u, "", "three", "3")
		theirs := h.globalTemplate(&h.other.User, "", "theirs", "x")
		missing := uuid.NewString()
		code, body := h.do(u, "DELETE", "/v2/templates/bulk_delete",
			fmt.Sprintf(`{"template_ids":[%q,%q,%q,%q,%q]}`, two, theirs, three, missing, two))
		var got struct {
			DeletedCount    int `json:"deleted_count"`
			FailedDeletions []struct {
				TemplateID string `json:"template_id"`
				Reason     string `json:"reason"`
			} `json:"failed_deletions"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
			t.Fatalf("bulk delete: %d %s", code, body)
		}
		if got.DeletedCount != 2 || got.Message != "Deleted 2 of 4 prompt templates" || len(got.FailedDeletions) != 2 ||
			got.FailedDeletions[0].TemplateID != theirs || got.FailedDeletions[1].TemplateID != missing ||
			got.FailedDeletions[0].Reason != "Prompt template not found" {
			t.Errorf("bulk delete report: %s", body)
		}
		for _, id := range []string{two, three} {
			if code, _ := h.do(u, "GET", "/v2/templates/"+id, ""); code != 404 {
				t.Errorf("template %s after the bulk delete: %d", id, code)
			}
		}
		if code, _ := h.do(&h.other.User, "GET", "/v2/templates/"+theirs, ""); code != 200 {
			t.Errorf("another organization's template after our bulk delete: %d", code)
		}
	})
}

func TestTemplateCollaborators(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		h := newHarness(t, tbl)
		u, admin, mgr := &h.org.User, &h.org.Admin, &h.org.Manager
		id := h.globalTemplate(u, "", "shared", "s")
		g := h.env.Group(t, h.org, "writers")
		// Users by id and by e-mail; the default role is viewer.
		code, body := h.do(u, "POST", "/v2/templates/"+id+"/users",
			fmt.Sprintf(`[{"user_id":%q,"role":"editor"},{"user_email":%q}]`, admin.UserID, mgr.Email))
		if code != 200 || !strings.Contains(body, `"role":"editor"`) || !strings.Contains(body, `"role":"viewer"`) || !strings.Contains(body, mgr.Email) {
			t.Fatalf("add users: %d %s", code, body)
		}
		for _, tc := range []struct{ name, body, loc string }{
			{"already one", fmt.Sprintf(`[{"user_id":%q}]`, admin.UserID), `"loc":["body",0]`},
			{"twice in one body", fmt.Sprintf(`[{"user_id":%q},{"user_id":%q}]`, h.org.ReadOnly.UserID, h.org.ReadOnly.UserID), `"loc":["body",1]`},
			{"another organization's user", fmt.Sprintf(`[{"user_id":%q}]`, h.other.User.UserID), `"loc":["body",0]`},
			{"nobody named", `[{"role":"viewer"}]`, `"loc":["body",0]`},
			{"a bad role", fmt.Sprintf(`[{"user_id":%q,"role":"king"}]`, h.org.ReadOnly.UserID), `"loc":["body",0,"role"]`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if code, body := h.do(u, "POST", "/v2/templates/"+id+"/users", tc.body); code != 422 || !strings.Contains(body, tc.loc) {
					t.Errorf("%d %s, want 422 at %s", code, body, tc.loc)
				}
			})
		}
		// Added in one request, at one time: two pages of one hold both.
		seen := map[any]bool{}
		for _, q := range []string{"?limit=1", "?starting_token=1&limit=1"} {
			list := h.must(u, "GET", "/v2/templates/"+id+"/users"+q, "")
			for _, c := range list["collaborators"].([]any) {
				seen[c.(map[string]any)["user_id"]] = true
			}
		}
		if len(seen) != 2 || !seen[admin.UserID] || !seen[mgr.UserID] {
			t.Errorf("users, two pages: %v", seen)
		}
		if got := h.must(u, "PATCH", "/v2/templates/"+id+"/users/"+mgr.UserID, `{"role":"annotator"}`); got["role"] != "annotator" || got["email"] != mgr.Email {
			t.Errorf("role change: %v", got)
		}
		h.must(u, "DELETE", "/v2/templates/"+id+"/users/"+admin.UserID, "")
		if code, _ := h.do(u, "DELETE", "/v2/templates/"+id+"/users/"+admin.UserID, ""); code != 404 {
			t.Errorf("removing a removed collaborator: %d", code)
		}
		list := h.must(&h.org.ReadOnly, "GET", "/v2/templates/"+id+"/users", "")
		if cs := list["collaborators"].([]any); len(cs) != 1 || cs[0].(map[string]any)["role"] != "annotator" {
			t.Errorf("users after the changes: %v", list)
		}

		// Groups.
		code, body = h.do(u, "POST", "/v2/templates/"+id+"/groups", fmt.Sprintf(`[{"group_id":%q,"role":"owner"}]`, g.ID))
		if code != 200 || !strings.Contains(body, `"group_name":"writers"`) || !strings.Contains(body, `"role":"owner"`) {
			t.Fatalf("add group: %d %s", code, body)
		}
		if code, body := h.do(u, "POST", "/v2/templates/"+id+"/groups", fmt.Sprintf(`[{"group_id":%q}]`, uuid.NewString())); code != 422 || !strings.Contains(body, `"loc":["body",0,"group_id"]`) {
			t.Errorf("an unknown group: %d %s", code, body)
		}
		if got := h.must(u, "PATCH", "/v2/templates/"+id+"/groups/"+g.ID, `{"role":"viewer"}`); got["role"] != "viewer" || got["group_id"] != g.ID {
			t.Errorf("group role change: %v", got)
		}
		if list := h.must(u, "GET", "/v2/templates/"+id+"/groups", ""); len(list["collaborators"].([]any)) != 1 {
			t.Errorf("groups: %v", list)
		}
		h.must(u, "DELETE", "/v2/templates/"+id+"/groups/"+g.ID, "")
		if list := h.must(u, "GET", "/v2/templates/"+id+"/groups", ""); len(list["collaborators"].([]any)) != 0 {
			t.Errorf("groups after the removal: %v", list)
		}
		// A deleted template takes its collaborators with it.
		h.must(u, "DELETE", "/v2/templates/"+id, "")
		if code, _ := h.do(u, "GET", "/v2/templates/"+id+"/users", ""); code != http.StatusNotFound {
			t.Errorf("collaborators of a deleted template: %d", code)
		}
	})
}
