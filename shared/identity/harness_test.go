package identity_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/identity"
	"github.com/evalobs/evalapi/shared/store"
)

// suite captures every log line and every response of the package's tests, so that
// TestMain can prove no credential leaked anywhere (see canary_test.go).
var suite = &capture{}

// harness is the identity group's router on one table, with a clock the test moves.
type harness struct {
	env   *authtest.Env
	svc   *auth.Service
	rt    *httpapi.Router
	clock *authtest.Clock
	check bool // validate responses against the OpenAPI document
}

func newHarness(t testing.TB, tbl store.Table) *harness {
	t.Helper()
	return newHarnessWith(t, tbl, auth.Config{})
}

// newHarnessWith takes the TTLs of cfg; the logger and the clock are the harness's.
func newHarnessWith(t testing.TB, tbl store.Table, cfg auth.Config) *harness {
	t.Helper()
	c := authtest.NewClock(time.Now().UTC())
	log := slog.New(slog.NewJSONHandler(suite, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Logger, cfg.Now = log, c.Now
	env := authtest.New(t, tbl, cfg)
	rt := httpapi.NewRouter(log)
	mount(rt, env.Service, tbl, c.Now)
	return &harness{env: env, svc: env.Service, rt: rt, clock: c, check: true}
}

// response is one answer as the client saw it.
type response struct {
	id     int
	status int
	header http.Header
	body   []byte
}

func (r response) String() string { return fmt.Sprintf("%d %s", r.status, r.body) }

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// cookies returns the refresh cookies the response sets.
func (r response) cookies() []*http.Cookie {
	var out []*http.Cookie
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == auth.RefreshCookie {
			out = append(out, c)
		}
	}
	return out
}

// cookie returns the refresh cookie the response sets, or nil.
func (r response) cookie() *http.Cookie {
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == auth.RefreshCookie {
			return c
		}
	}
	return nil
}

// do sends a request through the router; body is sent as is. The response is captured for
// the leak scan and checked against the OpenAPI document.
func (h *harness) do(t testing.TB, method, path string, hdr http.Header, body string) response {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, vs := range hdr {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.rt.ServeHTTP(rec, req)
	res := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	res.id = suite.response(res.header, res.body)
	if h.check {
		if err := apitest.Validator(t).Validate(req, res.status, res.header, res.body); err != nil {
			t.Errorf("openapi: %s %s -> %d: %v\nbody: %s", method, path, res.status, err, res.body)
		}
	}
	return res
}

// want401 asserts the exact 401 answer.
func want401(t testing.TB, r response, detail string) {
	t.Helper()
	want := `{"detail":"` + detail + `"}`
	if r.status != http.StatusUnauthorized || string(r.body) != want {
		t.Fatalf("got %s, want 401 %s", r, want)
	}
	if got := r.header.Get("WWW-Authenticate"); got != "Bearer" {
		t.Fatalf("WWW-Authenticate = %q, want Bearer", got)
	}
}

// backend is one store adapter the tests run on.
type backend struct {
	name string
	open func(t testing.TB) store.Table
}

// backends are the embedded store (always) and DynamoDB Local and moto (when `make test`
// runs them; skipped otherwise, failed under CI).
func backends() []backend {
	return []backend{
		{"embedded", openEmbedded},
		{"DynamoDBLocal", func(t testing.TB) store.Table { return openDynamo(t, testenv.DynamoLocal(t)) }},
		{"moto", func(t testing.TB) store.Table { return openDynamo(t, testenv.Moto(t)) }},
	}
}

// capture is the suite-wide record of logs and responses.
type capture struct {
	mu        sync.Mutex
	logs      bytes.Buffer
	responses []captured
}

type captured struct {
	header http.Header
	body   []byte
}

// Write takes log output.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logs.Write(p)
}

// response records one response and returns its id.
func (c *capture) response(h http.Header, body []byte) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.responses = append(c.responses, captured{header: h.Clone(), body: bytes.Clone(body)})
	return len(c.responses) - 1
}

func (c *capture) snapshot() (string, []captured) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logs.String(), append([]captured(nil), c.responses...)
}

var _ io.Writer = (*capture)(nil)

func openEmbedded(t testing.TB) store.Table { return testenv.Embedded(t) }

func openDynamo(t testing.TB, endpoint string) store.Table { return testenv.OpenDynamo(t, endpoint) }

// mount registers the identity routes of svc on rt, stamped by now.
func mount(rt *httpapi.Router, svc *auth.Service, tbl store.Table, now func() time.Time) {
	identity.Register(rt, identity.Deps{Deps: base.Deps{Table: tbl, Authenticate: svc.Authenticate, Now: now}, Auth: svc})
}
