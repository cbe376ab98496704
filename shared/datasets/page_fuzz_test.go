package datasets_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
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
)

// FuzzContentPage pages through a dataset of fuzzRows rows with any starting_token and
// limit: the answer is 200 or a 422 under query (never a 500), matches docs/openapi.yaml,
// and a 200 holds the rows [start, start+limit) of the dataset with the next token exactly
// when rows remain.
func FuzzContentPage(f *testing.F) {
	const fuzzRows = 7
	db, err := embedded.OpenMemory()
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	env := authtest.New(f, db, auth.Config{})
	org := env.Org(f)
	rt := httpapi.NewRouter(slog.New(slog.DiscardHandler))
	datasets.Register(rt, datasets.Deps{Deps: base.Deps{Table: db, Authenticate: env.Service.Authenticate, Now: func() time.Time { return t0 }}})
	v := apitest.Validator(f)

	d := store.Dataset{ID: uuid.NewString(), OrgID: org.ID, Name: "fuzz", ColumnNames: []string{"n"}, CreatedBy: org.Admin.UserID, CreatedAt: t0}
	owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: d.ID, OrgID: org.ID, UserID: org.Admin.UserID,
		Role: store.DatasetOwner, CreatedBy: org.Admin.UserID, CreatedAt: t0}
	rows := make([]store.NewDatasetRow, fuzzRows)
	for i := range rows {
		rows[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: []any{int64(i)}}
	}
	if _, err := store.CreateDataset(f.Context(), db, d, owner, rows); err != nil {
		f.Fatal(err)
	}

	for _, c := range [][2]string{{"0", "1"}, {"3", "100"}, {"7", "1"}, {"100", "100000"}, {"-1", "0"}, {"", "100001"},
		{"x", "2.0"}, {"1e2", " 3"}, {"99999999999999999999", "-0"}} {
		f.Add(c[0], c[1], true, true)
	}
	f.Fuzz(func(t *testing.T, start, limit string, sendStart, sendLimit bool) {
		q := url.Values{}
		if sendStart {
			q.Set("starting_token", start)
		}
		if sendLimit {
			q.Set("limit", limit)
		}
		req := httptest.NewRequest(http.MethodGet, "/v2/datasets/"+d.ID+"/content?"+q.Encode(), nil)
		for k, vs := range org.Admin.Header() {
			req.Header[k] = vs
		}
		rec := httptest.NewRecorder()
		rt.ServeHTTP(rec, req)
		// A 422 is checked below, not against the document: its ValidationError declares
		// input as {} while Pydantic's problems may carry any input (see harness_test.go).
		if err := v.Validate(req, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil && rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d does not match docs/openapi.yaml: %v", req.URL, rec.Code, err)
		}
		switch rec.Code {
		case http.StatusUnprocessableEntity:
			var out struct {
				Detail []struct {
					Type string `json:"type"`
					Loc  []any  `json:"loc"`
				} `json:"detail"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || len(out.Detail) == 0 {
				t.Fatalf("422 body %s: %v", rec.Body, err)
			}
			for _, p := range out.Detail {
				if p.Type == "" || len(p.Loc) != 2 || p.Loc[0] != "query" {
					t.Fatalf("422 problem %+v, want one at [query, name]", p)
				}
			}
		case http.StatusOK:
			var out struct {
				StartingToken     int               `json:"starting_token"`
				Limit             int               `json:"limit"`
				NextStartingToken *int              `json:"next_starting_token"`
				Rows              []json.RawMessage `json:"rows"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
				t.Fatalf("200 body %s: %v", rec.Body, err)
			}
			if n, err := strconv.Atoi(start); sendStart && err == nil && n != out.StartingToken {
				t.Fatalf("starting_token=%q answered as %d", start, out.StartingToken)
			}
			if out.StartingToken < 0 || out.Limit < 1 || out.Limit > 100000 {
				t.Fatalf("accepted page (%d, %d)", out.StartingToken, out.Limit)
			}
			want := max(0, min(out.Limit, fuzzRows-out.StartingToken))
			if len(out.Rows) != want {
				t.Fatalf("page (%d, %d) of %d rows holds %d rows, want %d", out.StartingToken, out.Limit, fuzzRows, len(out.Rows), want)
			}
			next := out.StartingToken + len(out.Rows)
			if (next < fuzzRows) != (out.NextStartingToken != nil) || out.NextStartingToken != nil && *out.NextStartingToken != next {
				t.Fatalf("page (%d, %d): next_starting_token %v, want %d only when rows remain", out.StartingToken, out.Limit, out.NextStartingToken, next)
			}
		default:
			t.Fatalf("%s answered %d %s", req.URL, rec.Code, rec.Body)
		}
	})
}
