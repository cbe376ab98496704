package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

// contentOf reads a version's rows as "a/b" strings (a and b the values of the first two
// columns), for compact comparisons.
func contentOf(t *testing.T, tbl store.Table, st store.ContentState) []string {
	t.Helper()
	var out []string
	for r, err := range store.ContentRows(t.Context(), tbl, st, 0, 1<<40) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Index != int64(len(out)) {
			t.Fatalf("row %d has index %d", len(out), r.Index)
		}
		out = append(out, rowText(r))
	}
	return out
}

func current(t *testing.T, tbl store.Table, org string, id string) (store.Dataset, store.ContentState) {
	t.Helper()
	d, err := store.GetDataset(t.Context(), tbl, org, id)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.CurrentState(t.Context(), tbl, d)
	if err != nil {
		t.Fatal(err)
	}
	return d, st
}

// Every edit kind makes the next version, and every version stays readable as it was.
func TestDatasetEditKindsAndVersions(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		d := newTestDataset(t, tbl, "org-k", "alice", 3) // rows 0 r0, 1 r1, 2 r2
		rows := readRows(t, tbl, d, 0, 3)
		steps := []struct {
			name  string
			edits []store.DatasetEdit
			want  []string
			cols  []string
		}{
			{"append", []store.DatasetEdit{{Kind: store.EditAppendRow, RowID: "new-a", Values: map[string]any{"a": int64(9)}}},
				[]string{"0 r0", "1 r1", "2 r2", "9 <nil>"}, []string{"a", "b"}},
			{"prepend", []store.DatasetEdit{{Kind: store.EditPrependRow, RowID: "new-p", Values: map[string]any{"b": "first"}}},
				[]string{"<nil> first", "0 r0", "1 r1", "2 r2", "9 <nil>"}, []string{"a", "b"}},
			{"update", []store.DatasetEdit{{Kind: store.EditUpdateRow, RowID: rows[1].RowID, Values: map[string]any{"b": "changed"}}},
				[]string{"<nil> first", "0 r0", "1 changed", "2 r2", "9 <nil>"}, []string{"a", "b"}},
			{"delete", []store.DatasetEdit{{Kind: store.EditDeleteRow, RowID: rows[0].RowID}},
				[]string{"<nil> first", "1 changed", "2 r2", "9 <nil>"}, []string{"a", "b"}},
			{"rename", []store.DatasetEdit{{Kind: store.EditRenameColumn, Column: "b", NewColumn: "label"}},
				[]string{"<nil> first", "1 changed", "2 r2", "9 <nil>"}, []string{"a", "label"}},
			{"remove", []store.DatasetEdit{{Kind: store.EditRemoveColumn, Column: "a"}},
				[]string{"first", "changed", "r2", "<nil>"}, []string{"label"}},
			{"filter", []store.DatasetEdit{{Kind: store.EditFilterRows, RowIDs: []string{rows[2].RowID, "new-p"}}},
				[]string{"first", "r2"}, []string{"label"}},
			{"several at once", []store.DatasetEdit{
				{Kind: store.EditAppendRow, RowID: "x1", Values: map[string]any{"label": "x1"}},
				{Kind: store.EditUpdateRow, RowID: "x1", Values: map[string]any{"label": "x1!"}},
				{Kind: store.EditDeleteRow, RowID: "new-p"}},
				[]string{"r2", "x1!"}, []string{"label"}},
		}
		history := [][]string{{"0 r0", "1 r1", "2 r2"}}
		for i, s := range steps {
			got, err := store.EditDataset(ctx, tbl, "org-k", d.ID, int64(i+1), s.edits, "bob", datasetT0)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			_, st := current(t, tbl, "org-k", d.ID)
			if got.Version != int64(i+2) || !slices.Equal(contentOf(t, tbl, st), s.want) || !slices.Equal(got.ColumnNames, s.cols) {
				t.Fatalf("%s: version %d, columns %v, content %q; want %d, %v, %q", s.name, got.Version, got.ColumnNames, contentOf(t, tbl, st), i+2, s.cols, s.want)
			}
			history = append(history, s.want)
		}
		d, _ = current(t, tbl, "org-k", d.ID)
		for v, want := range history {
			rec, st, err := store.GetDatasetVersion(ctx, tbl, d, int64(v+1))
			if err != nil || rec.NumRows != int64(len(want)) || !slices.Equal(contentOf(t, tbl, st), want) {
				t.Errorf("version %d: %+v %q (%v); want %q", v+1, rec, contentOf(t, tbl, st), err, want)
			}
		}
		versions, err := store.ListDatasetVersions(ctx, tbl, d.ID)
		if err != nil || len(versions) != len(history) {
			t.Fatalf("versions: %d (%v)", len(versions), err)
		}
		type stats struct{ ra, rr, re, ca, cr, cn int64 }
		for i, want := range []stats{{3, 0, 0, 2, 0, 0}, {1, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}, {0, 1, 0, 0, 0, 0},
			{0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 1, 0}, {0, 2, 0, 0, 0, 0}, {1, 1, 0, 0, 0, 0}} {
			var got stats
			got.ra, got.rr, got.re, got.ca, got.cr, got.cn = versions[i].Stats()
			if got != want {
				t.Errorf("version %d changed %+v, want %+v", i+1, got, want)
			}
		}
		if _, _, err := store.GetDatasetVersion(ctx, tbl, d, d.Version+1); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a version after the current one: %v", err)
		}
	})
}

