package experiments

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

func TestDeleteProjectTemplate(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		h := newHarness(t, tbl)
		u := &h.org.User
		pid, other := h.project(h.org), h.project(h.org)
		id := h.must(u, "POST", "/v2/projects/"+pid+"/templates", `{"name":"p","template":"hi {{x}}"}`)["id"].(string)
		h.must(u, "POST", "/v2/projects/"+pid+"/templates/"+id+"/versions", `{"template":"v1"}`)
		// Another project's path does not reach it.
		if code, body := h.do(u, "DELETE", "/v2/projects/"+other+"/templates/"+id, ""); code != 404 || !strings.Contains(body, "Prompt template not found") {
			t.Errorf("delete through another project: %d %s", code, body)
		}
		if got := h.must(u, "DELETE", "/v2/projects/"+pid+"/templates/"+id, ""); got["message"] != "Deleted prompt template 'p'" {
			t.Errorf("delete: %v", got)
		}
		for _, path := range []string{"/v2/templates/" + id, "/v2/projects/" + pid + "/templates/" + id,
			"/v2/projects/" + pid + "/templates/versions?template_name=p"} {
			if code, _ := h.do(u, "GET", path, ""); code != 404 {
				t.Errorf("GET %s after the delete: %d", path, code)
			}
		}
		if code, _ := h.do(u, "DELETE", "/v2/projects/"+pid+"/templates/"+id, ""); code != 404 {
			t.Errorf("a second delete: %d", code)
		}
		// The name is free again.
		h.must(u, "POST", "/v2/projects/"+pid+"/templates", `{"name":"p","template":"again"}`)
	})
}

func TestTemplateVersionByName(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		h := newHarness(t, tbl)
		u := &h.org.User
		pid := h.project(h.org)
		id := h.must(u, "POST", "/v2/projects/"+pid+"/templates", `{"name":"greet me","template":"v0 {{x}}"}`)["id"].(string)
		h.must(u, "POST", "/v2/projects/"+pid+"/templates/"+id+"/versions", `{"template":"v1 {{x}}"}`)
		h.must(u, "POST", "/v2/projects/"+pid+"/templates/"+id+"/versions", `{"template":"v2 {{x}}"}`)
		h.must(u, "PUT", "/v2/projects/"+pid+"/templates/"+id+"/versions/1", "")
		// A template of the same name in the organization (no project) is not the project's.
		h.globalTemplate(u, "", "greet me", "the organization's")
		byName := "/v2/projects/" + pid + "/templates/versions?template_name=" + url.QueryEscape("greet me")
		for _, tc := range []struct {
			name, query string
			version     float64
			template    string
		}{
			{"the selected version", "", 1, "v1 {{x}}"},
			{"version 0", "&version=0", 0, "v0 {{x}}"},
			{"version 2", "&version=2", 2, "v2 {{x}}"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := h.must(u, "GET", byName+tc.query, "")
				if got["version"] != tc.version || got["template"] != tc.template || got["id"] == nil {
					t.Errorf("got %v, want version %v %q", got, tc.version, tc.template)
				}
			})
		}
	})
}

