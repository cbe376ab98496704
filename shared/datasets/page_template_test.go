package datasets

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// A page put together from its template and its authors is the page as encoded; and one
// whose authors' JSON grew past the size bound is refused (to be encoded afresh and cut),
// except a lone row, which a page always holds.
func TestPageTemplateFill(t *testing.T) {
	d := store.Dataset{ColumnNames: []string{"q", "a"}, RowCount: 3}
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var rows []store.DatasetRow
	for i := range 3 {
		rows = append(rows, store.DatasetRow{RowID: "r" + strconv.Itoa(i), Index: int64(i), Values: []any{"q", int64(i)},
			CreatedInVersion: 1, CreatedAt: at, CreatedBy: "u1", UpdatedInVersion: 2, UpdatedAt: at, UpdatedBy: []string{"u1", "u2", "gone"}[i]})
	}
	users := func(first string) map[string]*userInfo {
		return map[string]*userInfo{"u1": {ID: "u1", Email: "a@b", FirstName: first}, "u2": {ID: "u2", Email: "c@d"}, "gone": nil}
	}
	page := func(maxBytes int, first string, rows []store.DatasetRow) *rowPage {
		p := newRowPage(d, 0, 10, maxBytes)
		p.users = users(first) // known: nothing is read
		if _, err := p.add(t.Context(), nil, rows); err != nil {
			t.Fatal(err)
		}
		return p
	}
	orig := page(maxPageBytes, "Ann", rows)
	tpl := orig.template()
	if tpl == nil || tpl.n != 3 || len(tpl.users) != 3 || strings.Contains(string(tpl.rows), "Ann") {
		t.Fatalf("template %+v", tpl)
	}
	for _, first := range []string{"Ann", "Annabel"} {
		want := page(maxPageBytes, first, rows)
		got := newRowPage(d, 0, 10, maxPageBytes)
		got.users = users(first)
		if ok, err := got.fill(t.Context(), nil, tpl); !ok || err != nil {
			t.Fatalf("fill: %v %v", ok, err)
		}
		if string(*got.buf) != string(*want.buf) || got.n != want.n {
			t.Errorf("first name %s:\n filled  %s\n encoded %s", first, *got.buf, *want.buf)
		}
	}

	// A bound the rows just fit with "Ann": with "Annabel" they do not, and a fresh page is cut.
	envelope := maxPageBytes - newRowPage(d, 0, 10, maxPageBytes).budget
	exact := envelope + len(*orig.buf) + 1
	if p := page(exact, "Ann", rows); p.cut || p.n != 3 {
		t.Fatalf("the rows do not fit the bound made for them: cut %v, %d rows", p.cut, p.n)
	}
	if p := page(exact, "Annabel", rows); !p.cut {
		t.Fatal("longer authors were not cut: the bound is not the test's")
	}
	longer := newRowPage(d, 0, 10, exact)
	longer.users = users("Annabel")
	if ok, err := longer.fill(t.Context(), nil, tpl); ok || err != nil {
		t.Fatalf("a template past the bound was filled: %v %v", ok, err)
	}

	one := page(maxPageBytes, "Ann", rows[:1]).template()
	lone := newRowPage(d, 0, 10, envelope+10)
	lone.users = users("Annabel")
	if ok, err := lone.fill(t.Context(), nil, one); !ok || err != nil || lone.n != 1 {
		t.Fatalf("a lone row was refused: %v %v", ok, err)
	}
}

// A page's key changes with everything its rows are made of, and only with that.
func TestPageKey(t *testing.T) {
	st := func(names ...string) store.ContentState {
		s := store.ContentState{DatasetID: "d", Version: 3,
			Manifest: []store.SegmentRef{{Slot: "s1", Seg: "g1", N: 10}, {Slot: "s2", Seg: "g2", N: 10}, {Slot: "s3", Seg: "g3", N: 10}}}
		for i, n := range names {
			s.Columns = append(s.Columns, store.DatasetColumn{Name: n, Slot: int64(i)})
		}
		return s
	}
	base := pageKey(st("q", "a"), 5, 10)
	same := st("q", "a")
	same.Version = 4 // a version whose rows are the same segments: the same page
	if pageKey(same, 5, 10) != base {
		t.Error("the key changed with nothing the page is made of")
	}
	changed := map[string]string{
		"column renamed":     pageKey(st("q", "b"), 5, 10),
		"columns merged":     pageKey(st("q"+string(rune(1))+"a"), 5, 10),
		"start":              pageKey(st("q", "a"), 6, 10),
		"limit":              pageKey(st("q", "a"), 5, 11),
		"dataset":            func() string { s := st("q", "a"); s.DatasetID = "e"; return pageKey(s, 5, 10) }(),
		"slot of a column":   func() string { s := st("q", "a"); s.Columns[1].Slot = 7; return pageKey(s, 5, 10) }(),
		"spanned segment":    func() string { s := st("q", "a"); s.Manifest[1].Seg = "g9"; return pageKey(s, 5, 10) }(),
		"rows before it":     func() string { s := st("q", "a"); s.Manifest[0].N = 9; return pageKey(s, 5, 10) }(),
		"segment after page": func() string { s := st("q", "a"); s.Manifest[2].Seg = "g9"; return pageKey(s, 5, 10) }(),
	}
	for what, k := range changed {
		if what == "segment after page" {
			if k != base {
				t.Errorf("%s: the key changed with a segment the page does not span", what)
			}
			continue
		}
		if k == base {
			t.Errorf("%s: the key did not change", what)
		}
	}
}
