package purge_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/purge"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/stream"
)

var t0 = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

// newDataset creates a dataset of org with n rows, shared with a group and a user.
func newDataset(t *testing.T, tbl store.Table, org string, n int) store.Dataset {
	t.Helper()
	ctx := t.Context()
	d := store.Dataset{ID: uuid.NewString(), OrgID: org, Name: "ds", ColumnNames: []string{"q"}, CreatedBy: "alice", CreatedAt: t0}
	rows := make([]store.NewDatasetRow, n)
	for i := range rows {
		rows[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: []any{fmt.Sprint("question ", i)}}
	}
	owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: d.ID, OrgID: org, UserID: "alice", Role: store.DatasetOwner, CreatedAt: t0}
	d, err := store.CreateDataset(ctx, tbl, d, owner, rows)
	if err != nil {
		t.Fatal(err)
	}
	err = store.ShareDataset(ctx, tbl, org, d.ID, []store.DatasetCollaborator{
		{ID: uuid.NewString(), DatasetID: d.ID, OrgID: org, GroupID: "g1", Role: store.DatasetEditor, CreatedAt: t0},
		{ID: uuid.NewString(), DatasetID: d.ID, OrgID: org, GroupID: "g2", Role: store.DatasetViewer, CreatedAt: t0},
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// partitionSize counts the items of a dataset's partition.
func partitionSize(t *testing.T, tbl store.Table, id string) int {
	t.Helper()
	items, err := store.QueryAll(t.Context(), tbl, store.Query{PK: store.DatasetKey(id).PK, Consistent: true})
	if err != nil {
		t.Fatal(err)
	}
	return len(items)
}

// deleteRecords deletes datasets as bulk deletion does and returns the stream records of the
// deletions, as the stream would report them (the META's last image).
func deleteRecords(t *testing.T, tbl store.Table, org string, ds ...store.Dataset) []stream.Record {
	t.Helper()
	var recs []stream.Record
	var ids []string
	for _, d := range ds {
		old, err := tbl.Get(t.Context(), store.DatasetKey(d.ID), true)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, stream.Record{ID: "seq-" + d.ID, Old: old})
		ids = append(ids, d.ID)
	}
	deleted, err := store.DeleteDatasets(t.Context(), tbl, org, ids)
	if err != nil || len(deleted) != len(ids) {
		t.Fatalf("deleted %v (%v), want %v", deleted, err, ids)
	}
	return recs
}

// TestHandle purges the deleted datasets of a batch, skips every other record, and does it
// again harmlessly.
func TestHandle(t *testing.T) {
	backends(t, func(t *testing.T, tbl store.Table) {
		big, small := newDataset(t, tbl, "org-a", 120), newDataset(t, tbl, "org-a", 3)
		kept, foreign := newDataset(t, tbl, "org-a", 5), newDataset(t, tbl, "org-b", 5)
		keptMeta, err := tbl.Get(t.Context(), store.DatasetKey(kept.ID), true)
		if err != nil {
			t.Fatal(err)
		}
		sizes := map[string]int{kept.ID: partitionSize(t, tbl, kept.ID), foreign.ID: partitionSize(t, tbl, foreign.ID)}
		if sizes[kept.ID] < 1+5+1+2*2 { // META, a row locator per row, the owner, two groups of two items
			t.Fatalf("a 5-row dataset has %d items", sizes[kept.ID])
		}
		recs := deleteRecords(t, tbl, "org-a", big, small)
		recs = append(recs,
			stream.Record{ID: "insert", New: keptMeta},                // a create
			stream.Record{ID: "modify", Old: keptMeta, New: keptMeta}, // an update
			stream.Record{ID: "row", Old: store.Item{"PK": "DATASET#" + kept.ID, "SK": "ROW#0000000000", "entity": "dataset_row"}},
			stream.Record{ID: "other", Old: store.Item{"PK": "USER#u", "SK": "META", "entity": "user"}},
		)
		w := purge.New(tbl, nil)
		for round := range 2 {
			if failed := w.Handle(t.Context(), recs); len(failed) != 0 {
				t.Fatalf("round %d: failed records %v", round, failed)
			}
			for _, d := range []store.Dataset{big, small} {
				if n := partitionSize(t, tbl, d.ID); n != 0 {
					t.Errorf("round %d: %d items of deleted dataset %s left", round, n, d.ID)
				}
			}
			// Nothing else changed: the datasets not deleted keep every item.
			for _, d := range []store.Dataset{kept, foreign} {
				if n := partitionSize(t, tbl, d.ID); n != sizes[d.ID] {
					t.Errorf("round %d: dataset %s of %s has %d items, want %d", round, d.ID, d.OrgID, n, sizes[d.ID])
				}
			}
		}
	})
}

// failingTable fails every Query of the partitions whose ids it holds.
type failingTable struct {
	store.Table
	fail map[string]bool
}

func (f *failingTable) Query(ctx context.Context, q store.Query) (store.Page, error) {
	if f.fail[strings.TrimPrefix(q.PK, "DATASET#")] {
		return store.Page{}, errors.New("query failed")
	}
	return f.Table.Query(ctx, q)
}

// TestHandleReportsFailures reports exactly the records whose purge failed; the retry of the
// batch finishes them.
func TestHandleReportsFailures(t *testing.T) {
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// a spans several pages of the purge's queries
	a, b, c := newDataset(t, db, "org", 700), newDataset(t, db, "org", 30), newDataset(t, db, "org", 30)
	recs := deleteRecords(t, db, "org", a, b, c)
	broken := &failingTable{Table: db, fail: map[string]bool{b.ID: true}}
	if got := purge.New(broken, nil).Handle(t.Context(), recs); !slices.Equal(got, []string{recs[1].ID}) {
		t.Fatalf("failed records = %v, want [%s]", got, recs[1].ID)
	}
	if partitionSize(t, db, a.ID) != 0 || partitionSize(t, db, c.ID) != 0 || partitionSize(t, db, b.ID) == 0 {
		t.Fatal("the records that did not fail should be purged, and only them")
	}
	if got := purge.New(db, nil).Handle(t.Context(), recs); len(got) != 0 {
		t.Fatalf("retry: failed records %v", got)
	}
	if partitionSize(t, db, b.ID) != 0 {
		t.Fatal("the retry left items of the failed dataset")
	}
}

func backends(t *testing.T, fn func(t *testing.T, tbl store.Table)) { testenv.EachTable(t, fn) }
