package store

import (
	"fmt"
	"time"
)

// Conversions between dataset records and items. Rows are converted by hand rather than
// through JSON: a page may hold a hundred thousand of them, and their values must keep the
// numbers exactly as stored (JSON would turn every integer into a float64).

func datasetItem(d Dataset) (Item, error) {
	it, err := Marshal(d)
	if err != nil {
		return nil, err
	}
	return itemAt(DatasetKey(d.ID), it, AttrEntity, EntityDataset), nil
}

func datasetFrom(it Item) (Dataset, error) {
	var d Dataset
	if err := Unmarshal(it, &d); err != nil {
		return Dataset{}, err
	}
	return d, nil
}

// datasetLease reads the lease a writer holds on a dataset item; token is "" for none.
func datasetLease(it Item) (token string, until time.Time) {
	token, _ = it[attrDatasetLeaseToken].(string)
	if s, ok := it[attrDatasetLeaseUntil].(string); ok {
		until, _ = time.Parse(time.RFC3339Nano, s)
	}
	return token, until
}

func datasetRowItem(datasetID, orgID string, r DatasetRow) Item {
	values := r.Values
	if values == nil {
		values = []any{}
	}
	return Item{
		AttrPK: datasetPartition(datasetID), AttrSK: datasetRowSK(r.Index), AttrEntity: EntityDatasetRow,
		"org_id": orgID, "row_id": r.RowID, "index": r.Index, "values": values,
		"created_in_version": r.CreatedInVersion, "created_at": timeAttr(r.CreatedAt), "created_by": r.CreatedBy,
		"updated_in_version": r.UpdatedInVersion, "updated_at": timeAttr(r.UpdatedAt), "updated_by": r.UpdatedBy,
	}
}

func datasetRowIDItem(datasetID, orgID, rowID string, index int64) Item {
	k := datasetRowIDKey(datasetID, rowID)
	return Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntityDatasetRowID, "org_id": orgID, "index": index}
}

func datasetRowFrom(it Item) (DatasetRow, error) {
	r := DatasetRow{}
	var ok [6]bool
	r.RowID, ok[0] = it["row_id"].(string)
	r.Index, ok[1] = it["index"].(int64)
	r.Values, ok[2] = it["values"].([]any)
	r.CreatedInVersion, ok[3] = it["created_in_version"].(int64)
	r.UpdatedInVersion, ok[4] = it["updated_in_version"].(int64)
	r.CreatedBy, _ = it["created_by"].(string)
	r.UpdatedBy, _ = it["updated_by"].(string)
	var err1, err2 error
	r.CreatedAt, err1 = itemTime(it, "created_at")
	r.UpdatedAt, err2 = itemTime(it, "updated_at")
	ok[5] = err1 == nil && err2 == nil
	for _, good := range ok {
		if !good {
			return DatasetRow{}, fmt.Errorf("store: malformed dataset row %s", it.Key())
		}
	}
	return r, nil
}

func itemTime(it Item, attr string) (time.Time, error) {
	s, _ := it[attr].(string)
	return time.Parse(time.RFC3339Nano, s)
}

func datasetCollaboratorItem(c DatasetCollaborator, k Key) (Item, error) {
	it, err := Marshal(c)
	if err != nil {
		return nil, err
	}
	return itemAt(k, it, AttrEntity, EntityDatasetCollaborator), nil
}

func datasetCollaboratorFrom(it Item) (DatasetCollaborator, error) {
	var c DatasetCollaborator
	if err := Unmarshal(it, &c); err != nil {
		return DatasetCollaborator{}, err
	}
	return c, nil
}

// DatasetRowSize is the size a row's values take in its item, to be checked against
// MaxDatasetRowBytes before writing.
func DatasetRowSize(values []any) int { return valueSize(values) }
