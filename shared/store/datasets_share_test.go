package store_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

// TestDatasetRowsRanges reads ranges of a dataset larger than one transaction (written under
// a lease): each yields exactly the committed rows of the range in index order.
func TestDatasetRowsRanges(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		d := newTestDataset(t, tbl, "org-r", "alice", 250)
		if d.Version != 1 || d.RowCount != 250 {
			t.Fatalf("created %+v", d)
		}
		tests := []struct {
			start, end int64
			first, n   int64
		}{
			{0, 100, 0, 100},
			{100, 200, 100, 100},
			{200, 300, 200, 50},
			{249, 250, 249, 1},
			{250, 350, 0, 0},
			{1000, 1100, 0, 0},
			{10, 10, 0, 0},
		}
		for _, tt := range tests {
			rows := readRows(t, tbl, d, tt.start, tt.end)
			if int64(len(rows)) != tt.n {
				t.Errorf("[%d, %d): %d rows, want %d", tt.start, tt.end, len(rows), tt.n)
				continue
			}
			for i, r := range rows {
				if r.Index != tt.first+int64(i) || r.Values[0] != r.Index {
					t.Errorf("[%d, %d): row %d has index %d, values %v", tt.start, tt.end, i, r.Index, r.Values)
					break
				}
			}
		}
		// A reader of an older snapshot of the dataset never sees rows beyond its count.
		old := d
		if _, err := store.AppendDatasetRows(t.Context(), tbl, "org-r", d.ID, 0, testRows(250, 10), "bob", datasetT0); err != nil {
			t.Fatal(err)
		}
		if rows := readRows(t, tbl, old, 240, 1000); len(rows) != 10 {
			t.Errorf("reading with the old count gave %d rows, want 10", len(rows))
		}
	})
}

func shareWith(d store.Dataset, at time.Time, role store.DatasetRole, user, group string) store.DatasetCollaborator {
	return store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: d.ID, OrgID: d.OrgID, UserID: user,
		GroupID: group, Role: role, CreatedBy: d.CreatedBy, CreatedAt: at}
}

