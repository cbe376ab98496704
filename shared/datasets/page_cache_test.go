package datasets_test

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/datasets"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// TestPageCacheAnswersAsFresh reads pages through the caches a function instance has and
// through a router with none, on the same store, around every change that alters a page:
// the answers must be the same bytes, authors' renames and removals included.
func TestPageCacheAnswersAsFresh(t *testing.T) {
	h := newHarness(t, harnessOptions{cached: true})
	fresh := httpapi.NewRouter(slog.New(slog.DiscardHandler))
	datasets.Register(fresh, datasets.Deps{Deps: base.Deps{Table: h.db, Authenticate: h.auth.Service.Authenticate, Now: h.clock.Now}})
	cached := h.rt
	admin, manager := h.org.Admin, h.org.Manager
	d := h.create(admin, "cached", []string{"q", "a"}, [][]any{{"q0", "a0"}, {"q1", nil}, {"q2", "a2"}})
	h.shareUser(admin, d.ID, manager, "editor")
	h.must(&manager, "POST", "/v2/datasets/"+d.ID+"/content", map[string]any{"rows": [][]any{{"q3", "a3"}, {"q4 \"quoted\"", "a4"}}}, nil)

	pages := []string{"", "?limit=2", "?starting_token=1&limit=3", "?starting_token=4&limit=10", "?starting_token=9"}
	compare := func(step string) {
		t.Helper()
		for _, q := range pages {
			path := "/v2/datasets/" + d.ID + "/content" + q
			h.rt = fresh
			want := h.must(&admin, "GET", path, nil, nil)
			h.rt = cached
			for i := range 2 { // the first read may fill the cache, the second reads it
				got := h.must(&admin, "GET", path, nil, nil)
				if !bytes.Equal(got.body, want.body) || got.header.Get("ETag") != want.header.Get("ETag") {
					t.Fatalf("%s, %s, read %d:\ncached %s %s\nfresh  %s %s", step, q, i, got.header.Get("ETag"), got.body,
						want.header.Get("ETag"), want.body)
				}
			}
		}
	}
	compare("created")

	renamed := "Renamed \"Manager\""
	if _, err := store.UpdateUser(t.Context(), h.db, h.org.ID, manager.UserID, store.UserChange{FirstName: &renamed}, t0); err != nil {
		t.Fatal(err)
	}
	compare("author renamed")
	body := h.must(&admin, "GET", "/v2/datasets/"+d.ID+"/content", nil, nil).body
	if !bytes.Contains(body, []byte(`Renamed \"Manager\"`)) {
		t.Fatalf("the renamed author is not in the page: %s", body)
	}

	h.must(&admin, "POST", "/v2/datasets/"+d.ID+"/content", map[string]any{"rows": [][]any{{"q5", "a5"}}}, nil)
	compare("rows appended")

	if err := store.DeleteUser(t.Context(), h.db, h.org.ID, manager.UserID); err != nil {
		t.Fatal(err)
	}
	compare("author removed")
	if body := h.must(&admin, "GET", "/v2/datasets/"+d.ID+"/content", nil, nil).body; !bytes.Contains(body, []byte(`"created_by_user":null`)) {
		t.Fatalf("the removed author is still in the page: %s", body)
	}
}
