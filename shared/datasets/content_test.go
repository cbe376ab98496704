package datasets_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
)

// page is the dataset content of §2.6 as a client reads it.
type page struct {
	StartingToken     int      `json:"starting_token"`
	Limit             int      `json:"limit"`
	Paginated         bool     `json:"paginated"`
	NextStartingToken *int     `json:"next_starting_token"`
	ColumnNames       []string `json:"column_names"`
	WarningMessage    *string  `json:"warning_message"`
	Rows              []row    `json:"rows"`
}

type row struct {
	RowID      string         `json:"row_id"`
	Index      int            `json:"index"`
	Values     []any          `json:"values"`
	ValuesDict map[string]any `json:"values_dict"`
	Metadata   rowMeta        `json:"metadata"`
}

type rowMeta struct {
	CreatedInVersion int       `json:"created_in_version"`
	CreatedAt        string    `json:"created_at"`
	CreatedByUser    *userInfo `json:"created_by_user"`
	UpdatedInVersion int       `json:"updated_in_version"`
	UpdatedAt        string    `json:"updated_at"`
	UpdatedByUser    *userInfo `json:"updated_by_user"`
}

type userInfo struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

func infoOf(u authtest.User) *userInfo {
	return &userInfo{ID: u.UserID, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName}
}

func ptr[T any](v T) *T { return &v }

// TestContentPages reads a dataset of 250 rows at its first, middle and last pages and past
// its end: every field of the envelope, and every row's position and values.
func TestContentPages(t *testing.T) { runContentPages(t, newHarness(t)) }

func runContentPages(t *testing.T, h *harness) {
	owner := h.org.User
	rows := make([][]any, 250)
	for i := range rows {
		rows[i] = []any{i, fmt.Sprint("q", i)}
	}
	d := h.create(owner, "pages", []string{"n", "q"}, rows)

	tests := []struct {
		name, query string
		start, lim  int
		next        *int
		first, n    int
	}{
		{"defaults", "", 0, 100, ptr(100), 0, 100},
		{"first", "?starting_token=0&limit=100", 0, 100, ptr(100), 0, 100},
		{"middle", "?starting_token=100&limit=100", 100, 100, ptr(200), 100, 100},
		{"last", "?starting_token=200&limit=100", 200, 100, nil, 200, 50},
		{"last, exactly full", "?starting_token=150&limit=100", 150, 100, nil, 150, 100},
		{"one row", "?starting_token=249&limit=1", 249, 1, nil, 249, 1},
		{"small pages", "?starting_token=7&limit=3", 7, 3, ptr(10), 7, 3},
		{"past the end", "?starting_token=250&limit=100", 250, 100, nil, 0, 0},
		{"far past the end", "?starting_token=100000&limit=5", 100000, 5, nil, 0, 0},
		{"largest limit", "?limit=100000", 0, 100000, nil, 0, 250},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p page
			resp := h.must(&owner, "GET", "/v2/datasets/"+d.ID+"/content"+tt.query, nil, &p)
			want := page{StartingToken: tt.start, Limit: tt.lim, Paginated: tt.next != nil, NextStartingToken: tt.next,
				ColumnNames: []string{"n", "q"}, Rows: p.Rows}
			if !reflect.DeepEqual(p, want) {
				t.Errorf("envelope = %+v\n     want %+v", p, want)
			}
			if len(p.Rows) != tt.n {
				t.Fatalf("%d rows, want %d", len(p.Rows), tt.n)
			}
			for i, r := range p.Rows {
				idx := tt.first + i
				wantRow := row{RowID: r.RowID, Index: idx,
					Values:     []any{float64(idx), fmt.Sprint("q", idx)},
					ValuesDict: map[string]any{"n": float64(idx), "q": fmt.Sprint("q", idx)},
					Metadata: rowMeta{CreatedInVersion: 1, CreatedAt: "2026-04-01T09:00:00Z", CreatedByUser: infoOf(owner),
						UpdatedInVersion: 1, UpdatedAt: "2026-04-01T09:00:00Z", UpdatedByUser: infoOf(owner)}}
				if _, err := uuid.Parse(r.RowID); err != nil || !reflect.DeepEqual(r, wantRow) {
					t.Fatalf("row %d = %+v\n want %+v", i, r, wantRow)
				}
			}
			if tt.n > 0 && !strings.Contains(string(resp.body), fmt.Sprintf(`"values_dict":{"n":%d,"q":"q%d"}`, tt.first, tt.first)) {
				t.Errorf("values_dict does not follow the column order: %.300s", resp.body)
			}
			if got := resp.header.Get("ETag"); got != `"1"` {
				t.Errorf("ETag = %q, want \"1\"", got)
			}
		})
	}
}

