package apitest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func jsonHeader(extra ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

func TestValidate(t *testing.T) {
	v := Validator(t)
	get := httptest.NewRequest(http.MethodGet, "/v2/healthcheck", nil)
	post := httptest.NewRequest(http.MethodPost, "/v2/healthcheck", nil)
	unknown := httptest.NewRequest(http.MethodGet, "/v2/no/such/route", nil)
	for _, tc := range []struct {
		name    string
		req     *http.Request
		status  int
		header  http.Header
		body    string
		wantErr string // "" when the response conforms
	}{
		{"healthcheck", get, 200, jsonHeader(), `{"api_version":"v2","message":"ok","version":"dev"}`, ""},
		{"healthcheck with charset", get, 200, jsonHeader("Content-Type", "application/json; charset=utf-8"), `{"api_version":"v2","message":"ok","version":"dev"}`, ""},
		{"wrong body", get, 200, jsonHeader(), `{"api_version":"v2","message":"ok"}`, "doesn't match"},
		{"missing field", get, 200, jsonHeader(), `{}`, "doesn't match"},
		{"wrong content type", get, 200, http.Header{"Content-Type": {"text/plain"}}, `{"api_version":"v2","message":"ok","version":"dev"}`, "Content-Type"},
		{"undocumented status", get, 500, jsonHeader(), `{"detail":"Internal Server Error"}`, "status is not supported"},
		{"unknown route 404", unknown, 404, jsonHeader(), `{"detail":"Not Found"}`, ""},
		{"unknown route, other status", unknown, 200, jsonHeader(), `{"detail":"Not Found"}`, "must be 404"},
		{"unknown route, bad error body", unknown, 404, jsonHeader(), `{"error":"Not Found"}`, "HTTPError"},
		{"unknown route, detail not a string", unknown, 404, jsonHeader(), `{"detail":404}`, "HTTPError"},
		{"unknown route, not JSON", unknown, 404, jsonHeader(), `Not Found`, "not JSON"},
		{"unknown route, text/plain", unknown, 404, http.Header{"Content-Type": {"text/plain"}}, `{"detail":"Not Found"}`, "Content-Type"},
		{"wrong method 405", post, 405, jsonHeader("Allow", "GET, HEAD"), `{"detail":"Method Not Allowed"}`, ""},
		{"wrong method without Allow", post, 405, jsonHeader(), `{"detail":"Method Not Allowed"}`, "Allow"},
		{"wrong method answered 404", post, 404, jsonHeader("Allow", "GET, HEAD"), `{"detail":"Not Found"}`, "must be 405"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Validate(tc.req, tc.status, tc.header, []byte(tc.body))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case tc.wantErr != "" && err == nil:
				t.Errorf("Validate = nil, want an error about %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Errorf("Validate = %v, want an error about %q", err, tc.wantErr)
			}
		})
	}
}

// TestCheckFails makes sure Check reports a mismatch as a test failure, and keeps the body
// readable for the caller.
func TestCheckFails(t *testing.T) {
	v := Validator(t)
	req := httptest.NewRequest(http.MethodGet, "/v2/healthcheck", nil)
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json")
	rec.WriteHeader(http.StatusOK)
	rec.WriteString(`{"status":"down"}`)

	ft := &fakeT{TB: t}
	v.CheckRecorder(ft, req, rec)
	if !ft.failed {
		t.Error("CheckRecorder passed a body that does not match the schema")
	}
	resp := rec.Result()
	ft = &fakeT{TB: t}
	v.Check(ft, req, resp)
	if !ft.failed {
		t.Error("Check passed a body that does not match the schema")
	}
	if b, err := io.ReadAll(resp.Body); err != nil || string(b) != `{"status":"down"}` {
		t.Errorf("body after Check = %q, %v", b, err)
	}
}

func TestCheckSchemaUnknown(t *testing.T) {
	if err := Validator(t).CheckSchema("NoSuchSchema", jsonHeader(), []byte(`{}`)); err == nil {
		t.Error("CheckSchema of an unknown schema passed")
	}
}

// fakeT records failures instead of failing the real test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }
func (f *fakeT) Helper()               {}

// A 422 may echo any JSON value as a problem's input, null included (a field sent as null
// where nothing may be sent).
func TestValidationErrorInputIsAnyValue(t *testing.T) {
	v := Validator(t)
	for _, input := range []string{`null`, `"x"`, `3`, `true`, `[1]`, `{"a":1}`} {
		body := `{"detail":[{"type":"extra_forbidden","loc":["body","end_date"],"msg":"Extra inputs are not permitted","input":` + input + `}]}`
		if err := v.CheckSchema("HTTPValidationError", jsonHeader(), []byte(body)); err != nil {
			t.Errorf("input %s: %v", input, err)
		}
	}
}

func TestSameJSON(t *testing.T) {
	for _, tc := range []struct {
		got, want string
		fails     bool
	}{
		{`{"a":1,"b":[1,2]}`, `{ "b": [1, 2], "a": 1 }`, false},
		{`{"a":1}`, `{"a":2}`, true},
		{`{"a":[1,2]}`, `{"a":[2,1]}`, true},
		{`{"a":1}`, `{"a":1,"b":null}`, true},
	} {
		ft := &fakeT{TB: t}
		SameJSON(ft, tc.got, tc.want)
		if ft.failed != tc.fails {
			t.Errorf("SameJSON(%s, %s) failed=%v, want %v", tc.got, tc.want, ft.failed, tc.fails)
		}
	}
}
