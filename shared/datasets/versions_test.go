package datasets_test

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

// TestContentVersions follows a dataset through create (v1), an append (v2) and a row update
// (v3) by three users: every row reports the version and user that created it and that last
// changed it, and the ETag follows the version.
func TestContentVersions(t *testing.T) { runContentVersions(t, newHarness(t)) }

func runContentVersions(t *testing.T, h *harness) {
	alice, bob, carol := h.org.User, h.newUser(), h.newUser()
	t1, t2 := t0.Add(time.Hour), t0.Add(2*time.Hour)

	d := h.create(alice, "versions", []string{"n", "q"}, []any{[]any{1, "a"}, map[string]any{"n": 2, "q": "b"}, map[string]any{"q": "c"}})
	if d.CurrentVersionIndex != 1 || d.NumRows != 3 {
		t.Fatalf("created %+v", d)
	}
	h.shareUser(alice, d.ID, bob, "editor")
	g := h.auth.Group(t, h.org, "editors", carol)
	h.must(&alice, "POST", "/v2/datasets/"+d.ID+"/groups", []map[string]any{{"group_id": g.ID, "role": "editor"}}, nil)
	content := "/v2/datasets/" + d.ID + "/content"

	h.clock.Set(t1)
	var out datasetOut
	resp := h.must(&bob, "POST", content, map[string]any{"rows": [][]any{{4, "d"}}}, &out, "If-Match", `"1"`)
	if out.CurrentVersionIndex != 2 || out.NumRows != 4 || resp.header.Get("ETag") != `"2"` {
		t.Fatalf("append: %+v, ETag %s", out, resp.header.Get("ETag"))
	}

	var p page
	h.must(&carol, "GET", content, nil, &p)
	h.clock.Set(t2)
	edit := map[string]any{"edits": []map[string]any{{"edit_type": "update_row", "row_id": p.Rows[0].RowID, "values": map[string]any{"q": "changed"}}}}
	resp = h.request(&carol, "PATCH", content, edit, "If-Match", `"2"`)
	if resp.code != http.StatusNoContent || len(resp.body) != 0 || resp.header.Get("ETag") != `"3"` {
		t.Fatalf("update: %d %s, ETag %s", resp.code, resp.body, resp.header.Get("ETag"))
	}

	// Stale or weak tags are refused and change nothing.
	for _, tag := range []string{`"2"`, `W/"3"`, `"7"`} {
		r := h.request(&carol, "PATCH", content, edit, "If-Match", tag)
		if r.code != http.StatusPreconditionFailed || string(r.body) != `{"detail":"The dataset has changed since the ETag given in If-Match"}` {
			t.Errorf("PATCH with If-Match %s: %d %s", tag, r.code, r.body)
		}
		r = h.request(&bob, "POST", content, map[string]any{"rows": [][]any{{5, "e"}}}, "If-Match", tag)
		if r.code != http.StatusPreconditionFailed {
			t.Errorf("append with If-Match %s: %d %s", tag, r.code, r.body)
		}
	}

	resp = h.must(&alice, "GET", content, nil, &p)
	if got := resp.header.Get("ETag"); got != `"3"` {
		t.Errorf("ETag = %s, want \"3\"", got)
	}
	at := func(tm time.Time) string { return tm.Format(time.RFC3339) }
	want := []struct {
		values               []any
		createdIn, updatedIn int
		createdAt, updatedAt string
		createdBy, updatedBy *userInfo
	}{
		{[]any{1.0, "changed"}, 1, 3, at(t0), at(t2), infoOf(alice), infoOf(carol)},
		{[]any{2.0, "b"}, 1, 1, at(t0), at(t0), infoOf(alice), infoOf(alice)},
		{[]any{nil, "c"}, 1, 1, at(t0), at(t0), infoOf(alice), infoOf(alice)},
		{[]any{4.0, "d"}, 2, 2, at(t1), at(t1), infoOf(bob), infoOf(bob)},
	}
	if len(p.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(p.Rows), len(want))
	}
	for i, w := range want {
		r := p.Rows[i]
		m := r.Metadata
		if !reflect.DeepEqual(r.Values, w.values) || m.CreatedInVersion != w.createdIn || m.UpdatedInVersion != w.updatedIn ||
			m.CreatedAt != w.createdAt || m.UpdatedAt != w.updatedAt ||
			!reflect.DeepEqual(m.CreatedByUser, w.createdBy) || !reflect.DeepEqual(m.UpdatedByUser, w.updatedBy) {
			t.Errorf("row %d = %+v %+v\n want %+v", i, r.Values, m, w)
		}
	}
}

