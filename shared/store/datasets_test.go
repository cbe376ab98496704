package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

var datasetT0 = time.Date(2026, 5, 6, 7, 8, 9, 123456000, time.UTC)

// newTestDataset creates a dataset of org with columns a, b and n rows whose values are
// [i, "r<i>"], created by user at datasetT0.
func newTestDataset(t *testing.T, tbl store.Table, org, user string, n int) store.Dataset {
	t.Helper()
	return createTestDataset(t, tbl, org, user, testRows(0, n))
}

// newTestDatasetOf creates a dataset of org by alice with n rows of the given values.
func newTestDatasetOf(t *testing.T, tbl store.Table, org string, n int, values func(i int) []any) store.Dataset {
	t.Helper()
	rows := make([]store.NewDatasetRow, n)
	for i := range rows {
		rows[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: values(i)}
	}
	return createTestDataset(t, tbl, org, "alice", rows)
}

func createTestDataset(t *testing.T, tbl store.Table, org, user string, rows []store.NewDatasetRow) store.Dataset {
	t.Helper()
	d := store.Dataset{ID: uuid.NewString(), OrgID: org, Name: "ds", ColumnNames: []string{"a", "b"},
		CreatedBy: user, CreatedAt: datasetT0}
	owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: d.ID, OrgID: org, UserID: user,
		Role: store.DatasetOwner, CreatedBy: user, CreatedAt: datasetT0}
	d, err := store.CreateDataset(t.Context(), tbl, d, owner, rows)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func testRows(first, n int) []store.NewDatasetRow {
	rows := make([]store.NewDatasetRow, n)
	for i := range rows {
		rows[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: []any{int64(first + i), fmt.Sprintf("r%d", first+i)}}
	}
	return rows
}

func readRows(t *testing.T, tbl store.Table, d store.Dataset, start, end int64) []store.DatasetRow {
	t.Helper()
	var out []store.DatasetRow
	for r, err := range store.DatasetRows(t.Context(), tbl, d, start, end) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestDatasetVersions follows one dataset through create (v1), append (v2) and a row update
// (v3): every row keeps the version and user that created it and reports the last change.
func TestDatasetVersions(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		d := newTestDataset(t, tbl, "org-v", "alice", 2)
		t1, t2 := datasetT0.Add(time.Minute), datasetT0.Add(2*time.Minute)
		d, err := store.AppendDatasetRows(ctx, tbl, "org-v", d.ID, 1, testRows(2, 1), "bob", t1)
		if err != nil {
			t.Fatal(err)
		}
		rows := readRows(t, tbl, d, 0, 10)
		d, err = store.UpdateDatasetRows(ctx, tbl, "org-v", d.ID, 2,
			[]store.DatasetRowEdit{{RowID: rows[0].RowID, Values: map[int]any{1: "changed"}}}, "carol", t2)
		if err != nil {
			t.Fatal(err)
		}
		if d.Version != 3 || d.RowCount != 3 || d.UpdatedBy != "carol" {
			t.Fatalf("dataset after update: version %d rows %d by %s; want 3, 3, carol", d.Version, d.RowCount, d.UpdatedBy)
		}
		got, err := store.GetDataset(ctx, tbl, "org-v", d.ID)
		if err != nil || got.Version != 3 || got.RowCount != 3 {
			t.Fatalf("GetDataset = %+v, %v", got, err)
		}
		type meta struct {
			values               []any
			createdIn, updatedIn int64
			createdBy, updatedBy string
			createdAt, updatedAt time.Time
		}
		want := []meta{
			{[]any{int64(0), "changed"}, 1, 3, "alice", "carol", datasetT0, t2},
			{[]any{int64(1), "r1"}, 1, 1, "alice", "alice", datasetT0, datasetT0},
			{[]any{int64(2), "r2"}, 2, 2, "bob", "bob", t1, t1},
		}
		rows = readRows(t, tbl, got, 0, 10)
		if len(rows) != len(want) {
			t.Fatalf("%d rows, want %d", len(rows), len(want))
		}
		for i, w := range want {
			r := rows[i]
			g := meta{r.Values, r.CreatedInVersion, r.UpdatedInVersion, r.CreatedBy, r.UpdatedBy, r.CreatedAt, r.UpdatedAt}
			if r.Index != int64(i) || !reflect.DeepEqual(g, w) {
				t.Errorf("row %d = %+v\n want %+v", i, g, w)
			}
		}
	})
}

