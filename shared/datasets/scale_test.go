package datasets_test

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestContentPageCostAtOffset reads pages of a dataset of 100,000 rows: a page costs the
// rows it returns whatever its offset, because it is one Query starting at its first row.
func TestContentPageCostAtOffset(t *testing.T) {
	h := newHarness(t)
	start := time.Now()
	d := h.seed(h.org.User, 100_000, nil)
	t.Logf("seeded 100,000 rows in %v", time.Since(start).Round(time.Millisecond))

	tests := []struct {
		start, limit int
		next         *int
	}{
		{99_900, 100, nil},
		{50_000, 100, ptr(50_100)},
		{0, 100, ptr(100)},
		{99_999, 100, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.start), func(t *testing.T) {
			h.items.Reset()
			h.calls.Reset()
			var p page
			began := time.Now()
			h.must(&h.org.User, "GET", fmt.Sprintf("/v2/datasets/%s/content?starting_token=%d&limit=%d", d.ID, tt.start, tt.limit), nil, &p)
			took := time.Since(began)
			read, written := h.items.Counts()
			calls := h.calls.Snapshot()
			t.Logf("page at %d: %d rows, %d items read, calls: %v, %v", tt.start, len(p.Rows), read, calls, took.Round(time.Microsecond))

			want := min(tt.limit, 100_000-tt.start)
			if len(p.Rows) != want || p.Rows[0].Index != tt.start || !eqPtr(p.NextStartingToken, tt.next) {
				t.Fatalf("%d rows from %d, next %v; want %d from %d, next %v", len(p.Rows), p.Rows[0].Index, p.NextStartingToken, want, tt.start, tt.next)
			}
			// The rows, plus the dataset, the caller's share and the users of the page.
			if read > want+5 || written != 0 || calls.Calls["Query"] > 3 {
				t.Errorf("the page read %d items in %d queries (wrote %d); want about %d", read, calls.Calls["Query"], written, want)
			}
		})
	}
}

func eqPtr(a, b *int) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

// TestBulkDeleteAtScale deletes 100 datasets of many rows and reports what the request and
// the purge cost. By default each dataset has 200 rows, enough to show that the request
// writes one item per dataset while the purge does the rest; DATASETS_SCALE=1 gives them
// the 10,000 rows (two million items with their row ids; it takes minutes to seed):
//
//	DATASETS_SCALE=1 go test ./shared/datasets -run AtScale -v
func TestBulkDeleteAtScale(t *testing.T) {
	const datasets = 100
	rows := 200
	if os.Getenv("DATASETS_SCALE") == "1" {
		rows = 10_000
	}
	release := make(chan struct{})
	h, local := withPurge(t, release)
	began := time.Now()
	ids := make([]string, datasets)
	for i := range ids {
		ids[i] = h.seed(h.org.User, rows, nil).ID
	}
	t.Logf("seeded %d datasets of %d rows in %v", datasets, rows, time.Since(began).Round(time.Second))

	h.items.Reset()
	h.calls.Reset()
	began = time.Now()
	var out struct {
		DeletedCount int `json:"deleted_count"`
	}
	h.must(&h.org.User, "DELETE", bulkDelete, map[string]any{"dataset_ids": ids}, &out)
	took := time.Since(began)
	read, written := h.items.Counts()
	t.Logf("bulk delete: %d deleted in %v; %d items read, %d written; calls %v", out.DeletedCount, took.Round(time.Microsecond), read, written, h.calls.Snapshot())
	if out.DeletedCount != datasets || written != datasets {
		t.Fatalf("deleted %d, wrote %d items; want %d and %d", out.DeletedCount, written, datasets, datasets)
	}
	// Left until the purge: the version, its manifest, the segments, a locator per row and
	// the owner.
	segments := (rows + 249) / 250
	if n := partition(t, h.db, ids[0]); n != rows+segments+3 {
		close(release) // a failed test must not leave the purge blocked
		t.Fatalf("%d items left before the purge ran, want %d", n, rows+segments+3)
	}

	began = time.Now()
	close(release)
	local.Wait()
	t.Logf("purge of %d items: %v", datasets*(rows+segments+3), time.Since(began).Round(time.Millisecond))
	for _, id := range ids {
		if n := partition(t, h.db, id); n != 0 {
			t.Fatalf("dataset %s: %d items left", id, n)
		}
	}
}
