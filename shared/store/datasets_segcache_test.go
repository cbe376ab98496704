package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

// Reading a version again takes its segments from the cache: the same rows, no segment read;
// what a reader does to the values it was given does not reach the next reader; a new
// version reads the one segment its edit wrote and the old version still reads as it was.
// Rows are padded to 5 a segment: 7 rows make the two segments (5 and 2) that 300 small rows
// made (250 and 50), at a locator item a row.
func TestContentRowsCachedSegments(t *testing.T) {
	pad := segmentPad(5)
	eachTable(t, func(t *testing.T, tbl store.Table) {
		d := newTestDatasetOf(t, tbl, "org-sc", 7, func(i int) []any { return []any{int64(i), fmt.Sprintf("r%d", i) + pad} })
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
		if len(v1.Manifest) != 2 {
			t.Fatalf("%d segments, want 2", len(v1.Manifest))
		}
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
		if len(first) != 7 || first[6] != "6 r6"+pad {
			t.Fatalf("first read: %d rows, row 6 %.10q", len(first), first[6])
		}
		for r, err := range cache.ContentRows(t.Context(), counted, v1, 0, 7) {
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
			t.Errorf("second read differs from the first: %.10q", again)
		}

		if n := batchGets(func() { contentOf(t, counted, v1) }); n != 1 {
			t.Errorf("uncached read: %d batch reads, want 1", n)
		}

		rows := readRows(t, tbl, d, 6, 7)
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
		want[6] = "6 edited"
		if !slices.Equal(edited, want) {
			t.Errorf("new version: rows %.10q, want %.10q", edited, want)
		}
		if old := cachedContentOf(v1); !slices.Equal(old, first) {
			t.Errorf("old version: rows %.10q, want %.10q", old, first)
		}
	})
}
