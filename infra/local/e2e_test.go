package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/apitest"
)

const (
	adminEmail    = "e2e-admin@example.com"
	adminPassword = "e2e-Password-0123456789"
)

// apiKeyLine finds the API key the first start prints.
var apiKeyLine = regexp.MustCompile(`API key\s+(\S+)`)

// TestEndToEnd drives the local host, started as a process, over HTTP like a client.
func TestEndToEnd(t *testing.T) {
	dataDir := t.TempDir()
	env := []string{"DATA_DIR=" + dataDir, "ADMIN_EMAIL=" + adminEmail, "ADMIN_PASSWORD=" + adminPassword}
	h := startHost(t, env...)
	c := client{base: h.URL, v: apitest.Validator(t)}

	t.Run("healthcheck", func(t *testing.T) {
		for _, path := range []string{"/v2/healthcheck", "/healthcheck"} {
			resp, body := c.do(t, http.MethodGet, path, nil, nil)
			expectHealthy(t, resp, body)
		}
	})
	t.Run("unknown route", func(t *testing.T) {
		resp, body := c.do(t, http.MethodGet, "/v2/no/such/route", nil, nil)
		expect(t, resp, body, http.StatusNotFound, `{"detail":"Not Found"}`)
	})
	t.Run("wrong method", func(t *testing.T) {
		resp, body := c.do(t, http.MethodDelete, "/v2/healthcheck", nil, nil)
		expect(t, resp, body, http.StatusMethodNotAllowed, `{"detail":"Method Not Allowed"}`)
		if got := resp.Header.Get("Allow"); got != "GET, HEAD" {
			t.Errorf("Allow = %q, want %q", got, "GET, HEAD")
		}
	})
	t.Run("request id", func(t *testing.T) {
		resp, _ := c.do(t, http.MethodGet, "/v2/healthcheck", nil, nil)
		if resp.Header.Get("X-Request-Id") == "" {
			t.Error("no X-Request-Id header")
		}
	})
	t.Run("unauthenticated", func(t *testing.T) {
		resp, body := c.do(t, http.MethodGet, "/v2/current_user", nil, nil)
		expect(t, resp, body, http.StatusUnauthorized, `{"detail":"Not authenticated"}`)
		if got := resp.Header.Get("WWW-Authenticate"); got != "Bearer" {
			t.Errorf("WWW-Authenticate = %q, want Bearer", got)
		}
	})
	token := c.login(t, adminEmail, adminPassword)
	t.Run("bearer", func(t *testing.T) {
		resp, body := c.do(t, http.MethodGet, "/v2/current_user", bearer(token), nil)
		expect(t, resp, body, http.StatusOK, "")
		if !strings.Contains(body, adminEmail) {
			t.Errorf("current user %s is not %s", body, adminEmail)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		resp, body := c.postForm(t, "/login", url.Values{"username": {adminEmail}, "password": {"not-the-password"}})
		expect(t, resp, body, http.StatusUnauthorized, "")
	})
	t.Run("printed API key", func(t *testing.T) {
		m := apiKeyLine.FindStringSubmatch(h.stdout.String())
		if m == nil {
			t.Fatalf("the first start printed no API key:\n%s", h.stdout.String())
		}
		resp, body := c.do(t, http.MethodGet, "/v2/current_user", http.Header{"Service-API-Key": {m[1]}}, nil)
		expect(t, resp, body, http.StatusOK, "")
	})
	t.Run("log", func(t *testing.T) {
		logs := h.stderr.String()
		for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Errorf("log line is not JSON: %s", line)
			}
		}
		if strings.Contains(logs, adminPassword) {
			t.Error("the admin password is in the log")
		}
	})

	h.stop(t)
	if !strings.Contains(h.stdout.String(), "listening on") {
		t.Errorf("stdout does not say where the host listens:\n%s", h.stdout.String())
	}

	// A second start on the same data keeps it and prints no credentials.
	h2 := startHost(t, env...)
	c2 := client{base: h2.URL, v: c.v}
	resp, body := c2.do(t, http.MethodGet, "/v2/healthcheck", nil, nil)
	expectHealthy(t, resp, body)
	if apiKeyLine.MatchString(h2.stdout.String()) {
		t.Errorf("the second start printed credentials again:\n%s", h2.stdout.String())
	}
	// The signing key survived the restart: a token of the first run is still good.
	resp, body = c2.do(t, http.MethodGet, "/v2/current_user", bearer(token), nil)
	expect(t, resp, body, http.StatusOK, "")
}

