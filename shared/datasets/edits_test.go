package datasets_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

// versionOut is the original's DatasetVersionDB, as far as the tests read it.
type versionOut struct {
	VersionIndex   int      `json:"version_index"`
	Name           *string  `json:"name"`
	NumRows        int      `json:"num_rows"`
	ColumnNames    []string `json:"column_names"`
	RowsAdded      int      `json:"rows_added"`
	RowsRemoved    int      `json:"rows_removed"`
	RowsEdited     int      `json:"rows_edited"`
	ColumnsAdded   int      `json:"columns_added"`
	ColumnsRemoved int      `json:"columns_removed"`
	ColumnsRenamed int      `json:"columns_renamed"`
	CreatedByUser  *struct {
		ID string `json:"id"`
	} `json:"created_by_user"`
}

type versionList struct {
	Versions          []versionOut `json:"versions"`
	NextStartingToken *int         `json:"next_starting_token"`
	Paginated         bool         `json:"paginated"`
}

// stats is what a version changed: rows added, removed, edited; columns added, removed,
// renamed.
type stats [6]int

func (v versionOut) stats() stats {
	return stats{v.RowsAdded, v.RowsRemoved, v.RowsEdited, v.ColumnsAdded, v.ColumnsRemoved, v.ColumnsRenamed}
}

