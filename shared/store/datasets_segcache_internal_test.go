package store

import "testing"

// The cache holds at most max bytes of rows: a segment larger than that is not kept, and one
// that does not fit starts the cache over.
func TestSegmentCacheBound(t *testing.T) {
	rows := func(n int) []DatasetRow {
		out := make([]DatasetRow, n)
		for i := range out {
			out[i] = DatasetRow{Values: []any{"0123456789"}}
		}
		return out
	}
	one := DatasetRowSize([]any{"0123456789"}) + segmentRowOverhead
	c := NewSegmentCache(10 * one)
	c.put("a", rows(4))
	c.put("b", rows(4))
	_, a := c.get("a")
	_, b := c.get("b")
	if !a || !b {
		t.Fatalf("a and b (8 rows of 10): a cached %v, b cached %v", a, b)
	}
	c.put("big", rows(11))
	if _, ok := c.get("big"); ok {
		t.Error("a segment over the bound was kept")
	}
	c.put("c", rows(4))
	_, a = c.get("a")
	_, cc := c.get("c")
	if a || !cc {
		t.Errorf("after c, which does not fit: a cached %v, c cached %v; want only c", a, cc)
	}
	c.put("d", rows(6)) // 4 + 6 rows fit the bound of 10 exactly: the sizes are the rows'
	if _, cc = c.get("c"); !cc {
		t.Error("c was dropped by d, which fits beside it")
	}
	off := NewSegmentCache(0)
	off.put("a", rows(1))
	if _, ok := off.get("a"); ok {
		t.Error("a cache of max 0 kept a segment")
	}
}