func TestDatasetEditRefusals(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		d := newTestDataset(t, tbl, "org-r", "alice", 2)
		rows := readRows(t, tbl, d, 0, 2)
		var ee *store.DatasetEditError
		for _, tc := range []struct {
			name  string
			edit  store.DatasetEdit
			field string
		}{
			{"unknown column", store.DatasetEdit{Kind: store.EditAppendRow, RowID: "n", Values: map[string]any{"zz": 1}}, "values"},
			{"existing row id", store.DatasetEdit{Kind: store.EditAppendRow, RowID: rows[0].RowID}, "row_id"},
			{"rename an unknown column", store.DatasetEdit{Kind: store.EditRenameColumn, Column: "zz", NewColumn: "y"}, "column_name"},
			{"rename onto a column", store.DatasetEdit{Kind: store.EditRenameColumn, Column: "a", NewColumn: "b"}, "new_column_name"},
			{"remove an unknown column", store.DatasetEdit{Kind: store.EditRemoveColumn, Column: "zz"}, "column_name"},
		} {
			_, err := store.EditDataset(ctx, tbl, "org-r", d.ID, 0, []store.DatasetEdit{{Kind: store.EditUpdateRow, RowID: rows[1].RowID}, tc.edit}, "bob", datasetT0)
			if !errors.As(err, &ee) || ee.Edit != 1 || ee.Field != tc.field {
				t.Errorf("%s: %v, want an edit error at edit 1, %s", tc.name, err, tc.field)
			}
		}
		var nf *store.DatasetRowsNotFoundError
		if _, err := store.EditDataset(ctx, tbl, "org-r", d.ID, 0, []store.DatasetEdit{{Kind: store.EditFilterRows, RowIDs: []string{"gone"}}}, "bob", datasetT0); !errors.As(err, &nf) {
			t.Errorf("filter to an unknown row: %v", err)
		}
		if got, _ := current(t, tbl, "org-r", d.ID); got.Version != 1 {
			t.Errorf("refused edits made version %d", got.Version)
		}
	})
}

