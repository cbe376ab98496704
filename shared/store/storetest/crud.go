package storetest

import (
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

func testRoundTrip(t *testing.T, s *suite) {
	in := s.item("p", "item",
		"s", "héllo, 世界",
		"empty", "",
		"i", int64(42),
		"neg", int64(-7),
		"big", int64(1)<<60,
		"f", 3.25,
		"small", -0.001,
		"integral", float64(12),
		"yes", true,
		"no", false,
		"null", nil,
		"list", []any{"a", int64(1), 2.5, float64(3), true, nil, []any{"nested"}, map[string]any{"k": "v"}},
		"map", map[string]any{"n": float64(1e10), "inner": map[string]any{"deep": []any{int64(1)}}, "s": "x"},
		"emptyList", []any{},
		"emptyMap", map[string]any{},
	)
	s.put(t, in)
	// Integral numbers come back as int64 wherever they are, others as float64.
	want := in.With(
		"integral", int64(12),
		"list", []any{"a", int64(1), 2.5, int64(3), true, nil, []any{"nested"}, map[string]any{"k": "v"}},
		"map", map[string]any{"n": int64(1e10), "inner": map[string]any{"deep": []any{int64(1)}}, "s": "x"},
	)
	wantItem(t, "Get after Put", s.get(t, in.Key()), want)

	page, err := s.tb.Query(s.ctx, store.Query{PK: s.pk("p"), Consistent: true})
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if len(page.Items) != 1 {
		t.Fatalf("Query returned %d items; want 1", len(page.Items))
	}
	wantItem(t, "Query after Put", page.Items[0], want)
}

func testGetAbsent(t *testing.T, s *suite) {
	s.absent(t, s.key("p", "never-written"))
	s.put(t, s.item("p", "a"))
	// A neighbour in the same partition does not make the key present.
	s.absent(t, s.key("p", "a#b"))
	s.absent(t, s.key("p", "never-written"))
}

func testConsistentGetAfterPut(t *testing.T, s *suite) {
	for i := range int64(5) {
		s.put(t, s.item("p", "x", "n", i))
		if got := s.get(t, s.key("p", "x"))["n"]; got != i {
			t.Fatalf("consistent Get after Put %d returned n=%v", i, got)
		}
	}
}

func testCopies(t *testing.T, s *suite) {
	in := s.item("p", "x", "list", []any{"a"}, "map", map[string]any{"k": "v"}, "s", "orig")
	s.put(t, in)
	want := s.item("p", "x", "list", []any{"a"}, "map", map[string]any{"k": "v"}, "s", "orig")

	// The caller's item is not kept by reference.
	in["s"] = "changed"
	in["list"].([]any)[0] = "changed"
	in["map"].(map[string]any)["k"] = "changed"
	wantItem(t, "after mutating the item put", s.get(t, want.Key()), want)

	// Items handed out are the caller's.
	got := s.get(t, want.Key())
	got["s"] = "changed"
	got["list"].([]any)[0] = "changed"
	got["map"].(map[string]any)["k"] = "changed"
	wantItem(t, "after mutating an item got", s.get(t, want.Key()), want)

	upd, err := s.tb.Update(s.ctx, store.Update{Key: want.Key(), Set: map[string]any{"t": "x"}})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	upd["map"].(map[string]any)["k"] = "changed"
	wantItem(t, "after mutating an item updated", s.get(t, want.Key()), want.With("t", "x"))
}

func testDelete(t *testing.T, s *suite) {
	k := s.key("p", "x")
	s.put(t, s.item("p", "x", "v", "a"))
	s.put(t, s.item("p", "y"))
	if err := s.tb.Delete(s.ctx, k); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	s.absent(t, k)
	s.get(t, s.key("p", "y")) // the neighbour stays
	if err := s.tb.Delete(s.ctx, k); err != nil {
		t.Fatalf("Delete of an absent item: %v; want no error", err)
	}
	wantErr(t, "Delete absent with Exists", s.tb.Delete(s.ctx, k, store.Exists()), store.ErrConditionFailed)
}

func testInvalid(t *testing.T, s *suite) {
	for name, it := range map[string]store.Item{
		"no SK":          {store.AttrPK: s.pk("p")},
		"empty PK":       {store.AttrPK: "", store.AttrSK: "x"},
		"number SK":      {store.AttrPK: s.pk("p"), store.AttrSK: int64(1)},
		"unsupported":    s.item("p", "x", "v", struct{}{}),
		"int not int64":  s.item("p", "x", "v", 1),
		"nested invalid": s.item("p", "x", "v", []any{map[string]any{"k": []string{"a"}}}),
	} {
		wantErr(t, "Put "+name, s.tb.Put(s.ctx, it), store.ErrInvalid)
	}
	s.absent(t, s.key("p", "x"))
}

func testTooLarge(t *testing.T, s *suite) {
	big := s.item("p", "big", "blob", strings.Repeat("x", 401*1024))
	wantErr(t, "Put of 401 KB", s.tb.Put(s.ctx, big), store.ErrTooLarge)
	s.absent(t, big.Key())

	// Just under the limit is fine, and an update may not push it over.
	fits := s.item("p", "fits", "blob", strings.Repeat("y", 380*1024))
	s.put(t, fits)
	_, err := s.tb.Update(s.ctx, store.Update{Key: fits.Key(), Set: map[string]any{"more": strings.Repeat("z", 30*1024)}})
	wantErr(t, "Update past 400 KB", err, store.ErrTooLarge)
	wantItem(t, "item after refused update", s.get(t, fits.Key()), fits)
}
