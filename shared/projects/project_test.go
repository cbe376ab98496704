package projects

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth/authtest"
)

const (
	v1UUID  = "a8098c1a-f86e-11da-bd1a-00112444be1e"
	unknown = "0e4b5d7c-1f2a-4b3c-9d8e-7f6a5b4c3d2e"
)

func TestUnauthenticated(t *testing.T) {
	h := newHarness(t)
	p := "/v2/projects/" + unknown
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/v2/projects", `{"name":"x"}`},
		{"GET", p, ""},
		{"POST", p + "/log_streams", `{"name":"x"}`},
		{"GET", p + "/log_streams/" + unknown + "/metric_settings", ""},
		{"PATCH", p + "/log_streams/" + unknown + "/metric_settings", `{"scorers":[]}`},
		{"POST", "/v2/projects", `not json`}, // authentication comes before validation
	} {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			code, body := h.do(nil, r.method, r.path, r.body)
			if code != http.StatusUnauthorized {
				t.Fatalf("status %d %s, want 401", code, body)
			}
			apitest.SameJSON(t, body, `{"detail":"Not authenticated"}`)
		})
	}
}

func TestProjectsAndLogStreams(t *testing.T) {
	h := newHarness(t)
	user, ro, stranger := &h.org.User, &h.org.ReadOnly, &h.other.User
	code, body := h.do(user, "POST", "/v2/projects", `{"name":"demo"}`)
	var p struct{ ID, Name, CreatedBy string }
	if err := json.Unmarshal([]byte(body), &p); code != 200 || err != nil || p.Name != "demo" {
		t.Fatalf("create project: %d %s", code, body)
	}
	apitest.SameJSON(t, body, fmt.Sprintf(`{"id":%q,"name":"demo","created_by":%q,"type":"gen_ai","created_at":"2026-05-06T07:08:09Z","updated_at":"2026-05-06T07:08:09Z"}`,
		p.ID, user.UserID))
	read := fmt.Sprintf(`{"id":%q,"permissions":[],"name":"demo","created_by":%q,"type":"gen_ai","runs":[],
		"created_at":"2026-05-06T07:08:09Z","updated_at":"2026-05-06T07:08:09Z","bookmark":false,
		"created_by_user":{"id":%q,"email":%q,"first_name":"Test","last_name":"user"},"description":null,"labels":[]}`,
		p.ID, user.UserID, user.UserID, user.Email)
	pp := "/v2/projects/" + p.ID
	for _, tc := range []struct {
		name, method, path, body string
		who                      *authtest.User
		status                   int
		want                     string
	}{
		{"read it", "GET", pp, "", user, 200, read},
		{"read it at the client's path", "GET", "/projects/" + p.ID, "", user, 200, read},
		{"unknown type", "POST", "/v2/projects", `{"name":"t","type":"genai"}`, user, 422,
			`{"detail":[{"type":"enum","loc":["body","type"],"msg":"Input should be 'prompt_evaluation', 'llm_monitor', 'protect' or 'gen_ai'","input":"genai","ctx":{"expected":"'prompt_evaluation', 'llm_monitor', 'protect' or 'gen_ai'"}}]}`},
		{"read by another org", "GET", pp, "", stranger, 404, `{"detail":"Project not found"}`},
		{"read unknown", "GET", "/v2/projects/" + unknown, "", user, 404, `{"detail":"Project not found"}`},
		{"read bad id", "GET", "/v2/projects/nope", "", user, 422,
			`{"detail":[{"type":"uuid_parsing","loc":["path","project_id"],"msg":"Input should be a valid UUID, invalid character: found ` + "`n`" + ` at 1","input":"nope","ctx":{"error":"invalid character: found ` + "`n`" + ` at 1"}}]}`},
		{"read v1 id", "GET", "/v2/projects/" + v1UUID, "", user, 422,
			`{"detail":[{"type":"uuid_version","loc":["path","project_id"],"msg":"UUID version 4 expected","input":"` + v1UUID + `","ctx":{"expected_version":4}}]}`},
		{"same name", "POST", "/v2/projects", `{"name":"demo"}`, user, 422,
			`{"detail":[{"type":"value_error","loc":["body","name"],"msg":"Value error, a project named 'demo' already exists","input":"demo","ctx":{"error":{}}}]}`},
		{"same name in another org", "POST", "/v2/projects", `{"name":"demo"}`, stranger, 200, ""},
		{"read-only", "POST", "/v2/projects", `{"name":"mine"}`, ro, 403, `{"detail":"Read-only users cannot perform this action"}`},
		{"read-only, bad body is 422 first", "POST", "/v2/projects", `{}`, ro, 422,
			`{"detail":[{"type":"missing","loc":["body","name"],"msg":"Field required","input":{}}]}`},
		{"name too long", "POST", "/v2/projects", `{"name":"` + string(make256()) + `"}`, user, 422,
			`{"detail":[{"type":"string_too_long","loc":["body","name"],"msg":"String should have at most 255 characters","input":"` + string(make256()) + `","ctx":{"max_length":255}}]}`},
		{"log stream", "POST", pp + "/log_streams", `{"name":"prod"}`, user, 200, ""},
		{"log stream twice", "POST", pp + "/log_streams", `{"name":"prod"}`, user, 422,
			`{"detail":[{"type":"value_error","loc":["body","name"],"msg":"Value error, a log stream named 'prod' already exists","input":"prod","ctx":{"error":{}}}]}`},
		{"log stream in another org's project", "POST", pp + "/log_streams", `{"name":"x"}`, stranger, 404, `{"detail":"Project not found"}`},
		{"log stream by read-only", "POST", pp + "/log_streams", `{"name":"x"}`, ro, 403, `{"detail":"Read-only users cannot perform this action"}`},
		{"log stream path and body", "POST", "/v2/projects/x/log_streams", `{"name":""}`, user, 422,
			`{"detail":[{"type":"uuid_parsing","loc":["path","project_id"],"msg":"Input should be a valid UUID, invalid character: found ` + "`x`" + ` at 1","input":"x","ctx":{"error":"invalid character: found ` + "`x`" + ` at 1"}},
			{"type":"string_too_short","loc":["body","name"],"msg":"String should have at least 1 character","input":"","ctx":{"min_length":1}}]}`},
		// Found by schemathesis: a create without a body, or with a body that is no object,
		// once dereferenced the absent object (a 500).
		{"no body", "POST", "/v2/projects", "", user, 422,
			`{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"log stream, body not an object", "POST", pp + "/log_streams", `[]`, user, 422, ""},
		{"invalid JSON", "POST", "/v2/projects", `{"name":`, user, 422,
			`{"detail":[{"type":"json_invalid","loc":["body",8],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting value"}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(tc.who, tc.method, tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("status %d %s, want %d", code, body, tc.status)
			}
			if tc.want != "" {
				apitest.SameJSON(t, body, tc.want)
			}
		})
	}
}

func make256() []rune {
	r := make([]rune, 256)
	for i := range r {
		r[i] = 'n'
	}
	return r
}