// TestContentWriteErrors checks the refusals of appends and updates.
func TestContentWriteErrors(t *testing.T) {
	h := newHarness(t)
	owner, viewer := h.org.User, h.newUser()
	d := h.create(owner, "w", []string{"a", "b"}, [][]any{{"1", "2"}})
	h.shareUser(owner, d.ID, viewer, "viewer")
	var p page
	h.must(&owner, "GET", "/v2/datasets/"+d.ID+"/content", nil, &p)
	rowID := p.Rows[0].RowID
	content := "/v2/datasets/" + d.ID + "/content"
	edit := func(e map[string]any) map[string]any { return map[string]any{"edits": []map[string]any{e}} }
	many := make([]map[string]any, store.MaxDatasetRowEdits+1)
	for i := range many {
		many[i] = map[string]any{"row_id": rowID, "values": map[string]any{}}
	}

	tests := []struct {
		name, method string
		user         *authtest.User
		body         any
		status       int
		want         string // the body, or for a 422 "type@loc" of each problem
	}{
		{"viewer appends", "POST", &viewer, map[string]any{"rows": [][]any{{"x", "y"}}}, 403, `{"detail":"You do not have permission to change this dataset"}`},
		{"viewer updates", "PATCH", &viewer, edit(map[string]any{"row_id": rowID, "values": map[string]any{"a": "x"}}), 403, `{"detail":"You do not have permission to change this dataset"}`},
		{"viewer appends rows that do not fit", "POST", &viewer, map[string]any{"rows": [][]any{{"x"}}}, 403, `{"detail":"You do not have permission to change this dataset"}`},
		{"no rows", "POST", &owner, map[string]any{"rows": []any{}}, 422, "too_short@body.rows"},
		{"row too short", "POST", &owner, map[string]any{"rows": [][]any{{"x"}}}, 422, "value_error@body.rows.0"},
		{"unknown column", "POST", &owner, map[string]any{"rows": []any{map[string]any{"zz": 1}}}, 422, "value_error@body.rows.0.zz"},
		{"bad value", "POST", &owner, map[string]any{"rows": []any{[]any{[]any{1}, "y"}}}, 422, "value_error@body.rows.0.0"},
		{"unknown row", "PATCH", &owner, edit(map[string]any{"row_id": "nope", "values": map[string]any{"a": "x"}}), 422, "value_error@body.edits.0.update_row.row_id"},
		{"unknown column in an edit", "PATCH", &owner, edit(map[string]any{"row_id": rowID, "values": map[string]any{"zz": "x"}}), 422, "value_error@body.edits.0.update_row.values.zz"},
		{"unknown edit type", "PATCH", &owner, edit(map[string]any{"edit_type": "move_row", "row_id": rowID}), 422, "union_tag_invalid@body.edits.0"},
		{"no row id", "PATCH", &owner, edit(map[string]any{"values": map[string]any{}}), 422, "missing@body.edits.0.update_row.row_id"},
		{"a new row twice", "PATCH", &owner, map[string]any{"edits": []map[string]any{
			{"edit_type": "append_row", "row_id": "5b0c7e9a-1d2f-4a3b-8c4d-5e6f7a8b9c0d", "values": map[string]any{}},
			{"edit_type": "append_row", "row_id": "5b0c7e9a-1d2f-4a3b-8c4d-5e6f7a8b9c0d", "values": map[string]any{}}}}, 422, "value_error@body.edits.1.append_row.row_id"},
		{"rename onto a column", "PATCH", &owner, edit(map[string]any{"edit_type": "rename_column", "column_name": "a", "new_column_name": "b"}), 422, "value_error@body.edits.0.rename_column.new_column_name"},
		{"remove an unknown column", "PATCH", &owner, edit(map[string]any{"edit_type": "remove_column", "column_name": "zz"}), 422, "value_error@body.edits.0.remove_column.column_name"},
		{"too many edits", "PATCH", &owner, map[string]any{"edits": many}, 422, "too_long@body.edits"},
		{"no edits", "PATCH", &owner, map[string]any{"edits": []any{}}, 422, "too_short@body.edits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.request(tt.user, tt.method, content, tt.body)
			got := string(resp.body)
			if resp.code == 422 {
				got = problems(t, resp)
			}
			if resp.code != tt.status || got != tt.want {
				t.Errorf("got %d %s (%s), want %d %s", resp.code, got, resp.body, tt.status, tt.want)
			}
		})
	}
	var after page
	h.must(&owner, "GET", content, nil, &after)
	if len(after.Rows) != 1 || !reflect.DeepEqual(after.Rows[0].Values, []any{"1", "2"}) {
		t.Errorf("the refused writes changed the content: %+v", after.Rows)
	}
}