// A dataset of more segments than a manifest holds inline: its manifest is stored (reading
// the current version costs one Get more), pages at any offset read, an edit of one row
// writes one segment, and a rollback and a copy from another dataset make new versions.
//
// Its rows are padded so that perSegment of them fill a segment: what the test crosses is a
// number of segments, not of rows. It used to take 12,000 small rows (250 to a segment),
// which cost moto 560 s: moto copies the whole table once per action of a transaction and
// encodes every nested value of a response one by one, so its cost grows with the items and
// values a test leaves in the table, not with their bytes. Then 25 rows to a segment (1,100
// rows, moto 91 s); now 3: still several rows to a segment, and still more locators (132)
// than one transaction holds, so that the create and the rollback both write their content
// in batches before their transaction (counted below).
func TestLargeDatasetRollbackAndCopy(t *testing.T) {
	const (
		perSegment = 3
		segments   = store.InlineManifest + 4
		n          = segments * perSegment
		mid        = n / 2
	)
	// A row of this many bytes fills a segment at perSegment rows: one more would overflow it.
	pad := strings.Repeat("x", store.SegmentBytes/perSegment-store.SegmentRowOverhead-64)
	values := func(i int) []any { return []any{pad, fmt.Sprintf("r%d", i)} }
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		counted := storecount.New(tbl)
		w := &segmentWrites{Table: counted}
		d := newTestDatasetOf(t, w, "org-big", n, values)
		if c := counted.Snapshot(); c.Calls["Transact"] != 1 || c.Calls["BatchWrite"] == 0 {
			t.Errorf("create: %s; want the content batch-written before one transaction (it outgrows one)", c)
		}
		if !d.ManifestStored || len(d.Manifest) != 0 || d.RowCount != n {
			t.Fatalf("created: stored %v inline %d rows %d", d.ManifestStored, len(d.Manifest), d.RowCount)
		}
		counted.Reset()
		_, st := current(t, counted, "org-big", d.ID)
		if len(st.Manifest) != segments {
			t.Errorf("%d segments, want %d (more than the %d a manifest holds inline)", len(st.Manifest), segments, store.InlineManifest)
		}
		if c := counted.Snapshot(); c.Calls["Get"] != 2 || c.Total != 2 {
			t.Errorf("reading the current version: %s; want 2 Gets (META, then the stored manifest)", c)
		}
		page := readRows(t, tbl, d, mid, mid+3)
		if len(page) != 3 || page[0].Index != mid || page[0].Values[1] != fmt.Sprintf("r%d", mid) {
			t.Fatalf("page at %d: %d rows, first %d %v", mid, len(page), page[0].Index, page[0].Values[1])
		}
		w.n.Store(0)
		d2, err := store.EditDataset(ctx, w, "org-big", d.ID, 0, []store.DatasetEdit{{Kind: store.EditUpdateRow, RowID: page[1].RowID, Values: map[string]any{"b": "edited"}}}, "bob", datasetT0)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.n.Load(); got != 1 {
			t.Errorf("an edit of one row wrote %d segments, want 1", got)
		}
		if r := readRows(t, tbl, d2, mid+1, mid+2); r[0].Values[1] != "edited" || r[0].UpdatedInVersion != 2 || r[0].CreatedInVersion != 1 {
			t.Errorf("edited row: %+v", r[0].Values[1])
		}
		_, v1, err := store.GetDatasetVersion(ctx, tbl, d2, 1)
		if err != nil {
			t.Fatal(err)
		}
		counted.Reset()
		d3, err := store.ReplaceDatasetContent(ctx, counted, "org-big", d.ID, 2, v1, "carol", datasetT0)
		if err != nil || d3.Version != 3 || d3.RowCount != n {
			t.Fatalf("rollback: version %d, %d rows, %v", d3.Version, d3.RowCount, err)
		}
		if c := counted.Snapshot(); c.Calls["Transact"] != 1 || c.Calls["BatchWrite"] == 0 {
			t.Errorf("rollback: %s; want the locators batch-written before one transaction (they outgrow one)", c)
		}
		if r := readRows(t, tbl, d3, mid+1, mid+2); r[0].Values[1] != fmt.Sprintf("r%d", mid+1) {
			t.Errorf("rolled back row: %v", r[0].Values[1])
		}
		recs, _ := store.ListDatasetVersions(ctx, tbl, d.ID)
		if _, _, re, _, _, _ := recs[2].Stats(); re != 1 {
			t.Errorf("the rollback edited %d rows, want 1", re)
		}
		// Edits by row id keep working after the rollback (the locators were rewritten).
		if _, err := store.EditDataset(ctx, tbl, "org-big", d.ID, 0, []store.DatasetEdit{{Kind: store.EditDeleteRow, RowID: page[2].RowID}}, "bob", datasetT0); err != nil {
			t.Fatalf("delete after the rollback: %v", err)
		}

		other := newTestDatasetOf(t, tbl, "org-big", 5, func(i int) []any { return []any{"o", int64(i)} })
		_, ost := current(t, tbl, "org-big", other.ID)
		d5, err := store.ReplaceDatasetContent(ctx, tbl, "org-big", d.ID, 0, ost, "dave", datasetT0)
		if err != nil || d5.RowCount != 5 || d5.Version != 5 {
			t.Fatalf("copy: version %d, %d rows, %v", d5.Version, d5.RowCount, err)
		}
		_, st5 := current(t, tbl, "org-big", d.ID)
		if got := contentOf(t, tbl, st5); !slices.Equal(got, []string{"o 0", "o 1", "o 2", "o 3", "o 4"}) {
			t.Errorf("copied content %q", got)
		}
		copied := readRows(t, tbl, d5, 0, 1)[0]
		if copied.CreatedBy != "dave" || copied.CreatedInVersion != 5 {
			t.Errorf("copied row %+v", copied)
		}
		if _, err := store.EditDataset(ctx, tbl, "org-big", d.ID, 0, []store.DatasetEdit{{Kind: store.EditUpdateRow, RowID: copied.RowID, Values: map[string]any{"a": "z"}}}, "bob", datasetT0); err != nil {
			t.Errorf("edit of a copied row: %v", err)
		}
	})
}