// TestEndToEndEmulators runs the local host on DynamoDB Local and moto, as
// DYNAMODB_ENDPOINT and SECRETSMANAGER_ENDPOINT select: the table and the application
// secrets are created on first start.
func TestEndToEndEmulators(t *testing.T) {
	ddb, moto := testenv.DynamoLocal(t), testenv.Moto(t)
	run := uuid.NewString()[:8]
	env := []string{
		"DATA_DIR=" + t.TempDir(),
		"DYNAMODB_ENDPOINT=" + ddb,
		"SECRETSMANAGER_ENDPOINT=" + moto,
		"TABLE_NAME=e2e-" + run,
		"SECRETS_PREFIX=e2e/" + run + "/",
		"ADMIN_EMAIL=" + adminEmail, "ADMIN_PASSWORD=" + adminPassword,
	}
	h := startHost(t, env...)
	v := apitest.Validator(t)
	c := client{base: h.URL, v: v}
	resp, body := c.do(t, http.MethodGet, "/v2/healthcheck", nil, nil)
	expectHealthy(t, resp, body)
	token := c.login(t, adminEmail, adminPassword)
	h.stop(t)

	// A restart finds the table and the signing secret instead of making new ones.
	h2 := startHost(t, env...)
	c2 := client{base: h2.URL, v: v}
	resp, body = c2.do(t, http.MethodGet, "/v2/current_user", bearer(token), nil)
	expect(t, resp, body, http.StatusOK, "")
	if apiKeyLine.MatchString(h2.stdout.String()) {
		t.Errorf("the second start printed credentials again:\n%s", h2.stdout.String())
	}
}

// client calls the host and validates every response against docs/openapi.yaml.
type client struct {
	base string
	v    *apitest.V
}

func (c client) do(t *testing.T, method, path string, header http.Header, body io.Reader) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, c.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	c.v.Check(t, req, resp)
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func bearer(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

// login signs in with the password flow and returns the access token.
func (c client) login(t *testing.T, email, password string) string {
	t.Helper()
	resp, body := c.postForm(t, "/login", url.Values{"username": {email}, "password": {password}})
	expect(t, resp, body, http.StatusOK, "")
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if err := json.Unmarshal([]byte(body), &tok); err != nil || tok.AccessToken == "" || tok.TokenType != "bearer" {
		t.Fatalf("login answered %s", body)
	}
	return tok.AccessToken
}

func (c client) postForm(t *testing.T, path string, form url.Values) (*http.Response, string) {
	t.Helper()
	return c.do(t, http.MethodPost, path, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		strings.NewReader(form.Encode()))
}

// expectHealthy checks a healthcheck answer: the client's HealthcheckResponse, whose
// version is the build's revision.
func expectHealthy(t *testing.T, resp *http.Response, body string) {
	t.Helper()
	expect(t, resp, body, http.StatusOK, "")
	if !strings.HasPrefix(body, `{"api_version":"v2","message":"ok","version":"`) {
		t.Errorf("healthcheck body %s", body)
	}
}

func expect(t *testing.T, resp *http.Response, body string, status int, want string) {
	t.Helper()
	if resp.StatusCode != status || (want != "" && body != want) {
		t.Errorf("%s %s = %d %s, want %d %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, body, status, want)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
}
