package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/apptest"
)

var healthBody = `{"api_version":"v2","message":"ok","version":"` + app.Health.Version + `"}`

func TestRouterAnswers(t *testing.T) {
	v := apitest.Validator(t)
	rt := app.NewRouter(apptest.Deps(t))
	for _, tc := range []struct {
		method, path string
		status       int
		body         string
		allow        string
	}{
		{http.MethodGet, "/v2/healthcheck", 200, healthBody, ""},
		{http.MethodGet, "/healthcheck", 200, healthBody, ""},
		{http.MethodGet, "/v2/no/such/route", 404, `{"detail":"Not Found"}`, ""},
		{http.MethodPost, "/v2/healthcheck", 405, `{"detail":"Method Not Allowed"}`, "GET, HEAD"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, nil)
			rec := httptest.NewRecorder()
			rt.ServeHTTP(rec, req)
			if rec.Code != tc.status || rec.Body.String() != tc.body {
				t.Errorf("got %d %s, want %d %s", rec.Code, rec.Body, tc.status, tc.body)
			}
			if got := rec.Header().Get("Allow"); got != tc.allow {
				t.Errorf("Allow = %q, want %q", got, tc.allow)
			}
			if rec.Header().Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
			v.CheckRecorder(t, req, rec)
		})
	}
}

// TestProxy runs the healthcheck through the Lambda adapter that lambda.Start runs.
func TestProxy(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "events", "healthcheck.json"))
	if err != nil {
		t.Fatal(err)
	}
	var event events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(raw, &event); err != nil {
		t.Fatal(err)
	}
	resp, err := app.Proxy(app.NewRouter(apptest.Deps(t)))(context.Background(), event)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Body != healthBody {
		t.Errorf("got %d %s", resp.StatusCode, resp.Body)
	}
	if got := resp.Headers["X-Request-Id"]; got != event.RequestContext.RequestID {
		t.Errorf("X-Request-Id = %q, want the gateway's request id %q", got, event.RequestContext.RequestID)
	}
}
