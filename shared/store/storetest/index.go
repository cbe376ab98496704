package storetest

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// A GSI is eventually consistent on DynamoDB, so index reads poll (eventually) until they
// see the writes before them.

func testIndexQuery(t *testing.T, s *suite) {
	g := s.pk("g")
	items := []store.Item{
		s.item("a", "1", store.AttrGSI1PK, g, store.AttrGSI1SK, "2026-01-03", "v", "a1"),
		s.item("b", "1", store.AttrGSI1PK, g, store.AttrGSI1SK, "2026-01-01", "v", "b1"),
		s.item("a", "2", store.AttrGSI1PK, g, store.AttrGSI1SK, "2026-01-02", "v", "a2"),
		s.item("a", "3", store.AttrGSI1PK, g, "v", "no GSI1SK: not in GSI1"),
		s.item("b", "2", store.AttrGSI2PK, g, store.AttrGSI2SK, "x", "v", "GSI2 only"),
		s.item("b", "3", store.AttrGSI1PK, g+"0", store.AttrGSI1SK, "2026-01-01", "v", "other partition"),
	}
	for _, it := range items {
		s.put(t, it)
	}
	byDate := []store.Item{items[1], items[2], items[0]} // GSI1SK order
	cases := []struct {
		name string
		q    store.Query
		want []store.Item
	}{
		{"any", store.Query{}, byDate},
		{"descending", store.Query{Descending: true}, []store.Item{items[0], items[2], items[1]}},
		{"equal", store.Query{SKOp: store.SKEqual, From: "2026-01-02"}, []store.Item{items[2]}},
		{"prefix", store.Query{SKOp: store.SKPrefix, From: "2026-01-0"}, byDate},
		{"between", store.Query{SKOp: store.SKBetween, From: "2026-01-02", To: "2026-01-09"}, []store.Item{items[2], items[0]}},
		{"greater or equal", store.Query{SKOp: store.SKGreaterEq, From: "2026-01-03"}, []store.Item{items[0]}},
		{"less or equal", store.Query{SKOp: store.SKLessEq, From: "2026-01-02"}, []store.Item{items[1], items[2]}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := c.q
			q.Index, q.PK = store.IndexGSI1, g
			s.eventuallyQuery(t, q, c.want)
		})
	}
	t.Run("GSI2", func(t *testing.T) {
		s.eventuallyQuery(t, store.Query{Index: store.IndexGSI2, PK: g}, []store.Item{items[4]})
	})
}

// testIndexPagination pages through an index partition whose sort keys repeat, where only
// the base keys in the cursor tell items apart.
func testIndexPagination(t *testing.T, s *suite) {
	g := s.pk("g")
	var want []store.Item
	for i, isk := range []string{"k1", "k1", "k1", "k2", "k2", "k3", "k4", "k4", "k5"} {
		it := s.item(fmt.Sprintf("base%d", i%3), fmt.Sprintf("item%d", i), store.AttrGSI1PK, g, store.AttrGSI1SK, isk)
		s.put(t, it)
		want = append(want, it)
	}
	s.eventuallyCount(t, store.Query{Index: store.IndexGSI1, PK: g}, len(want))
	for _, desc := range []bool{false, true} {
		t.Run(fmt.Sprintf("descending=%v", desc), func(t *testing.T) {
			got := s.pages(t, store.Query{Index: store.IndexGSI1, PK: g, Limit: 2, Descending: desc}, func(p store.Page) {
				if len(p.Items) > 2 {
					t.Fatalf("page of %d items; limit 2", len(p.Items))
				}
			})
			isks := sortKeys(got, store.AttrGSI1SK)
			sorted := slices.IsSorted(isks)
			if desc {
				sorted = slices.IsSorted(reversed(isks))
			}
			if !sorted {
				t.Fatalf("GSI1SK order %q (descending=%v)", isks, desc)
			}
			if msg := sameItems(got, want); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}

// testIndexFollowsWrites checks that the index follows updates and deletes of its items.
func testIndexFollowsWrites(t *testing.T, s *suite) {
	g := s.pk("g")
	k := s.key("p", "x")
	q := store.Query{Index: store.IndexGSI1, PK: g}
	s.put(t, s.item("p", "x", store.AttrGSI1PK, g, store.AttrGSI1SK, "1"))
	s.eventuallyQuery(t, q, []store.Item{s.item("p", "x", store.AttrGSI1PK, g, store.AttrGSI1SK, "1")})

	steps := []struct {
		name string
		u    store.Update
		want []store.Item
	}{
		{"move", store.Update{Key: k, Set: map[string]any{store.AttrGSI1SK: "2"}},
			[]store.Item{s.item("p", "x", store.AttrGSI1PK, g, store.AttrGSI1SK, "2")}},
		{"leave", store.Update{Key: k, Remove: []string{store.AttrGSI1SK}}, nil},
		{"return", store.Update{Key: k, Set: map[string]any{store.AttrGSI1SK: "3", "v": "w"}},
			[]store.Item{s.item("p", "x", store.AttrGSI1PK, g, store.AttrGSI1SK, "3", "v", "w")}},
	}
	for _, st := range steps {
		if _, err := s.tb.Update(s.ctx, st.u); err != nil {
			t.Fatalf("%s: Update: %v", st.name, err)
		}
		s.eventuallyQuery(t, q, st.want)
	}
	if err := s.tb.Delete(s.ctx, k); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	s.eventuallyQuery(t, q, nil)
}

func testIndexConsistentRefused(t *testing.T, s *suite) {
	for _, ix := range []string{store.IndexGSI1, store.IndexGSI2} {
		_, err := s.tb.Query(s.ctx, store.Query{Index: ix, PK: s.pk("g"), Consistent: true})
		wantErr(t, "consistent query on "+ix, err, store.ErrInvalid)
	}
}

// eventuallyQuery polls q (all pages) until it returns want, in order.
func (s *suite) eventuallyQuery(t *testing.T, q store.Query, want []store.Item) {
	t.Helper()
	eventually(t, func() string {
		got, err := store.QueryAll(s.ctx, s.tb, q)
		if err != nil {
			t.Fatalf("QueryAll(%+v): %v", q, err)
		}
		if len(got) == 0 && len(want) == 0 || reflect.DeepEqual(got, want) {
			return ""
		}
		return fmt.Sprintf("query %+v:\n got %v\nwant %v", q, got, want)
	})
}

func (s *suite) eventuallyCount(t *testing.T, q store.Query, n int) {
	t.Helper()
	eventually(t, func() string {
		got, err := store.QueryAll(s.ctx, s.tb, q)
		if err != nil {
			t.Fatalf("QueryAll(%+v): %v", q, err)
		}
		if len(got) != n {
			return fmt.Sprintf("query %+v: %d items; want %d", q, len(got), n)
		}
		return ""
	})
}

// sameItems compares two lists of items as multisets keyed by primary key.
func sameItems(got, want []store.Item) string {
	m := make(map[store.Key]store.Item, len(want))
	for _, it := range want {
		m[it.Key()] = it
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d items; want %d", len(got), len(want))
	}
	for _, it := range got {
		w, ok := m[it.Key()]
		if !ok {
			return fmt.Sprintf("unexpected or repeated item %s", it.Key())
		}
		if !reflect.DeepEqual(it, w) {
			return fmt.Sprintf("item %s:\n got %v\nwant %v", it.Key(), it, w)
		}
		delete(m, it.Key())
	}
	return ""
}