// TestDatasetSharing shares a dataset with users and groups and reads the roles back.
func TestDatasetSharing(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		d := newTestDataset(t, tbl, "org-s", "alice", 1)
		foreign := newTestDataset(t, tbl, "org-x", "xavier", 1)
		var groups []store.Group
		for _, name := range []string{"g-late", "g-b", "g-a"} {
			g := store.Group{ID: uuid.NewString(), OrgID: "org-s", Name: name, Visibility: "public", CreatedAt: datasetT0}
			if err := store.CreateGroup(ctx, tbl, g); err != nil {
				t.Fatal(err)
			}
			groups = append(groups, g)
		}
		t1, t2 := datasetT0.Add(time.Second), datasetT0.Add(2*time.Second)
		if err := store.ShareDataset(ctx, tbl, "org-s", d.ID, []store.DatasetCollaborator{
			shareWith(d, t2, store.DatasetEditor, "", groups[0].ID),
			shareWith(d, t1, store.DatasetViewer, "", groups[1].ID),
			shareWith(d, t1, store.DatasetAnnotator, "", groups[2].ID),
		}); err != nil {
			t.Fatal(err)
		}
		if err := store.ShareDataset(ctx, tbl, "org-s", d.ID, []store.DatasetCollaborator{
			shareWith(d, t1, store.DatasetViewer, "bob", ""),
		}); err != nil {
			t.Fatal(err)
		}

		err := store.ShareDataset(ctx, tbl, "org-s", d.ID, []store.DatasetCollaborator{
			shareWith(d, t2, store.DatasetViewer, "carol", ""),
			shareWith(d, t2, store.DatasetViewer, "bob", ""),
		})
		var exists *store.DatasetShareExistsError
		if !errors.As(err, &exists) || exists.Index != 1 {
			t.Errorf("sharing with bob again: %v, want the second collaborator named", err)
		}
		if err := store.ShareDataset(ctx, tbl, "org-s", uuid.NewString(), nil); err != nil {
			t.Errorf("sharing nothing: %v", err)
		}
		gone := store.Dataset{ID: uuid.NewString(), OrgID: "org-s"}
		if err := store.ShareDataset(ctx, tbl, "org-s", gone.ID, []store.DatasetCollaborator{shareWith(gone, t1, store.DatasetViewer, "bob", "")}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("sharing an unknown dataset: %v", err)
		}

		// Groups in sharing order, then by group id.
		wantOrder := []string{groups[1].ID, groups[2].ID}
		slices.Sort(wantOrder)
		wantOrder = append(wantOrder, groups[0].ID)
		page := func(start, limit int) ([]string, bool) {
			gs, more, err := store.DatasetGroups(ctx, tbl, "org-s", d.ID, start, limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, g := range gs {
				ids = append(ids, g.GroupID)
				if want := map[string]string{groups[0].ID: "g-late", groups[1].ID: "g-b", groups[2].ID: "g-a"}[g.GroupID]; g.GroupName != want {
					t.Errorf("group %s named %q, want %q", g.GroupID, g.GroupName, want)
				}
			}
			return ids, more
		}
		pages := []struct {
			start, limit int
			want         []string
			more         bool
		}{
			{0, 100, wantOrder, false},
			{0, 2, wantOrder[:2], true},
			{1, 1, wantOrder[1:2], true},
			{2, 1, wantOrder[2:], false},
			{3, 5, nil, false},
		}
		for _, p := range pages {
			if got, more := page(p.start, p.limit); !slices.Equal(got, p.want) || more != p.more {
				t.Errorf("groups [%d +%d] = %v more %v, want %v more %v", p.start, p.limit, got, more, p.want, p.more)
			}
		}

		// Access: the strongest role, direct or through groups; nothing of other orgs.
		access := []struct {
			name   string
			user   string
			groups []string
			want   map[string]store.DatasetRole
		}{
			{"owner", "alice", nil, map[string]store.DatasetRole{d.ID: store.DatasetOwner}},
			{"direct viewer", "bob", nil, map[string]store.DatasetRole{d.ID: store.DatasetViewer}},
			{"viewer and editor group", "bob", []string{groups[1].ID, groups[0].ID}, map[string]store.DatasetRole{d.ID: store.DatasetEditor}},
			{"annotator group", "dave", []string{groups[2].ID}, map[string]store.DatasetRole{d.ID: store.DatasetAnnotator}},
			{"no role", "erin", nil, map[string]store.DatasetRole{d.ID: ""}},
		}
		for _, consistent := range []bool{true, false} {
			for _, a := range access {
				got, err := store.DatasetAccess(ctx, tbl, "org-s", a.user, a.groups, []string{d.ID, foreign.ID, uuid.NewString(), d.ID}, consistent)
				if err != nil {
					t.Fatal(err)
				}
				roles := map[string]store.DatasetRole{}
				for id, g := range got {
					roles[id] = g.Role
					if g.Dataset.ID != id || g.Dataset.OrgID != "org-s" {
						t.Errorf("%s: grant of %s holds dataset %+v", a.name, id, g.Dataset)
					}
				}
				if !mapsEqual(roles, a.want) {
					t.Errorf("%s (consistent %v): roles %v, want %v", a.name, consistent, roles, a.want)
				}
			}
		}
	})
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestDeleteAndPurgeDatasets deletes a mix of datasets and purges what is left of them.
func TestDeleteAndPurgeDatasets(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		mine := newTestDataset(t, tbl, "org-d", "alice", 120)
		small := newTestDataset(t, tbl, "org-d", "alice", 2)
		kept := newTestDataset(t, tbl, "org-d", "alice", 3)
		foreign := newTestDataset(t, tbl, "org-x", "xavier", 3)
		if err := store.ShareDataset(ctx, tbl, "org-d", mine.ID, []store.DatasetCollaborator{
			shareWith(mine, datasetT0, store.DatasetViewer, "", "g1"), shareWith(mine, datasetT0, store.DatasetEditor, "bob", ""),
		}); err != nil {
			t.Fatal(err)
		}
		unknown := uuid.NewString()
		deleted, err := store.DeleteDatasets(ctx, tbl, "org-d", []string{mine.ID, foreign.ID, unknown, small.ID})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Sort(deleted); !slices.Equal(deleted, sorted(mine.ID, small.ID)) {
			t.Fatalf("deleted %v, want %v", deleted, sorted(mine.ID, small.ID))
		}
		if again, err := store.DeleteDatasets(ctx, tbl, "org-d", []string{mine.ID, small.ID}); err != nil || len(again) != 0 {
			t.Fatalf("deleting again: %v, %v; want nothing deleted", again, err)
		}
		for _, d := range []store.Dataset{kept, foreign} {
			if _, err := store.GetDataset(ctx, tbl, d.OrgID, d.ID); err != nil {
				t.Errorf("dataset %s of %s was touched: %v", d.Name, d.OrgID, err)
			}
		}

		tests := []struct {
			name string
			id   string
			want int
			err  error
		}{
			// the version, its manifest, one segment, the row locators, then owner, group (two items), user
			{"deleted dataset", mine.ID, 3 + 120 + 4, nil},
			{"again", mine.ID, 0, nil},
			{"small deleted dataset", small.ID, 3 + 2 + 1, nil},
			{"live dataset", kept.ID, 0, store.ErrInvalid},
			{"unknown", unknown, 0, nil},
		}
		for _, tt := range tests {
			n, err := store.PurgeDataset(ctx, tbl, tt.id)
			if n != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("%s: purged %d (%v), want %d (%v)", tt.name, n, err, tt.want, tt.err)
			}
		}
		left, err := store.QueryAll(ctx, tbl, store.Query{PK: store.DatasetKey(mine.ID).PK, Consistent: true})
		if err != nil || len(left) != 0 {
			t.Errorf("after the purge the dataset's partition holds %d items (%v)", len(left), err)
		}
		if rows := readRows(t, tbl, kept, 0, 10); len(rows) != 3 {
			t.Errorf("the live dataset has %d rows, want 3", len(rows))
		}
	})
}