// segmentWrites counts the dataset segments written through it (puts of SEG# items, alone,
// batched or in a transaction): a test sees what an edit wrote without reading the table.
// Batches of a large write go out in parallel, hence the atomic count.
type segmentWrites struct {
	store.Table
	n atomic.Int64
}

func (w *segmentWrites) count(it store.Item) {
	if sk, _ := it[store.AttrSK].(string); strings.HasPrefix(sk, "SEG#") {
		w.n.Add(1)
	}
}

func (w *segmentWrites) Put(ctx context.Context, it store.Item, conds ...store.Cond) error {
	w.count(it)
	return w.Table.Put(ctx, it, conds...)
}

func (w *segmentWrites) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	for _, it := range puts {
		w.count(it)
	}
	return w.Table.BatchWrite(ctx, puts, deletes)
}

func (w *segmentWrites) Transact(ctx context.Context, ops []store.Op) error {
	for _, op := range ops {
		if op.Kind == store.OpPut {
			w.count(op.Item)
		}
	}
	return w.Table.Transact(ctx, ops)
}

// A locator that names the wrong slot (a write that failed after writing it) sends an edit
// looking through every segment, which finds the row and repairs the locator. The rows are
// padded to 5 a segment: three segments, the row in the second, as 600 small rows made them
// (each row is a locator item, which moto pays for).
func TestDatasetStaleLocator(t *testing.T) {
	pad := segmentPad(5)
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		d := newTestDatasetOf(t, tbl, "org-s", 15, func(i int) []any { return []any{pad, fmt.Sprintf("r%d", i)} })
		_, st := current(t, tbl, "org-s", d.ID)
		if len(st.Manifest) != 3 {
			t.Fatalf("%d segments, want 3", len(st.Manifest))
		}
		row := readRows(t, tbl, d, 7, 8)[0]
		k := store.Key{PK: store.DatasetKey(d.ID).PK, SK: "LOC#" + row.RowID}
		if err := tbl.Put(ctx, store.Item{store.AttrPK: k.PK, store.AttrSK: k.SK, "s": "no-such-slot"}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.EditDataset(ctx, tbl, "org-s", d.ID, 0, []store.DatasetEdit{{Kind: store.EditUpdateRow, RowID: row.RowID, Values: map[string]any{"b": "found"}}}, "bob", datasetT0); err != nil {
			t.Fatal(err)
		}
		it, err := tbl.Get(ctx, k, true)
		if err != nil || it["s"] == "no-such-slot" {
			t.Errorf("the locator was not repaired: %v %v", it, err)
		}
		_, err = store.EditDataset(ctx, tbl, "org-s", d.ID, 0, []store.DatasetEdit{{Kind: store.EditUpdateRow, RowID: uuid.NewString(), Values: map[string]any{"b": "x"}}}, "bob", datasetT0)
		var nf *store.DatasetRowsNotFoundError
		if !errors.As(err, &nf) {
			t.Errorf("an unknown row: %v", err)
		}
	})
}

// segmentPad is a value that makes a row of two columns (it and a short one) fill a dataset
// segment at perSegment rows: tests cross segments with few rows, hence few locator items.
func segmentPad(perSegment int) string {
	return strings.Repeat("x", store.SegmentBytes/perSegment-store.SegmentRowOverhead-64)
}

// rowText is a row's values joined by spaces.
func rowText(r store.DatasetRow) string {
	parts := make([]string, len(r.Values))
	for i, v := range r.Values {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, " ")
}