// TestDatasetWriteErrors checks the refusals of the writers.
func TestDatasetWriteErrors(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		d := newTestDataset(t, tbl, "org-e", "alice", 3)
		rows := readRows(t, tbl, d, 0, 3)
		edit := func(id string) []store.DatasetRowEdit {
			return []store.DatasetRowEdit{{RowID: id, Values: map[int]any{0: "x"}}}
		}
		tests := []struct {
			name string
			run  func() error
			want error
		}{
			{"append to another org's", func() error {
				_, err := store.AppendDatasetRows(ctx, tbl, "org-other", d.ID, 0, testRows(3, 1), "bob", datasetT0)
				return err
			}, store.ErrNotFound},
			{"append to an unknown", func() error {
				_, err := store.AppendDatasetRows(ctx, tbl, "org-e", uuid.NewString(), 0, testRows(3, 1), "bob", datasetT0)
				return err
			}, store.ErrNotFound},
			{"append at a stale version", func() error {
				_, err := store.AppendDatasetRows(ctx, tbl, "org-e", d.ID, 7, testRows(3, 1), "bob", datasetT0)
				return err
			}, store.ErrDatasetVersion},
			{"update at a stale version", func() error {
				_, err := store.UpdateDatasetRows(ctx, tbl, "org-e", d.ID, 7, edit(rows[0].RowID), "bob", datasetT0)
				return err
			}, store.ErrDatasetVersion},
			{"update of an unknown row", func() error {
				_, err := store.UpdateDatasetRows(ctx, tbl, "org-e", d.ID, 0, edit("nope"), "bob", datasetT0)
				return err
			}, store.ErrNotFound},
			{"update of one row twice", func() error {
				_, err := store.UpdateDatasetRows(ctx, tbl, "org-e", d.ID, 0, append(edit(rows[0].RowID), edit(rows[0].RowID)...), "bob", datasetT0)
				return err
			}, store.ErrInvalid},
			{"a row too large", func() error {
				big := []store.NewDatasetRow{{RowID: uuid.NewString(), Values: []any{string(make([]byte, store.MaxDatasetRowBytes)), nil}}}
				_, err := store.AppendDatasetRows(ctx, tbl, "org-e", d.ID, 0, big, "bob", datasetT0)
				return err
			}, store.ErrTooLarge},
		}
		for _, tt := range tests {
			if err := tt.run(); !errors.Is(err, tt.want) {
				t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
			}
		}
		var nf *store.DatasetRowsNotFoundError
		_, err := store.UpdateDatasetRows(ctx, tbl, "org-e", d.ID, 0, append(edit("nope"), edit(rows[1].RowID)...), "bob", datasetT0)
		if !errors.As(err, &nf) || !reflect.DeepEqual(nf.RowIDs, []string{"nope"}) {
			t.Errorf("update naming an unknown row: %v, want the unknown row named", err)
		}
		if got, _ := store.GetDataset(ctx, tbl, "org-e", d.ID); got.Version != 1 || got.RowCount != 3 {
			t.Errorf("the refused writes changed the dataset: %+v", got)
		}
	})
}

// flakyTable fails every BatchWrite after the first `ok` ones, as a throttled or broken
// table would in the middle of a large write.
type flakyTable struct {
	store.Table
	ok    int64
	calls atomic.Int64
}

var errFlaky = errors.New("flaky: write failed")

func (f *flakyTable) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	if f.calls.Add(1) > f.ok {
		return errFlaky
	}
	return f.Table.BatchWrite(ctx, puts, deletes)
}

