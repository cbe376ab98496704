package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

func newTestRouter(logs *bytes.Buffer) *Router {
	rt := NewRouter(slog.New(slog.NewJSONHandler(logs, nil)))
	rt.Handle("GET /v2/items/{id}", func(w http.ResponseWriter, r *http.Request) error {
		switch r.PathValue("id") {
		case "missing":
			return NotFound("Item")
		case "panic":
			panic(errors.New("secret-internal-detail"))
		case "boom":
			return fmt.Errorf("db exploded with secret-internal-detail")
		case "throttled":
			return fmt.Errorf("query: %w", store.ErrThrottled)
		case "invalid":
			return validate.Single(validate.Missing([]any{"query", "q"}, nil))
		case "noauth":
			return Unauthorized("Not authenticated", "Bearer")
		}
		WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id"), "html": "<&>"})
		return nil
	})
	rt.Handle("POST /v2/items", func(w http.ResponseWriter, r *http.Request) error {
		raw, _, err := DecodeBody(r, 0)
		if err != nil {
			return err
		}
		WriteJSON(w, http.StatusOK, raw)
		return nil
	})
	return rt
}

func TestRouterAnswers(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		status                   int
		wantBody                 string
		wantHeader               map[string]string
	}{
		{"ok", "GET", "/v2/items/a", "", 200, `{"html":"<&>","id":"a"}`, nil},
		{"not found resource", "GET", "/v2/items/missing", "", 404, `{"detail":"Item not found"}`, nil},
		{"unknown route", "GET", "/nowhere", "", 404, `{"detail":"Not Found"}`, nil},
		{"wrong method", "DELETE", "/v2/items/a", "", 405, `{"detail":"Method Not Allowed"}`, map[string]string{"Allow": "GET, HEAD"}},
		{"panic", "GET", "/v2/items/panic", "", 500, `{"detail":"Internal Server Error"}`, nil},
		{"internal error", "GET", "/v2/items/boom", "", 500, `{"detail":"Internal Server Error"}`, nil},
		{"throttled", "GET", "/v2/items/throttled", "", 503, `{"detail":"Service temporarily unavailable, retry later"}`, map[string]string{"Retry-After": "1"}},
		{"validation", "GET", "/v2/items/invalid", "", 422, `{"detail":[{"type":"missing","loc":["query","q"],"msg":"Field required","input":null}]}`, nil},
		{"unauthenticated", "GET", "/v2/items/noauth", "", 401, `{"detail":"Not authenticated"}`, map[string]string{"Www-Authenticate": "Bearer"}},
		{"json echo", "POST", "/v2/items", `{"a":[1,2.5,"é"]}`, 200, `{"a":[1,2.5,"é"]}`, nil},
		{"too large", "POST", "/v2/items", `"` + strings.Repeat("x", MaxBody) + `"`, 413, `{"detail":"Request body too large"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			rt := newTestRouter(&logs)
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			rec := httptest.NewRecorder()
			rt.ServeHTTP(rec, req)
			body, _ := io.ReadAll(rec.Body)
			if rec.Code != tt.status || string(body) != tt.wantBody {
				t.Fatalf("got %d %s, want %d %s", rec.Code, body, tt.status, tt.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			if rec.Header().Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
			for k, v := range tt.wantHeader {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			if !strings.Contains(logs.String(), fmt.Sprintf(`"status":%d`, tt.status)) {
				t.Errorf("access log lacks the status: %s", logs.String())
			}
			if strings.Contains(string(body), "secret-internal-detail") {
				t.Error("an internal detail reached the response")
			}
		})
	}
}

func TestAccessLogNeverCarriesBodies(t *testing.T) {
	var logs bytes.Buffer
	rt := newTestRouter(&logs)
	req := httptest.NewRequest("POST", "/v2/items", strings.NewReader(`{"token":"canary-7f3a"}`))
	rt.ServeHTTP(httptest.NewRecorder(), req)
	if strings.Contains(logs.String(), "canary-7f3a") {
		t.Fatalf("log carries the request body: %s", logs.String())
	}
	for _, field := range []string{`"request_id"`, `"route":"POST /v2/items"`, `"latency_ms"`, `"method":"POST"`} {
		if !strings.Contains(logs.String(), field) {
			t.Errorf("access log lacks %s: %s", field, logs.String())
		}
	}
}

func TestMalformedJSONIsOneProblem(t *testing.T) {
	rt := newTestRouter(&bytes.Buffer{})
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest("POST", "/v2/items", strings.NewReader(`{some broken json}`)))
	want := `{"detail":[{"type":"json_invalid","loc":["body",1],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting property name enclosed in double quotes"}}]}`
	if rec.Code != 422 || rec.Body.String() != want {
		t.Fatalf("got %d %s\nwant 422 %s", rec.Code, rec.Body.String(), want)
	}
}

func TestRedactionInValidationInput(t *testing.T) {
	errs := validate.New()
	obj, _ := errs.Body(map[string]any{"token": 5, "endpoint": 3, "default_headers": map[string]any{"x": "canary"}}, true).Object()
	obj.Get("endpoint").Required().String()
	obj.Get("token").Required().String()
	obj.Get("missing").Required().String()
	rec := httptest.NewRecorder()
	WriteError(rec, httptest.NewRequest("GET", "/", nil), slog.New(slog.NewTextHandler(io.Discard, nil)), errs.Err())
	if strings.Contains(rec.Body.String(), "canary") || strings.Contains(rec.Body.String(), `"input":5`) {
		t.Fatalf("a credential value reached the 422: %s", rec.Body.String())
	}
	if !strings.Contains(rec.Body.String(), `"input":3`) {
		t.Fatalf("a non-secret input was redacted: %s", rec.Body.String())
	}
}

// A body is parsed as JSON only when its Content-Type says JSON (or says nothing); any other
// is handed on as raw text, for the body's model to refuse as FastAPI does.
func TestDecodeBodyContentType(t *testing.T) {
	for _, tc := range []struct {
		contentType string
		want        string
	}{
		{"", `{"a":1}`},
		{"application/json", `{"a":1}`},
		{"application/json; charset=utf-8", `{"a":1}`},
		{"application/merge-patch+json", `{"a":1}`},
		{"text/plain", `"{\"a\": 1}"`},
		{"application/x-www-form-urlencoded", `"{\"a\": 1}"`},
		{"not a media type", `"{\"a\": 1}"`},
	} {
		req := httptest.NewRequest("POST", "/v2/items", strings.NewReader(`{"a": 1}`))
		if tc.contentType != "" {
			req.Header.Set("Content-Type", tc.contentType)
		}
		rec := httptest.NewRecorder()
		newTestRouter(&bytes.Buffer{}).ServeHTTP(rec, req)
		if rec.Code != 200 || rec.Body.String() != tc.want {
			t.Errorf("Content-Type %q: %d %s, want %s", tc.contentType, rec.Code, rec.Body, tc.want)
		}
	}
}
