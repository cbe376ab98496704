package experiments

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/exprun"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

var testNow = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

// harness is the group mounted on a router over a table, with two organizations to act as
// and a clock that tests move; every response is checked against docs/openapi.yaml.
type harness struct {
	t          *testing.T
	tbl        store.Table
	rt         *httpapi.Router
	v          *apitest.V
	org, other authtest.Org
	env        *authtest.Env

	clock *authtest.Clock
	queue *memQueue // chunk messages of started jobs (run_test.go)
}

func newHarness(t *testing.T, tbl store.Table) *harness {
	t.Helper()
	if tbl == nil {
		tbl = testenv.Embedded(t)
	}
	h := &harness{t: t, tbl: tbl, v: apitest.Validator(t), clock: authtest.NewClock(testNow), queue: &memQueue{}}
	h.env = authtest.New(t, tbl, auth.Config{})
	h.rt = httpapi.NewRouter(slog.New(slog.DiscardHandler))
	Register(h.rt, Deps{Deps: base.Deps{Table: tbl, Authenticate: h.env.Service.Authenticate, Now: h.clock.Now},
		Runs: &exprun.Service{Table: tbl, Queue: h.queue, Now: h.clock.Now}})
	h.org, h.other = h.env.Org(t), h.env.Org(t)
	return h
}

// counting mounts the group again with its table wrapped in a counter (authentication keeps
// the plain table, so only the operation's own calls are counted) and returns the counter.
func (h *harness) counting() *storecount.Table {
	c := storecount.New(h.tbl)
	h.rt = httpapi.NewRouter(slog.New(slog.DiscardHandler))
	Register(h.rt, Deps{Deps: base.Deps{Table: c, Authenticate: h.env.Service.Authenticate, Now: h.clock.Now}})
	return c
}

// do sends a request as who (nil: without credentials) and returns the status and body.
func (h *harness) do(who *authtest.User, method, path, body string) (int, string) {
	rec := authtest.Do(h.t, h.rt, h.v, who, method, path, body)
	return rec.Code, rec.Body.String()
}

// project creates a project of org's organization directly in the store.
func (h *harness) project(org authtest.Org) string {
	h.t.Helper()
	now := h.clock.Now()
	p := store.Project{ID: uuid.NewString(), OrgID: org.ID, Name: "p-" + uuid.NewString()[:8], CreatedBy: org.Admin.UserID, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateProject(h.t.Context(), h.tbl, p); err != nil {
		h.t.Fatal(err)
	}
	return p.ID
}

// create posts an experiment and returns its id.
func (h *harness) create(who *authtest.User, projectID, body string) string {
	h.t.Helper()
	code, resp := h.do(who, "POST", experimentsPath(projectID), body)
	var e struct{ ID string }
	if err := json.Unmarshal([]byte(resp), &e); code != http.StatusOK || err != nil {
		h.t.Fatalf("create experiment: %d %s", code, resp)
	}
	return e.ID
}

// list gets the experiments of the project and decodes them.
func (h *harness) list(who *authtest.User, projectID, query string) []map[string]any {
	h.t.Helper()
	code, resp := h.do(who, "GET", experimentsPath(projectID)+query, "")
	var out []map[string]any
	if err := json.Unmarshal([]byte(resp), &out); code != http.StatusOK || err != nil {
		h.t.Fatalf("list experiments: %d %s", code, resp)
	}
	return out
}

func experimentsPath(projectID string) string { return "/v2/projects/" + projectID + "/experiments" }

// subset checks that each key of want has the same JSON value in got.
func subset(t *testing.T, got map[string]any, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	for k, v := range w {
		if !reflect.DeepEqual(got[k], v) {
			g, _ := json.Marshal(got[k])
			e, _ := json.Marshal(v)
			t.Errorf("%s: got %s, want %s", k, g, e)
		}
	}
}