// TestPaginationValidation sends pagination parameters out of range to both paginated
// operations: Pydantic's 422s, every problem at once, path before query.
func TestPaginationValidation(t *testing.T) {
	h := newHarness(t)
	d := h.create(h.org.User, "v", []string{"a"}, nil)
	tests := []struct {
		name, query, want string
	}{
		{"limit 0", "?limit=0",
			`{"detail":[{"type":"greater_than_equal","loc":["query","limit"],"msg":"Input should be greater than or equal to 1","input":"0","ctx":{"ge":1}}]}`},
		{"limit over the maximum", "?limit=100001",
			`{"detail":[{"type":"less_than_equal","loc":["query","limit"],"msg":"Input should be less than or equal to 100000","input":"100001","ctx":{"le":100000}}]}`},
		{"negative starting token", "?starting_token=-1",
			`{"detail":[{"type":"greater_than_equal","loc":["query","starting_token"],"msg":"Input should be greater than or equal to 0","input":"-1","ctx":{"ge":0}}]}`},
		{"not numbers", "?starting_token=x&limit=1.5",
			`{"detail":[{"type":"int_parsing","loc":["query","starting_token"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"},` +
				`{"type":"int_parsing","loc":["query","limit"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"1.5"}]}`},
	}
	for _, op := range []string{"content", "groups"} {
		for _, tt := range tests {
			t.Run(op+"/"+tt.name, func(t *testing.T) {
				resp := h.request(&h.org.User, "GET", "/v2/datasets/"+d.ID+"/"+op+tt.query, nil)
				if resp.code != http.StatusUnprocessableEntity || !sameJSON(resp.body, []byte(tt.want)) {
					t.Errorf("got %d %s\nwant 422 %s", resp.code, resp.body, tt.want)
				}
			})
		}
		t.Run(op+"/bad id and limit", func(t *testing.T) {
			resp := h.request(&h.org.User, "GET", "/v2/datasets/not-a-uuid/"+op+"?limit=0", nil)
			var body struct {
				Detail []struct {
					Type string `json:"type"`
					Loc  []any  `json:"loc"`
				} `json:"detail"`
			}
			resp.decode(t, &body)
			if resp.code != http.StatusUnprocessableEntity || len(body.Detail) != 2 ||
				body.Detail[0].Type != "uuid_parsing" || !reflect.DeepEqual(body.Detail[0].Loc, []any{"path", "dataset_id"}) ||
				body.Detail[1].Type != "greater_than_equal" {
				t.Errorf("got %d %s", resp.code, resp.body)
			}
		})
	}
}

// TestReadAccess checks who may read a dataset's content and groups: any role, held
// directly or through a group, and admins; others of the organization get 403, everybody
// else 404 as if the dataset did not exist.
func TestReadAccess(t *testing.T) {
	h := newHarness(t)
	owner := h.org.User
	d := h.create(owner, "access", []string{"a"}, [][]any{{"x"}})
	viewer := h.auth.AddUser(t, h.org.ID, auth.RoleUser)
	h.shareUser(owner, d.ID, viewer, "viewer")
	member := h.auth.AddUser(t, h.org.ID, auth.RoleUser)
	g := h.auth.Group(t, h.org, "annotators", member)
	h.must(&owner, "POST", "/v2/datasets/"+d.ID+"/groups", []map[string]any{{"group_id": g.ID, "role": "annotator"}}, nil)
	stranger := h.auth.Org(t).Admin

	tests := []struct {
		name   string
		user   authtest.User
		id     string
		status int
		body   string
	}{
		{"owner", owner, d.ID, 200, ""},
		{"org admin", h.org.Admin, d.ID, 200, ""},
		{"direct viewer", viewer, d.ID, 200, ""},
		{"group annotator", member, d.ID, 200, ""},
		{"no role", h.org.Manager, d.ID, 403, `{"detail":"You do not have access to this dataset"}`},
		{"admin of another org", stranger, d.ID, 404, `{"detail":"Dataset not found"}`},
		{"unknown dataset", owner, uuid.NewString(), 404, `{"detail":"Dataset not found"}`},
	}
	for _, op := range []string{"content", "groups"} {
		for _, tt := range tests {
			t.Run(op+"/"+tt.name, func(t *testing.T) {
				resp := h.request(&tt.user, "GET", "/v2/datasets/"+tt.id+"/"+op, nil)
				if resp.code != tt.status || (tt.body != "" && string(resp.body) != tt.body) {
					t.Errorf("got %d %s, want %d %s", resp.code, resp.body, tt.status, tt.body)
				}
			})
		}
	}
}

// TestContentSizeCap reads a dataset whose rows would make a page pass 5 MiB: pages stop
// short with a warning and continue from next_starting_token, and together hold every row.
func TestContentSizeCap(t *testing.T) {
	h := newHarness(t)
	big := strings.Repeat("x", 300_000)
	d := h.seed(h.org.User, 20, func(i int) []any { return []any{int64(i), big} })
	var seen []int
	for start, pages := 0, 0; ; pages++ {
		if pages > 20 {
			t.Fatal("the pages do not advance")
		}
		var p page
		resp := h.must(&h.org.User, "GET", fmt.Sprintf("/v2/datasets/%s/content?starting_token=%d&limit=100", d.ID, start), nil, &p)
		if len(resp.body) > 5<<20 {
			t.Fatalf("a page of %d bytes", len(resp.body))
		}
		for _, r := range p.Rows {
			seen = append(seen, r.Index)
		}
		if p.NextStartingToken == nil {
			if p.WarningMessage != nil {
				t.Errorf("the last page warns: %s", *p.WarningMessage)
			}
			break
		}
		if p.WarningMessage == nil || !strings.Contains(*p.WarningMessage, "5 MiB") || !p.Paginated ||
			*p.NextStartingToken != start+len(p.Rows) || len(p.Rows) == 0 || len(p.Rows) >= 20 {
			t.Fatalf("a cut page: %d rows, next %v, warning %v", len(p.Rows), p.NextStartingToken, p.WarningMessage)
		}
		start = *p.NextStartingToken
	}
	for i, idx := range seen {
		if idx != i {
			t.Fatalf("rows read in order %v", seen)
		}
	}
	if len(seen) != 20 {
		t.Fatalf("read %d rows, want 20", len(seen))
	}
}
