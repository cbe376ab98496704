package store_test

import (
	"slices"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

// Reading a version again takes its segments from the cache: the same rows, no segment read;
// what a reader does to the values it was given does not reach the next reader; a new
// version reads the one segment its edit wrote and the old version still reads as it was.
func TestContentRowsCachedSegments(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		d := newTestDataset(t, tbl, "org-sc", "alice", 300) // two segments: 250 and 50 rows
		counted := storecount.New(tbl)
		cache := store.NewSegmentCache(store.DefaultSegmentCacheBytes)
		cachedContentOf := func(st store.ContentState) []string {
			t.Helper()
			var out []string
			for r, err := range cache.ContentRows(t.Context(), counted, st, 0, st.RowCount()) {
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, rowText(r))
			}
			return out
		}
		_, v1 := current(t, tbl, "org-sc", d.ID)
		batchGets := func(read func()) int {
			t.Helper()
			counted.Reset()
			read()
			return counted.Snapshot().Calls["BatchGet"]
		}

		var first []string
		if n := batchGets(func() { first = cachedContentOf(v1) }); n != 1 {
			t.Errorf("first read: %d batch reads, want 1", n)
		}
		if len(first) != 300 || first[7] != "7 r7" {
			t.Fatalf("first read: %d rows, row 7 %q", len(first), first[7])
		}
		for r, err := range cache.ContentRows(t.Context(), counted, v1, 0, 300) {
			if err != nil {
				t.Fatal(err)
			}
			r.Values[1] = "changed by a reader"
		}
		var again []string
		if n := batchGets(func() { again = cachedContentOf(v1) }); n != 0 {
			t.Errorf("second read: %d batch reads, want 0 (cached)", n)
		}
		if !slices.Equal(again, first) {
			t.Errorf("second read differs from the first: %v", again[:3])
		}

		if n := batchGets(func() { contentOf(t, counted, v1) }); n != 1 {
			t.Errorf("uncached read: %d batch reads, want 1", n)
		}

		rows := readRows(t, tbl, d, 7, 8)
		if _, err := store.UpdateDatasetRows(t.Context(), tbl, "org-sc", d.ID, 0,
			[]store.DatasetRowEdit{{RowID: rows[0].RowID, Values: map[int]any{1: "edited"}}}, "bob", datasetT0); err != nil {
			t.Fatal(err)
		}
		_, v2 := current(t, tbl, "org-sc", d.ID)
		var edited []string
		if n := batchGets(func() { edited = cachedContentOf(v2) }); n != 1 {
			t.Errorf("read of the new version: %d batch reads, want 1 (its new segment)", n)
		}
		want := slices.Clone(first)
		want[7] = "7 edited"
		if !slices.Equal(edited, want) {
			t.Errorf("new version: row 7 %q, want %q", edited[7], want[7])
		}
		if old := cachedContentOf(v1); !slices.Equal(old, first) {
			t.Errorf("old version: row 7 %q, want %q", old[7], first[7])
		}
	})
}