// TestDatasetFailedWritesStayInvisible breaks large writes halfway: the dataset keeps its
// committed version and rows, the next writer is not blocked, and a failed creation leaves
// no dataset.
func TestDatasetFailedWritesStayInvisible(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		d := newTestDataset(t, tbl, "org-f", "alice", 3)
		flaky := &flakyTable{Table: tbl, ok: 1}
		big := testRows(3, 3*200) // several BatchWrite calls: some land, then one fails
		if _, err := store.AppendDatasetRows(ctx, flaky, "org-f", d.ID, 1, big, "bob", datasetT0); !errors.Is(err, errFlaky) {
			t.Fatalf("append through a failing table: %v", err)
		}
		got, err := store.GetDataset(ctx, tbl, "org-f", d.ID)
		if err != nil || got.Version != 1 || got.RowCount != 3 {
			t.Fatalf("after the failed append: %+v, %v; want version 1 with 3 rows", got, err)
		}
		if rows := readRows(t, tbl, got, 0, 1000); len(rows) != 3 {
			t.Fatalf("after the failed append %d rows are visible, want 3", len(rows))
		}
		// The lease was released: the next append goes through at once and replaces the
		// rows the failed one left beyond row_count.
		got, err = store.AppendDatasetRows(ctx, tbl, "org-f", d.ID, 1, testRows(3, 300), "carol", datasetT0)
		if err != nil || got.Version != 2 || got.RowCount != 303 {
			t.Fatalf("append after the failure: %+v, %v", got, err)
		}
		rows := readRows(t, tbl, got, 0, 1000)
		if len(rows) != 303 || rows[302].Index != 302 || rows[302].CreatedBy != "carol" {
			t.Fatalf("rows after the second append: %d, last %+v", len(rows), rows[len(rows)-1])
		}

		id := uuid.NewString()
		nd := store.Dataset{ID: id, OrgID: "org-f", Name: "broken", ColumnNames: []string{"a", "b"}, CreatedBy: "alice", CreatedAt: datasetT0}
		owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: id, OrgID: "org-f", UserID: "alice", Role: store.DatasetOwner, CreatedAt: datasetT0}
		flaky = &flakyTable{Table: tbl, ok: 1}
		if _, err := store.CreateDataset(ctx, flaky, nd, owner, testRows(0, 600)); !errors.Is(err, errFlaky) {
			t.Fatalf("create through a failing table: %v", err)
		}
		if _, err := store.GetDataset(ctx, tbl, "org-f", id); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a failed creation left a dataset: %v", err)
		}
	})
}

// TestConcurrentDatasetWrites runs appends and updates of one dataset at once: each commits
// as its own version (the losers of a race redo their edit on the winner's version), no
// row is lost, and the versions run 1, 2, 3... without a gap.
func TestConcurrentDatasetWrites(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		d := newTestDataset(t, tbl, "org-c", "alice", 3)
		rows := readRows(t, tbl, d, 0, 3)
		const writers = 4
		type result struct {
			appended bool
			err      error
		}
		results := make(chan result, 2*writers)
		for i := range writers {
			go func() {
				_, err := store.AppendDatasetRows(ctx, tbl, "org-c", d.ID, 0, testRows(100+i, 1), "bob", datasetT0)
				results <- result{true, err}
			}()
			go func() {
				_, err := store.UpdateDatasetRows(ctx, tbl, "org-c", d.ID, 0,
					[]store.DatasetRowEdit{{RowID: rows[i%3].RowID, Values: map[int]any{1: fmt.Sprintf("w%d", i)}}}, "carol", datasetT0)
				results <- result{false, err}
			}()
		}
		commits, appends := 0, 0
		for range 2 * writers {
			switch r := <-results; {
			case errors.Is(r.err, store.ErrDatasetBusy): // every attempt lost its race: the caller retries
			case r.err != nil:
				t.Fatal(r.err)
			default:
				commits++
				if r.appended {
					appends++
				}
			}
		}
		if commits < writers {
			t.Errorf("only %d of %d writes committed", commits, 2*writers)
		}
		got, err := store.GetDataset(ctx, tbl, "org-c", d.ID)
		if err != nil || got.Version != int64(1+commits) || got.RowCount != int64(3+appends) {
			t.Fatalf("after the writers: version %d rows %d (%v), want %d and %d", got.Version, got.RowCount, err, 1+commits, 3+appends)
		}
		if n := len(readRows(t, tbl, got, 0, 100)); n != 3+appends {
			t.Fatalf("%d rows readable, want %d", n, 3+appends)
		}
		versions, err := store.ListDatasetVersions(ctx, tbl, d.ID)
		if err != nil || int64(len(versions)) != got.Version {
			t.Fatalf("%d version records, want %d (%v)", len(versions), got.Version, err)
		}
		for i, v := range versions {
			if v.Index != int64(i+1) {
				t.Fatalf("version record %d has index %d", i, v.Index)
			}
		}
	})
}
