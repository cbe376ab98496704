package datasets_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/app/local"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/purge"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/stream"
)

const bulkDelete = "/v2/datasets/bulk_delete"

// TestBulkDeleteValidation sends bodies that fail validation: Pydantic's 422 at the field
// or at the item.
func TestBulkDeleteValidation(t *testing.T) {
	h := newHarness(t)
	ids := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = `"` + uuid.NewString() + `"`
		}
		return `{"dataset_ids":[` + strings.Join(s, ",") + `]}`
	}
	v1 := "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	tests := []struct {
		name, body, want string
	}{
		{"no body", "", `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"no ids", `{}`, `{"detail":[{"type":"missing","loc":["body","dataset_ids"],"msg":"Field required","input":{}}]}`},
		{"empty", `{"dataset_ids":[]}`,
			`{"detail":[{"type":"too_short","loc":["body","dataset_ids"],"msg":"List should have at least 1 item after validation, not 0","input":[],"ctx":{"field_type":"List","min_length":1,"actual_length":0}}]}`},
		{"not a list", `{"dataset_ids":"x"}`,
			`{"detail":[{"type":"list_type","loc":["body","dataset_ids"],"msg":"Input should be a valid list","input":"x"}]}`},
		{"not uuids", `{"dataset_ids":["` + v1[:35] + `", 7, "` + v1 + `"]}`,
			`{"detail":[{"type":"uuid_parsing","loc":["body","dataset_ids",0],"msg":"Input should be a valid UUID, invalid group length in group 4: expected 12, found 11","input":"` + v1[:35] + `","ctx":{"error":"invalid group length in group 4: expected 12, found 11"}},` +
				`{"type":"uuid_type","loc":["body","dataset_ids",1],"msg":"UUID input should be a string, bytes or UUID object","input":7},` +
				`{"type":"uuid_version","loc":["body","dataset_ids",2],"msg":"UUID version 4 expected","input":"` + v1 + `","ctx":{"expected_version":4}}]}`},
		{"not JSON", `{"dataset_ids":`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.request(&h.org.User, "DELETE", bulkDelete, tt.body)
			if resp.code != http.StatusUnprocessableEntity || (tt.want != "" && !sameJSON(resp.body, []byte(tt.want))) {
				t.Errorf("got %d %s\nwant 422 %s", resp.code, resp.body, tt.want)
			}
		})
	}
	t.Run("101 ids", func(t *testing.T) {
		resp := h.request(&h.org.User, "DELETE", bulkDelete, ids(101))
		var body struct {
			Detail []struct {
				Type string         `json:"type"`
				Loc  []any          `json:"loc"`
				Msg  string         `json:"msg"`
				Ctx  map[string]any `json:"ctx"`
			} `json:"detail"`
		}
		resp.decode(t, &body)
		if resp.code != 422 || len(body.Detail) != 1 || body.Detail[0].Type != "too_long" ||
			body.Detail[0].Msg != "List should have at most 100 items after validation, not 101" {
			t.Errorf("got %d %s", resp.code, resp.body)
		}
	})
	t.Run("100 ids", func(t *testing.T) {
		h.must(&h.org.User, "DELETE", bulkDelete, ids(100), nil)
	})
}

// TestBulkDeleteMix deletes a mix of datasets: the caller's own, one shared as editor
// through a group, one shared as viewer only, another organization's, an unknown id and a
// repeated one. Exactly the permitted ones go, each other is reported, and nothing of the
// other organization changes.
func TestBulkDeleteMix(t *testing.T) { runBulkDeleteMix(t, newHarness(t)) }

func runBulkDeleteMix(t *testing.T, h *harness) {
	caller, colleague := h.org.User, h.org.Manager
	own := h.create(caller, "own", []string{"a"}, [][]any{{"1"}})
	viaGroup := h.create(colleague, "via group", []string{"a"}, [][]any{{"2"}})
	g := h.auth.Group(t, h.org, "editors", caller)
	h.must(&colleague, "POST", "/v2/datasets/"+viaGroup.ID+"/groups", []map[string]any{{"group_id": g.ID, "role": "editor"}}, nil)
	viewerOnly := h.create(colleague, "viewer only", []string{"a"}, [][]any{{"3"}})
	h.shareUser(colleague, viewerOnly.ID, caller, "viewer")
	other := h.auth.Org(t)
	foreign := h.create(other.Admin, "foreign", []string{"a"}, [][]any{{"4"}})
	unknown := uuid.NewString()

	body := map[string]any{"dataset_ids": []string{own.ID, foreign.ID, viewerOnly.ID, unknown, own.ID, viaGroup.ID}}
	resp := h.must(&caller, "DELETE", bulkDelete, body, nil)
	want := fmt.Sprintf(`{"deleted_count":2,"message":"Deleted 2 of 5 datasets","failed_deletions":[`+
		`{"dataset_id":"%s","dataset_name":"","reason":"Dataset not found"},`+
		`{"dataset_id":"%s","dataset_name":"viewer only","reason":"You do not have permission to delete this dataset"},`+
		`{"dataset_id":"%s","dataset_name":"","reason":"Dataset not found"}]}`, foreign.ID, viewerOnly.ID, unknown)
	if string(resp.body) != want {
		t.Fatalf("got  %s\nwant %s", resp.body, want)
	}

	after := []struct {
		name   string
		user   authtest.User
		id     string
		status int
	}{
		{"own", caller, own.ID, 404},
		{"via group", colleague, viaGroup.ID, 404},
		{"viewer only", colleague, viewerOnly.ID, 200},
		{"foreign", other.Admin, foreign.ID, 200},
	}
	for _, a := range after {
		var p page
		r := h.request(&a.user, "GET", "/v2/datasets/"+a.id+"/content", nil)
		if r.code != a.status {
			t.Errorf("%s after the deletion: %d %s, want %d", a.name, r.code, r.body, a.status)
		}
		if r.code == 200 {
			r.decode(t, &p)
			if len(p.Rows) != 1 {
				t.Errorf("%s lost its rows", a.name)
			}
		}
	}

	// A retry of the same request deletes nothing more and says so.
	resp = h.must(&caller, "DELETE", bulkDelete, body, nil)
	var again struct {
		DeletedCount    int    `json:"deleted_count"`
		Message         string `json:"message"`
		FailedDeletions []struct {
			Reason string `json:"reason"`
		} `json:"failed_deletions"`
	}
	resp.decode(t, &again)
	if again.DeletedCount != 0 || again.Message != "Deleted 0 of 5 datasets" || len(again.FailedDeletions) != 5 {
		t.Errorf("retry: %s", resp.body)
	}
}

// TestBulkDeleteRoles deletes one dataset as callers of every standing: owners and editors
// (direct or through a group) and org admins may; annotators, viewers, read-only members
// and members without a role may not.
func TestBulkDeleteRoles(t *testing.T) {
	h := newHarness(t)
	owner := h.org.User
	tests := []struct {
		name    string
		caller  func() authtest.User
		share   string // role shared directly with the caller
		group   string // role shared with a group of the caller
		deleted bool
		named   bool // the failure names the dataset
	}{
		{"owner", func() authtest.User { return owner }, "", "", true, false},
		{"direct editor", h.newUser, "editor", "", true, false},
		{"group editor", h.newUser, "", "editor", true, false},
		{"group owner", h.newUser, "", "owner", true, false},
		{"org admin", func() authtest.User { return h.org.Admin }, "", "", true, false},
		{"annotator", h.newUser, "annotator", "", false, true},
		{"viewer and group annotator", h.newUser, "viewer", "annotator", false, true},
		{"read-only member as editor", h.newReadOnly, "editor", "", false, true},
		{"no role", h.newUser, "", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := h.create(owner, tt.name, []string{"a"}, nil)
			who := tt.caller()
			if tt.share != "" {
				h.shareUser(owner, d.ID, who, tt.share)
			}
			if tt.group != "" {
				g := h.auth.Group(t, h.org, "g "+tt.name, who)
				h.must(&owner, "POST", "/v2/datasets/"+d.ID+"/groups", []map[string]any{{"group_id": g.ID, "role": tt.group}}, nil)
			}
			var out struct {
				DeletedCount    int `json:"deleted_count"`
				FailedDeletions []struct {
					DatasetName string `json:"dataset_name"`
					Reason      string `json:"reason"`
				} `json:"failed_deletions"`
			}
			h.must(&who, "DELETE", bulkDelete, map[string]any{"dataset_ids": []string{d.ID}}, &out)
			if tt.deleted != (out.DeletedCount == 1) {
				t.Fatalf("deleted %d, want deleted %v: %+v", out.DeletedCount, tt.deleted, out)
			}
			if !tt.deleted {
				f := out.FailedDeletions[0]
				if f.Reason != "You do not have permission to delete this dataset" || (f.DatasetName == tt.name) != tt.named {
					t.Errorf("failure %+v; want the name shown: %v", f, tt.named)
				}
			}
		})
	}
}

func (h *harness) newUser() authtest.User { return h.auth.AddUser(h.t, h.org.ID, auth.RoleUser) }
func (h *harness) newReadOnly() authtest.User {
	return h.auth.AddUser(h.t, h.org.ID, auth.RoleReadOnly)
}

// partition counts what is left of a dataset in the store.
func partition(t *testing.T, tbl store.Table, id string) int {
	t.Helper()
	items, err := store.QueryAll(t.Context(), tbl, store.Query{PK: store.DatasetKey(id).PK, Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	return len(items)
}

// heldTable holds the purge worker's queries until release is closed.
type heldTable struct {
	store.Table
	release chan struct{}
}

func (t *heldTable) Query(ctx context.Context, q store.Query) (store.Page, error) {
	<-t.release
	return t.Table.Query(ctx, q)
}

// withPurge returns a harness whose store feeds a purge worker the way the local host does,
// and the worker; the worker's reads wait for release.
func withPurge(t *testing.T, release chan struct{}) (*harness, *local.Stream) {
	var worker atomic.Pointer[local.Stream] // set once the harness's table exists
	h := newHarness(t, harnessOptions{onCommit: func(cs []embedded.Change) {
		if l := worker.Load(); l != nil {
			l.OnCommit(cs)
		}
	}})
	s := local.NewStream(stream.NewConsumer(nil, purge.New(&heldTable{Table: h.db, release: release}, nil)), nil)
	worker.Store(s)
	t.Cleanup(s.Close)
	return h, s
}

// TestBulkDeleteCostIndependentOfRows deletes 100 datasets of 1 row and 100 datasets of 200
// rows: the two requests read and write the same number of items, answer while the purge
// has not run, and the purge then leaves nothing of them.
func TestBulkDeleteCostIndependentOfRows(t *testing.T) {
	release := make(chan struct{})
	h, local := withPurge(t, release)
	var costs [2][2]int
	var all []string
	for i, rows := range []int{1, 200} {
		var ids []string
		for range 100 {
			ids = append(ids, h.seed(h.org.User, rows, nil).ID)
		}
		h.items.Reset()
		var out struct {
			DeletedCount int `json:"deleted_count"`
		}
		h.must(&h.org.User, "DELETE", bulkDelete, map[string]any{"dataset_ids": ids}, &out)
		costs[i][0], costs[i][1] = h.items.Counts()
		if out.DeletedCount != 100 {
			t.Fatalf("deleted %d of 100", out.DeletedCount)
		}
		// Left until the purge: the version, its manifest, the segment, a locator per row
		// and the owner.
		if n := partition(t, h.db, ids[0]); n != rows+4 {
			close(release) // a failed test must not leave the purge blocked
			t.Fatalf("the request answered after purging (%d items left, want %d)", n, rows+4)
		}
		all = append(all, ids...)
	}
	t.Logf("items read, written by the request: 1-row datasets %v, 200-row datasets %v", costs[0], costs[1])
	if costs[0] != costs[1] {
		t.Errorf("the request's cost grows with the rows: %v vs %v", costs[0], costs[1])
	}
	close(release)
	local.Wait()
	for _, id := range all {
		if n := partition(t, h.db, id); n != 0 {
			t.Fatalf("dataset %s: %d items left after the purge", id, n)
		}
	}
}

// TestBulkDeleteResponseShape checks the 200's JSON field by field on the simplest case.
func TestBulkDeleteResponseShape(t *testing.T) {
	h := newHarness(t)
	d := h.create(h.org.User, "x", []string{"a"}, nil)
	resp := h.must(&h.org.User, "DELETE", bulkDelete, map[string]any{"dataset_ids": []string{d.ID}}, nil)
	var m map[string]json.RawMessage
	resp.decode(t, &m)
	if string(m["deleted_count"]) != "1" || string(m["message"]) != `"Deleted 1 of 1 datasets"` ||
		string(m["failed_deletions"]) != "[]" || len(m) != 3 {
		t.Errorf("body %s", resp.body)
	}
}
