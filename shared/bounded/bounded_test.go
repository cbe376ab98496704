package bounded

import "testing"

func TestCache(t *testing.T) {
	c := New[string](10)
	c.Put("a", "A", 4)
	c.Put("b", "B", 4)
	c.Put("a", "other", 4) // held already: kept as it was
	if v, ok := c.Get("a"); !ok || v != "A" {
		t.Fatalf("a = %q, %v", v, ok)
	}
	c.Put("big", "X", 11) // larger than the cache: not kept, nothing dropped
	if _, ok := c.Get("big"); ok {
		t.Fatal("a value larger than the cache was kept")
	}
	if _, ok := c.Get("b"); !ok {
		t.Fatal("b was dropped by a value that was not kept")
	}
	c.Put("c", "C", 4) // 12 > 10: starts over with c alone
	if _, ok := c.Get("a"); ok {
		t.Fatal("a full cache did not start over")
	}
	if v, ok := c.Get("c"); !ok || v != "C" {
		t.Fatalf("c = %q, %v", v, ok)
	}
	if z := New[int](0); true {
		z.Put("k", 1, 1)
		if _, ok := z.Get("k"); ok {
			t.Fatal("a cache of 0 bytes kept a value")
		}
	}
}
