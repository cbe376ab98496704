package datasets_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/base"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/datasets"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

var t0 = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

// harness is the datasets group on an embedded store, behind the real authentication, with
// an organization of one user per role and a clock the test moves.
type harness struct {
	t     *testing.T
	db    store.Table
	items *itemCounter      // what the handlers read and write, in items
	calls *storecount.Table // ... and in calls
	auth  *authtest.Env
	org   authtest.Org
	rt    *httpapi.Router
	v     *apitest.V
	clock *authtest.Clock
}

type harnessOptions struct {
	onCommit func([]embedded.Change) // the store's stream, when a test needs it
	table    store.Table             // another backend than a fresh embedded store
	cached   bool                    // the segment and page caches, as a function instance has them
}

func newHarness(t *testing.T, opts ...harnessOptions) *harness {
	t.Helper()
	var o harnessOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	db := o.table
	if db == nil {
		var e *embedded.DB
		var err error
		if o.onCommit != nil {
			e, err = embedded.Open(t.TempDir()+"/datasets.db", embedded.Options{OnCommit: o.onCommit})
		} else {
			e, err = embedded.OpenMemory()
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		db = e
	}
	h := &harness{t: t, db: db, clock: authtest.NewClock(t0), v: apitest.Validator(t)}
	h.items = &itemCounter{Table: db}
	h.calls = storecount.New(h.items)
	h.auth = authtest.New(t, db, auth.Config{})
	h.org = h.auth.Org(t)
	h.rt = httpapi.NewRouter(slog.New(slog.DiscardHandler))
	deps := datasets.Deps{Deps: base.Deps{Table: h.calls, Authenticate: h.auth.Service.Authenticate, Now: h.clock.Now}}
	if o.cached {
		deps.Segments = store.NewSegmentCache(store.DefaultSegmentCacheBytes)
		deps.Pages = datasets.NewPageCache(datasets.DefaultPageCacheBytes)
	}
	datasets.Register(h.rt, deps)
	return h
}

// response is a recorded answer.
type response struct {
	code   int
	header http.Header
	body   []byte
}

// decode unmarshals the body into v, failing the test when it is not JSON.
func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
}

// request sends a request as user (none when nil) with a JSON body (none when nil; a
// string is sent as is) and extra headers (name, value, ...), and checks the answer against
// the OpenAPI document.
func (h *harness) request(user *authtest.User, method, path string, body any, header ...string) response {
	h.t.Helper()
	var r io.Reader = http.NoBody
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, r)
	req.Header.Set("Content-Type", "application/json")
	if user != nil {
		for k, vs := range user.Header() {
			req.Header[k] = vs
		}
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.rt.ServeHTTP(rec, req)
	if err := h.v.Validate(req, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
		// docs/openapi.yaml's ValidationError declares input as {}, which kin-openapi reads
		// as not nullable, while Pydantic's missing-field errors carry "input": null. Until
		// the shared schema says so, that one mismatch is logged rather than failed.
		if rec.Code == http.StatusUnprocessableEntity && strings.Contains(err.Error(), `/input": Value is not nullable`) {
			h.t.Logf("known document gap: %v", err)
		} else {
			h.t.Errorf("response does not match docs/openapi.yaml: %s %s -> %d: %v\nbody: %.2000s", method, path, rec.Code, err, rec.Body.Bytes())
		}
	}
	return response{code: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// must sends a request that must answer 200 and decodes its body into out (when not nil).
func (h *harness) must(user *authtest.User, method, path string, body, out any, header ...string) response {
	h.t.Helper()
	resp := h.request(user, method, path, body, header...)
	if resp.code != http.StatusOK {
		h.t.Fatalf("%s %s: %d %s", method, path, resp.code, resp.body)
	}
	if out != nil {
		resp.decode(h.t, out)
	}
	return resp
}

// datasetOut is the Dataset of the write operations.
type datasetOut struct {
	ID                  string   `json:"id"`
	Name                string   `json:"name"`
	ColumnNames         []string `json:"column_names"`
	NumRows             int      `json:"num_rows"`
	CurrentVersionIndex int      `json:"current_version_index"`
}

// create makes a dataset through the API as user.
func (h *harness) create(user authtest.User, name string, columns []string, rows any) datasetOut {
	h.t.Helper()
	var d datasetOut
	h.must(&user, "POST", "/v2/datasets", map[string]any{"name": name, "column_names": columns, "rows": rows}, &d)
	return d
}

// seed writes a dataset of n rows ([i, "q<i>"] in columns n, q) straight into the store, for
// sizes a request body cannot carry.
func (h *harness) seed(user authtest.User, n int, value func(i int) []any) store.Dataset {
	h.t.Helper()
	if value == nil {
		value = func(i int) []any { return []any{int64(i), "q" + strconv.Itoa(i)} }
	}
	rows := make([]store.NewDatasetRow, n)
	for i := range rows {
		rows[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: value(i)}
	}
	d := store.Dataset{ID: uuid.NewString(), OrgID: user.OrgID, Name: "seeded", ColumnNames: []string{"n", "q"},
		CreatedBy: user.UserID, CreatedAt: t0}
	owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: d.ID, OrgID: user.OrgID, UserID: user.UserID,
		Role: store.DatasetOwner, CreatedBy: user.UserID, CreatedAt: t0}
	d, err := store.CreateDataset(h.t.Context(), h.db, d, owner, rows)
	if err != nil {
		h.t.Fatal(err)
	}
	return d
}

// shareUser gives user role on dataset id as the dataset's owner.
func (h *harness) shareUser(owner authtest.User, id string, user authtest.User, role string) {
	h.t.Helper()
	h.must(&owner, "POST", "/v2/datasets/"+id+"/users", []map[string]any{{"user_id": user.UserID, "role": role}}, nil)
}

// sameJSON reports whether two JSON texts hold the same value (object keys in any order).
func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// problems sums up a 422 as "type@loc" per problem (loc joined by dots), comma-separated.
func problems(t *testing.T, r response) string {
	t.Helper()
	var body struct {
		Detail []struct {
			Type string `json:"type"`
			Loc  []any  `json:"loc"`
		} `json:"detail"`
	}
	r.decode(t, &body)
	var out []string
	for _, d := range body.Detail {
		loc := make([]string, len(d.Loc))
		for i, l := range d.Loc {
			loc[i] = fmt.Sprint(l)
		}
		out = append(out, d.Type+"@"+strings.Join(loc, "."))
	}
	return strings.Join(out, ",")
}
