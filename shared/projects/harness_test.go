package projects

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

var testNow = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

// harness is the group mounted on a router over an embedded table, with two organizations
// to act as; every response is checked against docs/openapi.yaml.
type harness struct {
	t          *testing.T
	now        time.Time // the clock records are stamped with; advance moves it
	tbl        store.Table
	rt         *httpapi.Router
	v          *apitest.V
	org, other authtest.Org
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	env := authtest.New(t, db, auth.Config{})
	rt := httpapi.NewRouter(slog.New(slog.DiscardHandler))
	h := &harness{t: t, now: testNow, tbl: db, rt: rt, v: apitest.Validator(t), org: env.Org(t), other: env.Org(t)}
	Register(rt, Deps{Deps: base.Deps{Table: db, Authenticate: env.Service.Authenticate, Now: func() time.Time { return h.now }}, Prices: fakePrices{}})
	return h
}

// advance moves the harness's clock (tests run one at a time on a harness).
func (h *harness) advance(d time.Duration) { h.now = h.now.Add(d) }

// do sends a request as who (nil: without credentials) and returns the status and body.
func (h *harness) do(who *authtest.User, method, path, body string) (int, string) {
	rec := authtest.Do(h.t, h.rt, h.v, who, method, path, body)
	return rec.Code, rec.Body.String()
}

// must sends a request that has to succeed and decodes its JSON answer into out.
func (h *harness) must(who *authtest.User, method, path, body string, out any) {
	h.t.Helper()
	code, resp := h.do(who, method, path, body)
	if code != http.StatusOK {
		h.t.Fatalf("%s %s = %d %s", method, path, code, resp)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(resp), out); err != nil {
			h.t.Fatal(err)
		}
	}
}

type created struct {
	ID        string `json:"id"`
	ProjectID string `json:"project_id"`
}

// project creates a project of who's organization and returns its id.
func (h *harness) project(who *authtest.User, name string) string {
	var p created
	h.must(who, "POST", "/v2/projects", `{"name":"`+name+`"}`, &p)
	return p.ID
}

// logStream creates a log stream of the project and returns its id.
func (h *harness) logStream(who *authtest.User, projectID, name string) string {
	var ls created
	h.must(who, "POST", "/v2/projects/"+projectID+"/log_streams", `{"name":"`+name+`"}`, &ls)
	return ls.ID
}
