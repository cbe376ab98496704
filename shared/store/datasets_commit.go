package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Committing a version: its segments and locators are written first (in the commit's own
// transaction when they fit, else in batches before it), then one transaction moves META
// from the version read to the next and puts the version's record and manifest. A writer
// that lost the race (ErrConditionFailed) reads again and retries; what it wrote stays
// invisible (see the package notes in datasets.go).

// versionWrite is the content of the next version and what it changed.
type versionWrite struct {
	columns  []DatasetColumn
	nextSlot int64
	manifest []SegmentRef
	segments []Item
	locators []Item
	stats    versionStats
	by       string
	at       time.Time
	// create, when not nil, makes the first version of a dataset not yet stored: META is
	// put whole (on condition that it does not exist) with these items, in the commit.
	create []Op
}

// DatasetVersion is the record of one version of a dataset's content.
type DatasetVersion struct {
	Index       int64           `json:"version_index"`
	Name        *string         `json:"name"`
	NumRows     int64           `json:"num_rows"`
	Columns     []DatasetColumn `json:"columns"`
	ColumnNames []string        `json:"column_names"`
	CreatedBy   string          `json:"created_by"`
	CreatedAt   time.Time       `json:"created_at"`
	versionStats
}

// Stats reports what the version changed: rows added, removed, edited; columns added,
// removed, renamed.
func (v DatasetVersion) Stats() (rowsAdded, rowsRemoved, rowsEdited, colsAdded, colsRemoved, colsRenamed int64) {
	s := v.versionStats
	return s.RowsAdded, s.RowsRemoved, s.RowsEdited, s.ColumnsAdded, s.ColumnsRemoved, s.ColumnsRenamed
}

func versionItem(id, orgID string, v DatasetVersion) (Item, error) {
	it, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	return itemAt(datasetVersionKey(id, v.Index), it, AttrEntity, EntityDatasetVersion, "org_id", orgID), nil
}

// commitVersion makes w the version after d's (as read), on condition that d still is at
// that version, and returns the dataset as it is afterwards.
func commitVersion(ctx context.Context, t Table, d Dataset, w versionWrite) (Dataset, error) {
	next := d
	next.Version, next.Columns, next.ColumnNames, next.NextSlot = d.Version+1, w.columns, columnNames(w.columns), w.nextSlot
	next.RowCount, next.UpdatedBy, next.UpdatedAt = 0, w.by, w.at
	for _, e := range w.manifest {
		next.RowCount += e.N
	}
	next.Manifest, next.ManifestStored = w.manifest, len(w.manifest) > inlineManifest
	if next.ManifestStored {
		next.Manifest = nil
	}
	rec := DatasetVersion{Index: next.Version, NumRows: next.RowCount, Columns: w.columns, ColumnNames: next.ColumnNames,
		CreatedBy: w.by, CreatedAt: w.at, versionStats: w.stats}
	if rec.Columns == nil {
		rec.Columns, rec.ColumnNames = []DatasetColumn{}, []string{}
	}
	ver, err := versionItem(d.ID, d.OrgID, rec)
	if err != nil {
		return Dataset{}, err
	}
	man, err := manifestItem(d.ID, d.OrgID, next.Version, w.manifest)
	if err != nil {
		return Dataset{}, err
	}
	if ItemSize(man) > MaxItemBytes {
		return Dataset{}, fmt.Errorf("%w: the dataset's manifest outgrows one item", ErrTooLarge)
	}
	meta, err := Marshal(struct {
		Version        int64           `json:"version"`
		RowCount       int64           `json:"row_count"`
		Columns        []DatasetColumn `json:"columns"`
		ColumnNames    []string        `json:"column_names"`
		NextSlot       int64           `json:"next_slot"`
		Manifest       []SegmentRef    `json:"manifest"`
		ManifestStored bool            `json:"manifest_stored"`
		UpdatedBy      string          `json:"updated_by"`
		UpdatedAt      time.Time       `json:"updated_at"`
	}{next.Version, next.RowCount, rec.Columns, rec.ColumnNames, next.NextSlot, next.Manifest, next.ManifestStored, w.by, w.at})
	if err != nil {
		return Dataset{}, err
	}
	metaOp := UpdateOp(Update{Key: DatasetKey(d.ID), Set: meta, Conds: []Cond{Equals(attrDatasetVersion, d.Version), Equals(attrDatasetOrg, d.OrgID)}})
	if w.create != nil {
		whole, err := datasetItem(next)
		if err != nil {
			return Dataset{}, err
		}
		metaOp = PutOp(whole, NotExists())
	}
	ops := append([]Op{metaOp, PutOp(ver, NotExists()), PutOp(man, NotExists())}, w.create...)
	content := append(append([]Item(nil), w.segments...), w.locators...)
	if fitsOneTransaction(content, len(ops)) {
		for _, it := range content {
			ops = append(ops, PutOp(it))
		}
	} else if err := datasetPutAll(ctx, t, content); err != nil {
		return Dataset{}, err
	}
	err = t.Transact(ctx, ops)
	var tx *TxCanceledError
	switch {
	case errors.As(err, &tx) && tx.Failed() >= 0, errors.Is(err, ErrConflict):
		return Dataset{}, fmt.Errorf("commit dataset %s: %w (%v)", d.ID, ErrConditionFailed, err)
	case err != nil:
		return Dataset{}, fmt.Errorf("commit dataset %s: %w", d.ID, err)
	}
	return next, nil
}

// fitsOneTransaction reports whether items and `others` more actions fit one transaction.
func fitsOneTransaction(items []Item, others int) bool {
	if len(items)+others > MaxTransactItems {
		return false
	}
	size := 0
	for _, it := range items {
		size += ItemSize(it)
	}
	return size <= MaxTransactBytes/2 // the other actions are small; keep a wide margin
}

// CreateDataset creates d with owner as its first collaborator and rows (values in the
// order of d.ColumnNames) as its content: version 1. META, the owner, the version's record
// and manifest are put in one transaction, with the content when it fits; a larger content
// is written before it, and stays unreachable (no META names it) if that transaction fails.
// It returns the dataset as stored.
func CreateDataset(ctx context.Context, t Table, d Dataset, owner DatasetCollaborator, rows []NewDatasetRow) (Dataset, error) {
	d.Version, d.RowCount, d.UpdatedBy, d.UpdatedAt = 0, 0, d.CreatedBy, d.CreatedAt
	d.Columns = make([]DatasetColumn, len(d.ColumnNames))
	for i, name := range d.ColumnNames {
		d.Columns[i] = DatasetColumn{Name: name, Slot: int64(i)}
	}
	d.NextSlot, d.Manifest, d.ManifestStored = int64(len(d.Columns)), []SegmentRef{}, false
	if int64(len(rows)) > MaxDatasetRows {
		return Dataset{}, fmt.Errorf("%w: %d rows, a dataset holds at most %d", ErrInvalid, len(rows), MaxDatasetRows)
	}
	r := newRope(ContentState{DatasetID: d.ID, OrgID: d.OrgID, Columns: d.Columns}, d.NextSlot)
	for i, row := range rows {
		if err := r.insert(i, DatasetEdit{Kind: EditAppendRow, RowID: row.RowID, Values: namedValues(d.ColumnNames, row.Values)}, 1, d.CreatedBy, d.CreatedAt); err != nil {
			return Dataset{}, fmt.Errorf("create dataset %s: %w", d.ID, err)
		}
	}
	r.stats.ColumnsAdded = int64(len(d.Columns))
	manifest, segments, locators := r.seal()
	ownerItem, err := datasetCollaboratorItem(owner, datasetUserKey(d.ID, owner.UserID))
	if err != nil {
		return Dataset{}, err
	}
	done, err := commitVersion(ctx, t, d, versionWrite{columns: d.Columns, nextSlot: d.NextSlot, manifest: manifest,
		segments: segments, locators: locators, stats: r.stats, by: d.CreatedBy, at: d.CreatedAt,
		create: []Op{PutOp(ownerItem, NotExists())}})
	if err != nil {
		return Dataset{}, fmt.Errorf("create dataset %s: %w", d.ID, err)
	}
	return done, nil
}