func sorted(s ...string) []string {
	slices.Sort(s)
	return s
}

// TestDeletedDatasetID recognizes only a dataset's META image.
func TestDeletedDatasetID(t *testing.T) {
	tests := []struct {
		name string
		old  store.Item
		id   string
		ok   bool
	}{
		{"dataset", store.Item{"PK": "DATASET#d1", "SK": "META", "entity": "dataset"}, "d1", true},
		{"row", store.Item{"PK": "DATASET#d1", "SK": "ROW#0000000001", "entity": "dataset_row"}, "", false},
		{"other entity", store.Item{"PK": "DATASET#d1", "SK": "META", "entity": "project"}, "", false},
		{"other partition", store.Item{"PK": "PROJECT#p1", "SK": "META", "entity": "dataset"}, "", false},
		{"no id", store.Item{"PK": "DATASET#", "SK": "META", "entity": "dataset"}, "", false},
		{"nil", nil, "", false},
	}
	for _, tt := range tests {
		if id, ok := store.DeletedDatasetID(tt.old); id != tt.id || ok != tt.ok {
			t.Errorf("%s: DeletedDatasetID = %q, %v; want %q, %v", tt.name, id, ok, tt.id, tt.ok)
		}
	}
}

// TestDeleteHundredDatasets deletes the most datasets one call takes, in one transaction,
// and refuses one more before any round trip.
//
// One dataset is created through CreateDataset; the other 99 are copies of its META item
// (all DeleteDatasets reads or deletes), batch-written: a hundred CreateDataset
// transactions cost moto two minutes and prove nothing more here.
func TestDeleteHundredDatasets(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		first := newTestDataset(t, tbl, "org-h", "alice", 0).ID
		meta, err := tbl.Get(ctx, store.DatasetKey(first), true)
		if err != nil {
			t.Fatal(err)
		}
		ids, keys := []string{first}, []store.Key{store.DatasetKey(first)}
		var copies []store.Item
		for len(ids) < store.MaxTransactItems {
			id := uuid.NewString()
			copies = append(copies, withDatasetID(meta, first, id))
			ids, keys = append(ids, id), append(keys, store.DatasetKey(id))
		}
		if err := tbl.BatchWrite(ctx, copies, nil); err != nil {
			t.Fatal(err)
		}
		counted := storecount.New(tbl)
		deleted, err := store.DeleteDatasets(ctx, counted, "org-h", ids)
		if err != nil || len(deleted) != len(ids) {
			t.Fatalf("deleted %d of %d: %v", len(deleted), len(ids), err)
		}
		if c := counted.Snapshot(); c.Calls["Transact"] != 1 || c.Total != 1 {
			t.Errorf("deleting %d datasets: %s; want one transaction", len(ids), c)
		}
		if left, err := tbl.BatchGet(ctx, keys, true); err != nil || len(left) != 0 {
			t.Errorf("after the delete %d of %d datasets are left: %v", len(left), len(keys), err)
		}
		counted.Reset()
		if _, err := store.DeleteDatasets(t.Context(), counted, "org-h", append(ids, "one-more")); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("101 datasets: %v, want ErrInvalid", err)
		}
		if c := counted.Snapshot(); c.Total != 0 {
			t.Errorf("101 datasets: %s; want no call", c)
		}
	})
}

// withDatasetID is a copy of a dataset's META item (of dataset from) as the META of dataset
// to: every string naming from (keys, id, index keys) names to instead.
func withDatasetID(meta store.Item, from, to string) store.Item {
	out := make(store.Item, len(meta))
	for k, v := range meta {
		if s, ok := v.(string); ok {
			v = strings.ReplaceAll(s, from, to)
		}
		out[k] = v
	}
	return out
}
