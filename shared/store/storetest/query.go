package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

func testQuerySortKeyConditions(t *testing.T, s *suite) {
	sks := []string{"A#01", "A#02", "A#03", "A#04", "A#05", "B#01", "B#02", "B#03", "C"}
	for _, sk := range sks {
		s.put(t, s.item("p", sk))
	}
	// Neighbours: a partition whose key extends this one's, and one it extends.
	s.put(t, store.Item{store.AttrPK: s.pk("p") + "0", store.AttrSK: "A#01"})
	s.put(t, store.Item{store.AttrPK: s.pk("p")[:len(s.pk("p"))-1], store.AttrSK: "A#01"})

	cases := []struct {
		name     string
		op       store.SKOp
		from, to string
		desc     bool
		want     []string
	}{
		{"any", store.SKAny, "", "", false, sks},
		{"equal", store.SKEqual, "A#03", "", false, []string{"A#03"}},
		{"equal none", store.SKEqual, "A#0", "", false, nil},
		{"prefix", store.SKPrefix, "A#", "", false, sks[:5]},
		{"prefix of one", store.SKPrefix, "C", "", false, []string{"C"}},
		{"between", store.SKBetween, "A#02", "B#01", false, []string{"A#02", "A#03", "A#04", "A#05", "B#01"}},
		{"between non-keys", store.SKBetween, "A#025", "B#", false, []string{"A#03", "A#04", "A#05"}},
		{"greater or equal", store.SKGreaterEq, "B#02", "", false, []string{"B#02", "B#03", "C"}},
		{"less or equal", store.SKLessEq, "A#02", "", false, []string{"A#01", "A#02"}},
		{"any descending", store.SKAny, "", "", true, reversed(sks)},
		{"prefix descending", store.SKPrefix, "B#", "", true, []string{"B#03", "B#02", "B#01"}},
		{"between descending", store.SKBetween, "A#04", "B#02", true, []string{"B#02", "B#01", "A#05", "A#04"}},
		{"greater or equal descending", store.SKGreaterEq, "B#03", "", true, []string{"C", "B#03"}},
		{"less or equal descending", store.SKLessEq, "A#02", "", true, []string{"A#02", "A#01"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := s.queryAll(t, store.Query{PK: s.pk("p"), SKOp: c.op, From: c.from, To: c.to, Descending: c.desc, Consistent: true})
			if sk := sortKeys(got); !slices.Equal(sk, c.want) {
				t.Fatalf("sort keys %q; want %q", sk, c.want)
			}
		})
	}
}

// testQueryByteOrder checks DynamoDB's order of string sort keys: UTF-8 bytes, so upper case
// before lower case and every non-ASCII letter after ASCII.
func testQueryByteOrder(t *testing.T, s *suite) {
	sks := []string{"é", "a", "Z", "~", "#", "a#", "aa", "0", "Ω", "10", "9", "A", "a b"}
	for _, sk := range sks {
		s.put(t, s.item("p", sk))
	}
	want := slices.Clone(sks)
	slices.Sort(want) // Go compares strings byte by byte
	got := sortKeys(s.queryAll(t, store.Query{PK: s.pk("p"), Consistent: true}))
	if !slices.Equal(got, want) {
		t.Fatalf("ascending %q; want %q", got, want)
	}
	got = sortKeys(s.queryAll(t, store.Query{PK: s.pk("p"), Descending: true, Consistent: true}))
	if !slices.Equal(got, reversed(want)) {
		t.Fatalf("descending %q; want %q", got, reversed(want))
	}
}

func testQueryPagination(t *testing.T, s *suite) {
	var all []string
	for i := range 23 {
		sk := store.Pad(int64(i), 3)
		all = append(all, sk)
		s.put(t, s.item("p", sk, "i", int64(i)))
	}
	cases := []struct {
		name  string
		q     store.Query
		limit int
		want  []string
	}{
		{"ascending", store.Query{}, 5, all},
		{"descending", store.Query{Descending: true}, 4, reversed(all)},
		{"between", store.Query{SKOp: store.SKBetween, From: "003", To: "015"}, 3, all[3:16]},
		{"limit 1", store.Query{SKOp: store.SKPrefix, From: "00"}, 1, all[:10]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := c.q
			q.PK, q.Limit, q.Consistent = s.pk("p"), c.limit, true
			got := s.pages(t, q, func(p store.Page) {
				if len(p.Items) > c.limit {
					t.Fatalf("page of %d items; limit %d", len(p.Items), c.limit)
				}
			})
			if sk := sortKeys(got); !slices.Equal(sk, c.want) {
				t.Fatalf("pages returned %q; want %q", sk, c.want)
			}
		})
	}
}

// testQueryPageSize checks the 1 MB page: a page stops once its items reach 1 MB, and the
// pages together still return every item once.
func testQueryPageSize(t *testing.T, s *suite) {
	var puts []store.Item
	for i := range 30 {
		puts = append(puts, s.item("p", store.Pad(int64(i), 2), "blob", strings.Repeat(string(rune('a'+i%26)), 100_000)))
	}
	if err := s.tb.BatchWrite(s.ctx, puts, nil); err != nil {
		t.Fatalf("BatchWrite: %v", err)
	}
	first, err := s.tb.Query(s.ctx, store.Query{PK: s.pk("p"), Consistent: true})
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if len(first.Items) == 0 || len(first.Items) >= 30 || first.Next == nil {
		t.Fatalf("first page has %d items and Next %v; want a page cut at 1 MB with a Next", len(first.Items), first.Next)
	}
	got := s.pages(t, store.Query{PK: s.pk("p"), Consistent: true}, nil)
	if len(got) != 30 {
		t.Fatalf("pages returned %d items; want 30", len(got))
	}
	for i, it := range got {
		if it[store.AttrSK] != puts[i][store.AttrSK] || it["blob"] != puts[i]["blob"] {
			t.Fatalf("item %d of the pages is %s; want %s with its blob", i, it.Key(), puts[i].Key())
		}
	}
}

// pages reads every page of q, checking that each Next is the key of its page's last item and
// that pages do not go on for ever, and returns all the items.
func (s *suite) pages(t *testing.T, q store.Query, each func(store.Page)) []store.Item {
	t.Helper()
	var all []store.Item
	for n := 0; ; n++ {
		if n > 200 {
			t.Fatalf("more than 200 pages")
		}
		p, err := s.tb.Query(s.ctx, q)
		if err != nil {
			t.Fatalf("Query page %d: %v", n, err)
		}
		if each != nil {
			each(p)
		}
		all = append(all, p.Items...)
		if p.Next == nil {
			return all
		}
		if len(p.Items) > 0 {
			if err := cursorOfLast(p, q.Index); err != nil {
				t.Fatalf("page %d: %v", n, err)
			}
		}
		q.Start = p.Next
	}
}

func cursorOfLast(p store.Page, index string) error {
	last := p.Items[len(p.Items)-1]
	attrs := []string{store.AttrPK, store.AttrSK}
	switch index {
	case store.IndexGSI1:
		attrs = append(attrs, store.AttrGSI1PK, store.AttrGSI1SK)
	case store.IndexGSI2:
		attrs = append(attrs, store.AttrGSI2PK, store.AttrGSI2SK)
	}
	for _, a := range attrs {
		if got, ok := p.Next[a]; !ok || got != last[a] {
			return fmt.Errorf("cursor attribute %s = %q; want the last item's %v", a, got, last[a])
		}
	}
	return nil
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}
