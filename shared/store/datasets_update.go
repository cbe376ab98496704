package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// UpdateDatasetRows changes values of up to MaxDatasetRowEdits rows of a dataset of
// organization orgID, found by row id, as its next version: the rows' updated_in_version,
// updated_at and updated_by move, and everything commits in one transaction with the
// dataset. Errors: ErrNotFound (the dataset), *DatasetRowsNotFoundError (rows it lacks),
// ErrDatasetVersion when its version is not ifVersion (any when 0), ErrDatasetBusy, and
// ErrTooLarge when the rows together outgrow one transaction.
func UpdateDatasetRows(ctx context.Context, t Table, orgID, id string, ifVersion int64, edits []DatasetRowEdit, by string, at time.Time) (Dataset, error) {
	if len(edits) == 0 || len(edits) > MaxDatasetRowEdits {
		return Dataset{}, fmt.Errorf("%w: %d row edits, want 1 to %d", ErrInvalid, len(edits), MaxDatasetRowEdits)
	}
	seen := make(map[string]bool, len(edits))
	for _, e := range edits {
		if seen[e.RowID] {
			return Dataset{}, fmt.Errorf("%w: row %s edited twice", ErrInvalid, e.RowID)
		}
		seen[e.RowID] = true
	}
	for range datasetAttempts {
		d, it, err := getDatasetItem(ctx, t, orgID, id)
		if err != nil {
			return Dataset{}, err
		}
		if ifVersion != 0 && d.Version != ifVersion {
			return Dataset{}, fmt.Errorf("update dataset %s: %w", id, ErrDatasetVersion)
		}
		free, err := datasetLeaseFree(it)
		if err != nil {
			return Dataset{}, fmt.Errorf("update dataset %s: %w", id, err)
		}
		rows, err := datasetRowsByID(ctx, t, d, edits)
		if err != nil {
			return Dataset{}, err
		}
		size := 0
		ops := []Op{UpdateOp(Update{Key: DatasetKey(id),
			Set:    map[string]any{attrDatasetVersion: d.Version + 1, attrDatasetUpdatedBy: by, AttrUpdatedAt: timeAttr(at)},
			Remove: []string{attrDatasetLeaseToken, attrDatasetLeaseUntil},
			Conds:  []Cond{Equals(attrDatasetVersion, d.Version), free}})}
		for i, e := range edits {
			row := rows[i]
			values := append([]any(nil), row.Values...)
			for col, v := range e.Values {
				for len(values) <= col {
					values = append(values, nil)
				}
				values[col] = v
			}
			if row.Values, err = normalizeRowValues(values); err != nil {
				return Dataset{}, fmt.Errorf("dataset %s row %s: %w", id, e.RowID, err)
			}
			row.UpdatedInVersion, row.UpdatedAt, row.UpdatedBy = d.Version+1, at, by
			it := datasetRowItem(id, d.OrgID, row)
			size += ItemSize(it)
			ops = append(ops, PutOp(it))
		}
		if size > MaxTransactBytes*3/4 { // whole rows are rewritten, and a transaction holds 4 MB
			return Dataset{}, fmt.Errorf("update dataset %s: %w: the edited rows take %d bytes together", id, ErrTooLarge, size)
		}
		err = t.Transact(ctx, ops)
		if errors.Is(err, ErrConditionFailed) {
			continue // another writer committed first: read again
		}
		if err != nil {
			return Dataset{}, fmt.Errorf("update dataset %s: %w", id, err)
		}
		d.Version, d.UpdatedBy, d.UpdatedAt = d.Version+1, by, at
		return d, nil
	}
	return Dataset{}, fmt.Errorf("update dataset %s: %w", id, ErrDatasetBusy)
}

// datasetRowsByID reads the committed rows the edits name, in the edits' order, strongly
// consistently: the update rewrites whole rows, so it must start from their latest values.
func datasetRowsByID(ctx context.Context, t Table, d Dataset, edits []DatasetRowEdit) ([]DatasetRow, error) {
	keys := make([]Key, len(edits))
	for i, e := range edits {
		keys[i] = datasetRowIDKey(d.ID, e.RowID)
	}
	ids, err := datasetGetAll(ctx, t, keys, true)
	if err != nil {
		return nil, err
	}
	index := make(map[string]int64, len(ids))
	for _, it := range ids {
		if n, ok := it["index"].(int64); ok && n < d.RowCount {
			index[it.Key().SK] = n
		}
	}
	var rowKeys []Key
	for _, k := range keys {
		if n, ok := index[k.SK]; ok {
			rowKeys = append(rowKeys, datasetRowKey(d.ID, n))
		}
	}
	items, err := datasetGetAll(ctx, t, rowKeys, true)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]DatasetRow, len(items))
	for _, it := range items {
		r, err := datasetRowFrom(it)
		if err != nil {
			return nil, err
		}
		byID[r.RowID] = r
	}
	// A row-id item can outlive its row: one of a failed append points at an index that a
	// later append filled with another row. Only a row that carries the id is that row.
	out := make([]DatasetRow, len(edits))
	var missing []string
	for i, e := range edits {
		r, ok := byID[e.RowID]
		if !ok || r.Index >= d.RowCount {
			missing = append(missing, e.RowID)
			continue
		}
		out[i] = r
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("update dataset %s: %w", d.ID, &DatasetRowsNotFoundError{RowIDs: missing})
	}
	return out, nil
}