// rowsOf is a page's rows as "value|value" strings.
func rowsOf(p page) []string {
	out := make([]string, len(p.Rows))
	for i, r := range p.Rows {
		parts := make([]string, len(r.Values))
		for j, v := range r.Values {
			parts[j] = fmt.Sprint(v)
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

// TestContentEditKinds sends each edit kind of the original's clients (PATCH .../content,
// by the client's unprefixed path and by /v2) to a dataset at version 1: each answers 204
// with no body and the ETag of version 2, the dataset moves to version 2, the content is
// the edit applied, version 2's record counts what changed, and version 1 reads as before.
func TestContentEditKinds(t *testing.T) {
	h := newHarness(t)
	u := h.org.User
	// copy_record_data copies traces of a project of the caller's organization.
	project, trace := h.projectWithTrace(u.OrgID, u.UserID)

	for i, tc := range []struct {
		kind    string
		columns []string
		edit    func(rowIDs []string) map[string]any
		want    []string
		cols    []string
		stats   stats
	}{
		{"append_row", []string{"q", "a"}, func([]string) map[string]any {
			return map[string]any{"edit_type": "append_row", "values": map[string]any{"q": "q4", "a": 4}}
		}, []string{"q1|a1", "q2|a2", "q3|a3", "q4|4"}, []string{"q", "a"}, stats{1, 0, 0, 0, 0, 0}},
		{"prepend_row", []string{"q", "a"}, func([]string) map[string]any {
			return map[string]any{"edit_type": "prepend_row", "row_id": uuid.NewString(), "values": map[string]any{"q": "q0"}}
		}, []string{"q0|<nil>", "q1|a1", "q2|a2", "q3|a3"}, []string{"q", "a"}, stats{1, 0, 0, 0, 0, 0}},
		{"update_row", []string{"q", "a"}, func(ids []string) map[string]any {
			return map[string]any{"edit_type": "update_row", "row_id": ids[1], "values": map[string]any{"a": map[string]any{"k": "v"}}}
		}, []string{"q1|a1", "q2|map[k:v]", "q3|a3"}, []string{"q", "a"}, stats{0, 0, 1, 0, 0, 0}},
		{"update_row without edit_type", []string{"q", "a"}, func(ids []string) map[string]any {
			return map[string]any{"row_id": ids[0], "values": map[string]any{"q": nil}}
		}, []string{"<nil>|a1", "q2|a2", "q3|a3"}, []string{"q", "a"}, stats{0, 0, 1, 0, 0, 0}},
		{"delete_row", []string{"q", "a"}, func(ids []string) map[string]any {
			return map[string]any{"edit_type": "delete_row", "row_id": ids[0]}
		}, []string{"q2|a2", "q3|a3"}, []string{"q", "a"}, stats{0, 1, 0, 0, 0, 0}},
		{"filter_rows", []string{"q", "a"}, func(ids []string) map[string]any {
			return map[string]any{"edit_type": "filter_rows", "row_ids": []string{ids[2], ids[0]}}
		}, []string{"q1|a1", "q3|a3"}, []string{"q", "a"}, stats{0, 1, 0, 0, 0, 0}},
		{"rename_column", []string{"q", "a"}, func([]string) map[string]any {
			return map[string]any{"edit_type": "rename_column", "column_name": "a", "new_column_name": "answer"}
		}, []string{"q1|a1", "q2|a2", "q3|a3"}, []string{"q", "answer"}, stats{0, 0, 0, 0, 0, 1}},
		{"remove_column", []string{"q", "a"}, func([]string) map[string]any {
			return map[string]any{"edit_type": "remove_column", "column_name": "q"}
		}, []string{"a1", "a2", "a3"}, []string{"a"}, stats{0, 0, 0, 0, 1, 0}},
		{"copy_record_data", []string{"input", "output", "metadata"}, func([]string) map[string]any {
			return map[string]any{"edit_type": "copy_record_data", "project_id": project, "ids": []string{trace}}
		}, []string{"what is 2+2|4|map[env:test]", "q1|a1|<nil>", "q2|a2|<nil>", "q3|a3|<nil>"}, []string{"input", "output", "metadata"}, stats{1, 0, 0, 0, 0, 0}},
		{"copy_record_data appended, generated output", []string{"input", "generated_output"}, func([]string) map[string]any {
			return map[string]any{"edit_type": "copy_record_data", "project_id": project, "ids": []string{trace},
				"prepend": false, "use_generated_output_column": true}
		}, []string{"q1|a1", "q2|a2", "q3|a3", "what is 2+2|4"}, []string{"input", "generated_output"}, stats{1, 0, 0, 0, 0, 0}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			rows := []any{}
			for r := 1; r <= 3; r++ {
				row := []any{fmt.Sprintf("q%d", r), fmt.Sprintf("a%d", r)}
				for len(row) < len(tc.columns) {
					row = append(row, nil)
				}
				rows = append(rows, row)
			}
			d := h.create(u, "edits-"+tc.kind, tc.columns, rows)
			var before page
			h.must(&u, "GET", "/datasets/"+d.ID+"/content", nil, &before)
			ids := make([]string, len(before.Rows))
			for j, r := range before.Rows {
				ids[j] = r.RowID
			}
			path := "/datasets/" + d.ID + "/content"
			if i%2 == 1 {
				path = "/v2" + path
			}
			resp := h.request(&u, "PATCH", path, map[string]any{"edits": []any{tc.edit(ids)}}, "If-Match", `"1"`)
			if resp.code != http.StatusNoContent || len(resp.body) != 0 || resp.header.Get("ETag") != `"2"` {
				t.Fatalf("PATCH %s: %d %s, ETag %s; want 204, no body, \"2\"", path, resp.code, resp.body, resp.header.Get("ETag"))
			}
			var after datasetOut
			h.must(&u, "GET", "/datasets/"+d.ID, nil, &after)
			if after.CurrentVersionIndex != 2 || after.NumRows != len(tc.want) || !reflect.DeepEqual(after.ColumnNames, tc.cols) {
				t.Errorf("dataset after the edit: %+v, want version 2, %d rows, columns %v", after, len(tc.want), tc.cols)
			}
			var p page
			h.must(&u, "GET", "/datasets/"+d.ID+"/content", nil, &p)
			if got := rowsOf(p); !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(p.ColumnNames, tc.cols) {
				t.Errorf("content %q (columns %v), want %q (%v)", got, p.ColumnNames, tc.want, tc.cols)
			}
			var vl versionList
			h.must(&u, "GET", "/datasets/"+d.ID+"/versions", nil, &vl)
			if len(vl.Versions) != 2 {
				t.Fatalf("%d versions, want 2", len(vl.Versions))
			}
			if v := vl.Versions[0]; v.VersionIndex != 2 || v.stats() != tc.stats || v.NumRows != len(tc.want) || v.CreatedByUser == nil || v.CreatedByUser.ID != u.UserID {
				t.Errorf("version 2: %+v, want stats %v", v, tc.stats)
			}
			var v1 page
			h.must(&u, "GET", "/datasets/"+d.ID+"/versions/1/content", nil, &v1)
			if !reflect.DeepEqual(rowsOf(v1), rowsOf(before)) {
				t.Errorf("version 1 now reads %q, was %q", rowsOf(v1), rowsOf(before))
			}
		})
	}
}

// projectWithTrace writes a project of the organization with a log stream holding one
// trace, and returns the project's and the trace's ids.
func (h *harness) projectWithTrace(orgID, userID string) (string, string) {
	h.t.Helper()
	ctx := h.t.Context()
	now := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	p := store.Project{ID: uuid.NewString(), OrgID: orgID, Name: "records", Type: "gen_ai", CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	ls := store.LogStream{ID: uuid.NewString(), ProjectID: p.ID, OrgID: orgID, Name: "prod", CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	tr := store.Trace{ID: uuid.NewString(), RunID: ls.ID, ProjectID: p.ID, OrgID: orgID, CreatedAt: now, Type: "trace",
		Name: "t", RecordContent: store.RecordContent{Input: store.Content(`"what is 2+2"`), Output: store.Content(`"4"`)}, Metadata: map[string]string{"env": "test"}}
	if err := store.CreateProject(ctx, h.db, p); err != nil {
		h.t.Fatal(err)
	}
	if err := store.CreateLogStream(ctx, h.db, ls); err != nil {
		h.t.Fatal(err)
	}
	if _, err := store.PutTraces(ctx, h.db, []store.Trace{tr}); err != nil {
		h.t.Fatal(err)
	}
	return p.ID, tr.ID
}

// TestContentEditsInOneRequest: several edits of different kinds are one version, applied
// in order; a refused edit leaves the dataset at its version.
func TestContentEditsInOneRequest(t *testing.T) {
	h := newHarness(t)
	u := h.org.User
	d := h.create(u, "several", []string{"q", "a"}, [][]any{{"q1", "a1"}, {"q2", "a2"}})
	var p page
	h.must(&u, "GET", "/datasets/"+d.ID+"/content", nil, &p)
	newID := uuid.NewString()
	edits := []any{
		map[string]any{"edit_type": "append_row", "row_id": newID, "values": map[string]any{"q": "q3"}},
		map[string]any{"edit_type": "update_row", "row_id": newID, "values": map[string]any{"a": "a3"}},
		map[string]any{"edit_type": "delete_row", "row_id": p.Rows[0].RowID},
		map[string]any{"edit_type": "rename_column", "column_name": "q", "new_column_name": "question"},
	}
	if resp := h.request(&u, "PATCH", "/datasets/"+d.ID+"/content", map[string]any{"edits": edits}); resp.code != http.StatusNoContent || resp.header.Get("ETag") != `"2"` {
		t.Fatalf("edits: %d %s %s", resp.code, resp.body, resp.header.Get("ETag"))
	}
	h.must(&u, "GET", "/datasets/"+d.ID+"/content", nil, &p)
	if got := rowsOf(p); !reflect.DeepEqual(got, []string{"q2|a2", "q3|a3"}) || !reflect.DeepEqual(p.ColumnNames, []string{"question", "a"}) {
		t.Errorf("content %q %v", got, p.ColumnNames)
	}
	bad := []any{
		map[string]any{"edit_type": "append_row", "values": map[string]any{"question": "lost"}},
		map[string]any{"edit_type": "delete_row", "row_id": uuid.NewString()},
	}
	if resp := h.request(&u, "PATCH", "/datasets/"+d.ID+"/content", map[string]any{"edits": bad}); resp.code != 422 || problems(t, resp) != "value_error@body.edits.1.delete_row.row_id" {
		t.Errorf("an edit of an unknown row: %d %s", resp.code, resp.body)
	}
	var after datasetOut
	h.must(&u, "GET", "/datasets/"+d.ID, nil, &after)
	if after.CurrentVersionIndex != 2 || after.NumRows != 2 {
		t.Errorf("a refused request moved the dataset: %+v", after)
	}
}

// TestContentReplaceAndVersions: PUT .../content rolls back to a version or copies another
// dataset's version, each as the next version and answered 204; the versions list newest
// first (or as sorted), take a name, and each reads by its index.
func TestContentReplaceAndVersions(t *testing.T) {
	h := newHarness(t)
	u, other := h.org.User, h.newUser()
	d := h.create(u, "history", []string{"q"}, [][]any{{"v1"}})
	content := "/datasets/" + d.ID + "/content"
	h.must(&u, "POST", content, map[string]any{"rows": [][]any{{"v2"}}}, nil)                                                         // version 2
	h.request(&u, "PATCH", content, map[string]any{"edits": []any{map[string]any{"edit_type": "remove_column", "column_name": "q"}}}) // 3
	src := h.create(u, "source", []string{"x", "y"}, [][]any{{"s1", "s2"}})

	for _, tc := range []struct {
		name    string
		body    any
		version int
		want    []string
		cols    []string
	}{
		{"rollback", map[string]any{"rollback_version": 1}, 4, []string{"v1"}, []string{"q"}},
		{"upsert from this dataset", map[string]any{"dataset_id": d.ID, "version_index": 2}, 5, []string{"v1", "v2"}, []string{"q"}},
		{"upsert from another, current version", map[string]any{"dataset_id": src.ID, "version_index": nil}, 6, []string{"s1|s2"}, []string{"x", "y"}},
	} {
		resp := h.request(&u, "PUT", content, tc.body)
		if resp.code != http.StatusNoContent || len(resp.body) != 0 || resp.header.Get("ETag") != fmt.Sprintf(`"%d"`, tc.version) {
			t.Fatalf("%s: %d %s ETag %s", tc.name, resp.code, resp.body, resp.header.Get("ETag"))
		}
		var p page
		h.must(&u, "GET", "/v2"+content, nil, &p)
		if !reflect.DeepEqual(rowsOf(p), tc.want) || !reflect.DeepEqual(p.ColumnNames, tc.cols) {
			t.Errorf("%s: content %q %v, want %q %v", tc.name, rowsOf(p), p.ColumnNames, tc.want, tc.cols)
		}
	}
	for _, tc := range []struct {
		name string
		user *authtest.User
		body any
		code int
		want string
	}{
		{"a version that does not exist", &u, map[string]any{"rollback_version": 9}, 422, "value_error@body.rollback_version"},
		{"another dataset's missing version", &u, map[string]any{"dataset_id": src.ID, "version_index": 7}, 422, "value_error@body.version_index"},
		{"no body", &u, nil, 422, "missing@body"},
		{"version 0", &u, map[string]any{"rollback_version": 0}, 422, "greater_than_equal@body.rollback_version"},
		{"a dataset the caller may not read", &u, map[string]any{"dataset_id": h.create(other, "theirs", []string{"z"}, [][]any{{"z"}}).ID}, 403, ""},
		{"a caller who may not edit", &other, map[string]any{"rollback_version": 1}, 403, ""},
	} {
		resp := h.request(tc.user, "PUT", content, tc.body)
		got := ""
		if resp.code == 422 {
			got = problems(t, resp)
		}
		if resp.code != tc.code || got != tc.want {
			t.Errorf("%s: %d %s, want %d %s", tc.name, resp.code, resp.body, tc.code, tc.want)
		}
	}

	// Six versions, newest first; sorted ascending by the original's query; paged.
	var vl versionList
	h.must(&u, "GET", "/datasets/"+d.ID+"/versions?limit=4", nil, &vl)
	if len(vl.Versions) != 4 || vl.Versions[0].VersionIndex != 6 || vl.Versions[3].VersionIndex != 3 || !vl.Paginated || vl.NextStartingToken == nil || *vl.NextStartingToken != 4 {
		t.Errorf("first page of versions: %+v", vl)
	}
	h.must(&u, "POST", "/datasets/"+d.ID+"/versions/query?starting_token=4", map[string]any{"sort": map[string]any{"name": "version_index", "ascending": true}}, &vl)
	if len(vl.Versions) != 2 || vl.Versions[0].VersionIndex != 5 || vl.Versions[1].VersionIndex != 6 || vl.Paginated {
		t.Errorf("ascending from 4: %+v", vl)
	}
	if got := vl.Versions[1].stats(); got != (stats{1, 2, 0, 2, 1, 0}) {
		t.Errorf("version 6 (the other dataset's content) changed %v", got)
	}
	var named versionOut
	h.must(&u, "PATCH", "/datasets/"+d.ID+"/versions/2", map[string]any{"name": "two rows"}, &named)
	if named.Name == nil || *named.Name != "two rows" || named.VersionIndex != 2 || named.NumRows != 2 {
		t.Errorf("named version: %+v", named)
	}
	for v, want := range map[int][]string{1: {"v1"}, 2: {"v1", "v2"}, 3: {"", ""}, 4: {"v1"}, 6: {"s1|s2"}} {
		var p page
		h.must(&u, "GET", fmt.Sprintf("/datasets/%s/versions/%d/content", d.ID, v), nil, &p)
		if !reflect.DeepEqual(rowsOf(p), want) {
			t.Errorf("version %d reads %q, want %q", v, rowsOf(p), want)
		}
	}
	if resp := h.request(&u, "GET", "/datasets/"+d.ID+"/versions/7/content", nil); resp.code != http.StatusNotFound {
		t.Errorf("version 7: %d %s", resp.code, resp.body)
	}
	if resp := h.request(&other, "GET", "/datasets/"+d.ID+"/versions", nil); resp.code != http.StatusForbidden && resp.code != http.StatusNotFound {
		t.Errorf("a stranger lists the versions: %d %s", resp.code, resp.body)
	}
}

// TestListAndQueryDatasets: GET /datasets lists what the caller may read, newest first,
// without hidden datasets; POST /datasets/query filters and sorts as the original's
// ListDatasetParams; actions keeps the datasets the caller may act on.
func TestListAndQueryDatasets(t *testing.T) {
	h := newHarness(t)
	u, other := h.org.User, h.newUser()
	for i, name := range []string{"alpha", "beta", "gamma"} {
		h.clock.Set(t0.Add(time.Duration(i) * time.Minute))
		h.create(u, name, []string{"q"}, [][]any{{"x"}})
	}
	h.clock.Set(t0.Add(time.Hour))
	shared := h.create(other, "shared with u", []string{"q"}, [][]any{{"x"}})
	h.shareUser(other, shared.ID, u, "viewer")
	h.create(other, "private", []string{"q"}, [][]any{{"x"}})
	h.upload(u, "?hidden=true", map[string]string{"name": "hidden one"}, map[string][]byte{"file": []byte("q\nx\n")})

	type list struct {
		Datasets []struct {
			Name         string `json:"name"`
			ProjectCount int    `json:"project_count"`
			Draft        bool   `json:"draft"`
		} `json:"datasets"`
		NextStartingToken *int `json:"next_starting_token"`
	}
	names := func(l list) string {
		var out []string
		for _, d := range l.Datasets {
			out = append(out, d.Name)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		want               string
	}{
		{"list", "GET", "/datasets", nil, "shared with u,gamma,beta,alpha"},
		{"a page", "GET", "/v2/datasets?starting_token=1&limit=2", nil, "gamma,beta"},
		{"may update", "GET", "/datasets?actions=update", nil, "gamma,beta,alpha"},
		{"query by name", "POST", "/datasets/query", map[string]any{"filters": []any{map[string]any{"name": "name", "operator": "contains", "value": "A", "case_sensitive": false}}}, "shared with u,gamma,beta,alpha"},
		{"query by name, one of", "POST", "/datasets/query", map[string]any{"filters": []any{map[string]any{"name": "name", "operator": "one_of", "value": []string{"beta", "private"}}}}, "beta"},
		{"sorted by name", "POST", "/datasets/query", map[string]any{"sort": map[string]any{"name": "name", "ascending": true}}, "alpha,beta,gamma,shared with u"},
		{"no body", "POST", "/datasets/query", nil, "shared with u,gamma,beta,alpha"},
	} {
		var l list
		h.must(&u, tc.method, tc.path, tc.body, &l)
		if got := names(l); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		path string
		body any
		want string
	}{
		{"/datasets?actions=fly", nil, "enum@query.actions.0"},
		{"/datasets/query", map[string]any{"filters": []any{map[string]any{"name": "colour", "operator": "eq", "value": "x"}}}, "union_tag_invalid@body.filters.0"},
	} {
		method := "GET"
		if tc.body != nil {
			method = "POST"
		}
		if resp := h.request(&u, method, tc.path, tc.body); resp.code != 422 || problems(t, resp) != tc.want {
			t.Errorf("%s: %d %s, want %s", tc.path, resp.code, resp.body, tc.want)
		}
	}
}
