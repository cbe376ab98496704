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
	if _, ok := c.get("a"); !ok || c.size != 8*one {
		t.Fatalf("a and b (8 rows of 10): a cached %v, size %d", ok, c.size/one)
	}
	c.put("big", rows(11))
	if _, ok := c.get("big"); ok {
		t.Error("a segment over the bound was kept")
	}
	c.put("c", rows(4))
	_, a := c.get("a")
	_, cc := c.get("c")
	if a || !cc || c.size != 4*one {
		t.Errorf("after c, which does not fit: a cached %v, c cached %v, size %d rows; want only c", a, cc, c.size/one)
	}
	off := NewSegmentCache(0)
	off.put("a", rows(1))
	if _, ok := off.get("a"); ok {
		t.Error("a cache of max 0 kept a segment")
	}
}
