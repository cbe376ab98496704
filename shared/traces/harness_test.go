package traces

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
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

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// harness is the group mounted on a router over an embedded table, with the example project
// seeded in one organization and a second organization to act as; every response is checked
// against docs/openapi.yaml.
type harness struct {
	t          testing.TB
	tbl        store.Table
	rt         *httpapi.Router
	v          *apitest.V
	org, other authtest.Org
	// authWait waits for the writes authentication makes after answering (a key's last use).
	authWait func()
	// legacyIDs marks the requests of a test of records stored with pre-UUID4 ids, which the
	// suite's UUID4 contract then does not record (apitest.WithLegacyIDs).
	legacyIDs bool
}

func newHarness(t *testing.T, bound int64) *harness {
	t.Helper()
	return newHarnessOn(t, testenv.Embedded(t), Deps{ScanBound: bound})
}

// newHarnessOn is newHarness on table tbl with the group's settings d (its base filled in).
func newHarnessOn(t testing.TB, tbl store.Table, d Deps) *harness {
	t.Helper()
	env := authtest.New(t, tbl, auth.Config{})
	rt := httpapi.NewRouter(slog.New(slog.DiscardHandler))
	d.Deps = base.Deps{Table: tbl, Authenticate: env.Service.Authenticate, Now: func() time.Time { return testNow }}
	Register(rt, d)
	RegisterOTLP(rt, d)
	h := &harness{t: t, tbl: tbl, rt: rt, v: apitest.Validator(t), org: env.Org(t), other: env.Org(t), authWait: env.Service.Wait}
	if err := SeedExample(t.Context(), tbl, h.org.ID, h.org.Admin.UserID, testNow); err != nil {
		t.Fatal(err)
	}
	return h
}

// do sends a request as who (nil: without credentials) and returns the status and body.
func (h *harness) do(who *authtest.User, method, path, body string) (int, string) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if who != nil {
		req.Header = who.Header()
	}
	req.Header.Set("Content-Type", "application/json")
	if h.legacyIDs {
		req = apitest.WithLegacyIDs(req)
	}
	rec := httptest.NewRecorder()
	h.rt.ServeHTTP(rec, req)
	h.v.CheckRecorder(h.t, req, rec)
	return rec.Code, rec.Body.String()
}

const (
	searchPath = "/v2/projects/" + ExampleProjectID + "/metrics/search"
	ingestPath = "/v2/projects/" + ExampleProjectID + "/traces"
)

// search runs a metrics search expected to succeed and decodes its answer.
func (h *harness) search(body string) searchAnswer {
	h.t.Helper()
	code, resp := h.do(&h.org.Admin, "POST", searchPath, body)
	if code != http.StatusOK {
		h.t.Fatalf("search %s: %d %s", body, code, resp)
	}
	var a searchAnswer
	if err := json.Unmarshal([]byte(resp), &a); err != nil {
		h.t.Fatal(err)
	}
	return a
}

type searchAnswer struct {
	GroupByColumns   []string                    `json:"group_by_columns"`
	AggregateMetrics map[string]any              `json:"aggregate_metrics"`
	BucketedMetrics  map[string][]map[string]any `json:"bucketed_metrics"`
	EMSCapturedError bool                        `json:"ems_captured_error"`
	StandardErrors   map[string]map[string]any   `json:"standard_errors"`
}

// detail decodes a 422 body.
func detail(t *testing.T, body string) []map[string]any {
	t.Helper()
	var d struct {
		Detail []map[string]any `json:"detail"`
	}
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return d.Detail
}
