package datasets_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

// TestCreate creates datasets and checks the answer field by field.
func TestCreate(t *testing.T) {
	h := newHarness(t)
	c := h.org.User
	project := store.Project{ID: uuid.NewString(), OrgID: h.org.ID, Name: "p", CreatedBy: c.UserID, CreatedAt: t0, UpdatedAt: t0}
	if err := store.CreateProject(t.Context(), h.db, project); err != nil {
		t.Fatal(err)
	}
	perms := `[{"action":"update","allowed":true,"message":null},{"action":"delete","allowed":true,"message":null},` +
		`{"action":"share","allowed":true,"message":null},{"action":"export","allowed":true,"message":null},{"action":"rename","allowed":true,"message":null}]`
	user := fmt.Sprintf(`{"id":"%s","email":"%s","first_name":"%s","last_name":"%s"}`, c.UserID, c.Email, c.FirstName, c.LastName)
	tests := []struct {
		name    string
		body    map[string]any
		project string
		rows    int
	}{
		{"columns only", map[string]any{"name": "empty", "column_names": []string{"a"}}, "null", 0},
		{"rows as lists and objects", map[string]any{"name": "mixed", "column_names": []string{"a", "b"},
			"rows": []any{[]any{"x", 1.5}, map[string]any{"b": map[string]any{"k": "v", "n": nil}}, []any{true, nil}}}, "null", 3},
		{"in a project", map[string]any{"name": "p", "column_names": []string{"a"}, "rows": nil, "project_id": project.ID}, `"` + project.ID + `"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.must(&c, "POST", "/v2/datasets", tt.body, nil)
			var d datasetOut
			resp.decode(t, &d)
			cols, _ := encodeJSON(tt.body["column_names"])
			count := 0
			if tt.project != "null" {
				count = 1
			}
			want := fmt.Sprintf(`{"id":"%s","name":"%s","project_id":%s,"column_names":%s,"num_rows":%d,"current_version_index":1,`+
				`"created_at":"2026-04-01T09:00:00Z","updated_at":"2026-04-01T09:00:00Z","created_by_user":%s,"permissions":%s,`+
				`"project_count":%d,"draft":false,"hidden":false}`,
				d.ID, tt.body["name"], tt.project, cols, tt.rows, user, perms, count)
			if !sameJSON(resp.body, []byte(want)) || resp.header.Get("ETag") != `"1"` {
				t.Errorf("got  %s (ETag %s)\nwant %s", resp.body, resp.header.Get("ETag"), want)
			}
		})
	}
	t.Run("values as stored", func(t *testing.T) {
		d := h.create(c, "values", []string{"a", "b"}, []any{[]any{true, nil}, map[string]any{"b": map[string]any{"k": "v"}}})
		var p page
		resp := h.must(&c, "GET", "/v2/datasets/"+d.ID+"/content", nil, &p)
		if !strings.Contains(string(resp.body), `"values":[1,null]`) || !strings.Contains(string(resp.body), `"values":[null,{"k":"v"}]`) {
			t.Errorf("content %s", resp.body)
		}
	})
}

// TestCreateRefusals sends bodies that fail validation, and requests the caller may not make.
func TestCreateRefusals(t *testing.T) {
	h := newHarness(t)
	big := strings.Repeat("x", store.MaxDatasetRowBytes)
	tests := []struct {
		name   string
		body   any
		status int
		want   string // "type@loc,..." for a 422, else the body
	}{
		{"no fields", map[string]any{}, 422, "missing@body.name,missing@body.column_names"},
		{"empty name", map[string]any{"name": "", "column_names": []string{"a"}}, 422, "string_too_short@body.name"},
		{"no columns", map[string]any{"name": "n", "column_names": []string{}}, 422, "too_short@body.column_names"},
		{"column twice", map[string]any{"name": "n", "column_names": []string{"a", "b", "a"}}, 422, "value_error@body.column_names.2"},
		{"column not a string", map[string]any{"name": "n", "column_names": []any{1}}, 422, "string_type@body.column_names.0"},
		{"row too long", map[string]any{"name": "n", "column_names": []string{"a"}, "rows": [][]any{{1, 2}}}, 422, "value_error@body.rows.0"},
		{"unknown column", map[string]any{"name": "n", "column_names": []string{"a"}, "rows": []any{map[string]any{"b": 1}}}, 422, "value_error@body.rows.0.b"},
		{"row not a list", map[string]any{"name": "n", "column_names": []string{"a"}, "rows": []any{"x"}}, 422, "value_error@body.rows.0"},
		{"nested too deep", map[string]any{"name": "n", "column_names": []string{"a"}, "rows": []any{map[string]any{"a": map[string]any{"b": map[string]any{}}}}}, 422, "value_error@body.rows.0.a.b"},
		{"rows not a list", map[string]any{"name": "n", "column_names": []string{"a"}, "rows": "x"}, 422, "list_type@body.rows"},
		{"bad project id", map[string]any{"name": "n", "column_names": []string{"a"}, "project_id": "x"}, 422, "uuid_parsing@body.project_id"},
		{"row too large", map[string]any{"name": "n", "column_names": []string{"a"}, "rows": [][]any{{big}}}, 422, "value_error@body.rows.0"},
		{"everything at once", map[string]any{"name": 1, "column_names": "a", "rows": []any{7}}, 422, "string_type@body.name,list_type@body.column_names,value_error@body.rows.0"},
		{"body not an object", []any{}, 422, "model_attributes_type@body"},
		{"unknown project", map[string]any{"name": "n", "column_names": []string{"a"}, "project_id": uuid.NewString()}, 404, `{"detail":"Project not found"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.request(&h.org.User, "POST", "/v2/datasets", tt.body)
			got := string(resp.body)
			if resp.code == http.StatusUnprocessableEntity {
				got = problems(t, resp)
			}
			if resp.code != tt.status || got != tt.want {
				t.Errorf("got %d %s\nwant %d %s", resp.code, got, tt.status, tt.want)
			}
		})
	}
	// The operation's query parameters hold for a JSON body too, as FastAPI validates every
	// declared parameter whatever the body; query problems come before the body's.
	for _, tt := range []struct{ query, want string }{
		{"hidden=297", "bool_parsing@query.hidden"},
		{"format=xlsx", "enum@query.format"},
		{"hidden=maybe&format=xlsx", "enum@query.format,bool_parsing@query.hidden,missing@body.name"},
	} {
		t.Run("query "+tt.query, func(t *testing.T) {
			body := map[string]any{"name": "q", "column_names": []string{"a"}}
			if strings.Contains(tt.want, "missing@body.name") {
				body = map[string]any{"column_names": []string{"a"}}
			}
			resp := h.request(&h.org.User, "POST", "/v2/datasets?"+tt.query, body)
			if resp.code != http.StatusUnprocessableEntity {
				t.Fatalf("got %d %s, want 422", resp.code, resp.body)
			}
			if got := problems(t, resp); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	t.Run("read-only member", func(t *testing.T) {
		resp := h.request(&h.org.ReadOnly, "POST", "/v2/datasets", map[string]any{"name": "n", "column_names": []string{"a"}})
		if resp.code != http.StatusForbidden {
			t.Errorf("got %d %s", resp.code, resp.body)
		}
	})
}

func encodeJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