func TestProjectTemplateRefusals(t *testing.T) {
	h := newHarness(t, nil)
	u, ro := &h.org.User, &h.org.ReadOnly
	pid := h.project(h.org)
	id := h.must(u, "POST", "/v2/projects/"+pid+"/templates", `{"name":"t","template":"hi"}`)["id"].(string)
	theirPID := h.project(h.other)
	theirs := h.must(&h.other.User, "POST", "/v2/projects/"+theirPID+"/templates", `{"name":"t","template":"x"}`)["id"].(string)
	missing := uuid.NewString()
	base := "/v2/projects/" + pid + "/templates/"
	for _, tc := range []struct {
		name         string
		who          *authtest.User
		method, path string
		code         int
		contains     string
	}{
		{"no credential, delete", nil, "DELETE", base + id, 401, "Not authenticated"},
		{"no credential, by name", nil, "GET", base + "versions?template_name=t", 401, "Not authenticated"},
		{"read-only deletes", ro, "DELETE", base + id, 403, "Read-only"},
		{"unknown template", u, "DELETE", base + missing, 404, "Prompt template not found"},
		{"another organization's", u, "DELETE", "/v2/projects/" + theirPID + "/templates/" + theirs, 404, "not found"},
		{"another organization's by our project", u, "DELETE", base + theirs, 404, "Prompt template not found"},
		{"unknown project", u, "DELETE", "/v2/projects/" + missing + "/templates/" + id, 404, "not found"},
		{"unknown name", u, "GET", base + "versions?template_name=nope", 404, "Prompt template not found"},
		{"unknown version", u, "GET", base + "versions?template_name=t&version=7", 404, "Prompt template version not found"},
		{"another organization's project by name", u, "GET", "/v2/projects/" + theirPID + "/templates/versions?template_name=t", 404, "not found"},
		{"no name", u, "GET", base + "versions", 422, `"loc":["query","template_name"]`},
		{"empty name", u, "GET", base + "versions?template_name=", 422, `"loc":["query","template_name"]`},
		{"negative version", u, "GET", base + "versions?template_name=t&version=-1", 422, `"loc":["query","version"]`},
		{"bad version", u, "GET", base + "versions?template_name=t&version=x", 422, `"loc":["query","version"]`},
		{"bad id", u, "DELETE", base + "nope", 422, `"loc":["path","template_id"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(tc.who, tc.method, tc.path, "")
			if code != tc.code || !strings.Contains(body, tc.contains) {
				t.Errorf("%s %s: %d %s, want %d with %q", tc.method, tc.path, code, body, tc.code, tc.contains)
			}
		})
	}
	// Nothing a refused request asked for happened.
	if got := h.must(u, "GET", base+id, ""); got["name"] != "t" {
		t.Errorf("after the refusals: %v", got)
	}
	if got := h.must(&h.other.User, "GET", "/v2/templates/"+theirs, ""); got["name"] != "t" {
		t.Errorf("their template after the refusals: %v", got)
	}
}

func TestTemplateNameObject(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		h := newHarness(t, tbl)
		u := &h.org.User
		pid, pid2 := h.project(h.org), h.project(h.org)
		create := func(path, name string) (int, string) {
			return h.do(u, "POST", path, fmt.Sprintf(`{"name":%s,"template":"hi"}`, name))
		}
		for _, path := range []string{"/v2/projects/" + pid + "/templates", "/v2/templates", "/v2/templates?project_id=" + pid2} {
			t.Run(path, func(t *testing.T) {
				for i, want := range []string{"n", "n (1)", "n (2)"} {
					// The suffix only when the name is taken: the first create keeps it as sent.
					got := h.must(u, "POST", path, `{"name":{"value":"n","append_suffix_if_duplicate":true},"template":"hi"}`)
					if got["name"] != want {
						t.Errorf("create %d with a suffix: name %v, want %q", i, got["name"], want)
					}
				}
				if code, body := create(path, `{"value":"n","append_suffix_if_duplicate":false}`); code != 422 || !strings.Contains(body, "already exists") {
					t.Errorf("a taken name without a suffix: %d %s", code, body)
				}
				if code, body := create(path, `{"value":"n"}`); code != 422 || !strings.Contains(body, `"loc":["body","name"]`) {
					t.Errorf("a taken name, suffix absent: %d %s", code, body)
				}
				if code, body := create(path, `{"value":"fresh","append_suffix_if_duplicate":false}`); code != 200 || !strings.Contains(body, `"name":"fresh"`) {
					t.Errorf("a free name from an object: %d %s", code, body)
				}
			})
		}
		for _, tc := range []struct{ name, body, loc string }{
			{"no value", `{"append_suffix_if_duplicate":true}`, `"loc":["body","name","value"]`},
			{"empty value", `{"value":""}`, `"loc":["body","name","value"]`},
			{"a bad flag", `{"value":"x","append_suffix_if_duplicate":"maybe"}`, `"loc":["body","name","append_suffix_if_duplicate"]`},
			{"a number", `7`, `"loc":["body","name"]`},
		} {
			if code, body := create("/v2/templates", tc.body); code != 422 || !strings.Contains(body, tc.loc) {
				t.Errorf("%s: %d %s, want 422 at %s", tc.name, code, body, tc.loc)
			}
		}
		// A suffixed name too long for a name is refused, not cut.
		long := strings.Repeat("l", maxNameLen)
		create("/v2/templates", fmt.Sprintf("%q", long))
		if code, body := create("/v2/templates", fmt.Sprintf(`{"value":%q,"append_suffix_if_duplicate":true}`, long)); code != 422 || !strings.Contains(body, "longer than") {
			t.Errorf("a suffixed name too long: %d %s", code, body)
		}
	})
}
