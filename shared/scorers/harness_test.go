package scorers

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/base"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

var testNow = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

// harness is the group mounted on a router over a table, with two organizations to act as;
// every response is checked against docs/openapi.yaml.
type harness struct {
	t          *testing.T
	tbl        store.Table
	rt         *httpapi.Router
	v          *apitest.V
	org, other authtest.Org
}

func newHarness(t *testing.T, tbl store.Table) *harness {
	t.Helper()
	if tbl == nil {
		tbl = testenv.Embedded(t)
	}
	env := authtest.New(t, tbl, auth.Config{})
	rt := httpapi.NewRouter(slog.New(slog.DiscardHandler))
	Register(rt, Deps{Deps: base.Deps{Table: tbl, Authenticate: env.Service.Authenticate, Now: func() time.Time { return testNow }}})
	return &harness{t: t, tbl: tbl, rt: rt, v: apitest.Validator(t), org: env.Org(t), other: env.Org(t)}
}

// do sends a request as who (nil: without credentials) and returns the status and body. It
// is safe to call from several goroutines.
func (h *harness) do(who *authtest.User, method, path, body string) (int, string) {
	rec := authtest.Do(h.t, h.rt, h.v, who, method, path, body)
	return rec.Code, rec.Body.String()
}

// scorer creates a scorer of who's organization from a create body and returns its id.
func (h *harness) scorer(who *authtest.User, body string) string {
	h.t.Helper()
	code, resp := h.do(who, "POST", "/v2/scorers", body)
	var s struct{ ID string }
	if err := json.Unmarshal([]byte(resp), &s); code != http.StatusOK || err != nil {
		h.t.Fatalf("create scorer: %d %s", code, resp)
	}
	return s.ID
}

func eachTable(t *testing.T, fn func(t *testing.T, tbl store.Table)) { testenv.EachTable(t, fn) }
