package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// CreateDataset creates d (version 1) with owner as its first collaborator and rows as its
// content. A small dataset is one transaction; a larger one is created at version 0 under a
// lease (invisible to readers), its rows are written in batches, and the commit makes it
// version 1. If that fails, the dataset is deleted again, and the purge worker removes what
// was written of it. It returns the dataset as stored.
func CreateDataset(ctx context.Context, t Table, d Dataset, owner DatasetCollaborator, rows []NewDatasetRow) (Dataset, error) {
	d.UpdatedBy, d.UpdatedAt = d.CreatedBy, d.CreatedAt
	ownerItem, err := datasetCollaboratorItem(owner, datasetUserKey(d.ID, owner.UserID))
	if err != nil {
		return Dataset{}, err
	}
	done := d
	done.Version, done.RowCount = 1, int64(len(rows))
	rowItems, err := datasetNewRowItems(done, rows, 0, 1, d.CreatedBy, d.CreatedAt)
	if err != nil {
		return Dataset{}, err
	}
	if fitsOneTransaction(rowItems, 2) {
		meta, err := datasetItem(done)
		if err != nil {
			return Dataset{}, err
		}
		ops := []Op{PutOp(meta, NotExists()), PutOp(ownerItem, NotExists())}
		for _, it := range rowItems {
			ops = append(ops, PutOp(it))
		}
		if err := t.Transact(ctx, ops); err != nil {
			return Dataset{}, fmt.Errorf("create dataset %s: %w", d.ID, err)
		}
		return done, nil
	}

	staged := d // version 0: not there for readers until the commit
	meta, err := datasetItem(staged)
	if err != nil {
		return Dataset{}, err
	}
	l := newDatasetLease()
	meta = meta.With(attrDatasetLeaseToken, l.token, attrDatasetLeaseUntil, timeAttr(l.until))
	if err := t.Transact(ctx, []Op{PutOp(meta, NotExists()), PutOp(ownerItem, NotExists())}); err != nil {
		return Dataset{}, fmt.Errorf("create dataset %s: %w", d.ID, err)
	}
	err = writeDatasetRows(ctx, t, l, rowItems)
	if err == nil {
		done, err = commitDataset(ctx, t, staged, l, int64(len(rows)), d.CreatedBy, d.CreatedAt)
	}
	if err != nil {
		return Dataset{}, errors.Join(err, abandonDataset(ctx, t, d.ID, l))
	}
	return done, nil
}

// AppendDatasetRows adds rows after the last row of a dataset of organization orgID as its
// next version, if its version is ifVersion (any when 0): ErrNotFound, ErrDatasetVersion,
// ErrDatasetBusy.
func AppendDatasetRows(ctx context.Context, t Table, orgID, id string, ifVersion int64, rows []NewDatasetRow, by string, at time.Time) (Dataset, error) {
	for range datasetAttempts {
		d, it, err := getDatasetItem(ctx, t, orgID, id)
		if err != nil {
			return Dataset{}, err
		}
		if ifVersion != 0 && d.Version != ifVersion {
			return Dataset{}, fmt.Errorf("append to dataset %s: %w", id, ErrDatasetVersion)
		}
		items, err := datasetNewRowItems(d, rows, d.RowCount, d.Version+1, by, at)
		if err != nil {
			return Dataset{}, err
		}
		if !fitsOneTransaction(items, 1) {
			return appendUnderLease(ctx, t, orgID, id, ifVersion, rows, by, at)
		}
		free, err := datasetLeaseFree(it)
		if err != nil {
			return Dataset{}, fmt.Errorf("append to dataset %s: %w", id, err)
		}
		ops := []Op{UpdateOp(Update{Key: DatasetKey(id),
			Set: map[string]any{attrDatasetVersion: d.Version + 1, attrDatasetRowCount: d.RowCount + int64(len(rows)),
				attrDatasetUpdatedBy: by, AttrUpdatedAt: timeAttr(at)},
			Remove: []string{attrDatasetLeaseToken, attrDatasetLeaseUntil},
			Conds:  []Cond{Equals(attrDatasetVersion, d.Version), free}})}
		for _, it := range items {
			ops = append(ops, PutOp(it))
		}
		err = t.Transact(ctx, ops)
		if errors.Is(err, ErrConditionFailed) {
			continue // another writer committed first: append after its rows
		}
		if err != nil {
			return Dataset{}, fmt.Errorf("append to dataset %s: %w", id, err)
		}
		d.Version, d.RowCount, d.UpdatedBy, d.UpdatedAt = d.Version+1, d.RowCount+int64(len(rows)), by, at
		return d, nil
	}
	return Dataset{}, fmt.Errorf("append to dataset %s: %w", id, ErrDatasetBusy)
}

// appendUnderLease is the append of more rows than one transaction holds.
func appendUnderLease(ctx context.Context, t Table, orgID, id string, ifVersion int64, rows []NewDatasetRow, by string, at time.Time) (Dataset, error) {
	d, l, err := acquireDatasetLease(ctx, t, orgID, id, ifVersion)
	if err != nil {
		return Dataset{}, err
	}
	items, err := datasetNewRowItems(d, rows, d.RowCount, d.Version+1, by, at)
	if err == nil {
		err = writeDatasetRows(ctx, t, l, items)
	}
	if err == nil {
		var done Dataset
		if done, err = commitDataset(ctx, t, d, l, int64(len(rows)), by, at); err == nil {
			return done, nil
		}
		if errors.Is(err, ErrConditionFailed) {
			// The lease was lost: to a writer that took over after it expired, or because
			// the dataset was deleted, in which case the purge may have run already and
			// the rows just written are ours to remove.
			err = errors.Join(err, removeOrphanRows(ctx, t, id, items))
		}
	}
	return Dataset{}, errors.Join(err, releaseDataset(ctx, t, id, l))
}

// writeDatasetRows writes row items under lease l, stopping when the lease is about to end.
func writeDatasetRows(ctx context.Context, t Table, l datasetLeaseHold, items []Item) error {
	ctx, cancel := context.WithDeadline(ctx, l.stopBy())
	defer cancel()
	return datasetPutAll(ctx, t, items)
}

// abandonDataset deletes a dataset whose creation failed; the stream then purges its rows.
func abandonDataset(ctx context.Context, t Table, id string, l datasetLeaseHold) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err := t.Delete(ctx, DatasetKey(id), Equals(attrDatasetLeaseToken, l.token))
	if err != nil && !errors.Is(err, ErrConditionFailed) {
		return fmt.Errorf("abandon dataset %s: %w", id, err)
	}
	return nil
}

// removeOrphanRows deletes the items of a failed append when its dataset no longer exists.
func removeOrphanRows(ctx context.Context, t Table, id string, items []Item) error {
	ctx = context.WithoutCancel(ctx)
	if _, err := t.Get(ctx, DatasetKey(id), true); !errors.Is(err, ErrNotFound) {
		return err // still there (nil): the rows are invisible and will be overwritten
	}
	keys := make([]Key, len(items))
	for i, it := range items {
		keys[i] = it.Key()
	}
	return datasetDeleteAll(ctx, t, keys)
}

// datasetNewRowItems builds the row and row-id items of rows numbered from first, created in
// version.
func datasetNewRowItems(d Dataset, rows []NewDatasetRow, first, version int64, by string, at time.Time) ([]Item, error) {
	items := make([]Item, 0, 2*len(rows))
	for i, r := range rows {
		values, err := normalizeRowValues(r.Values)
		if err != nil {
			return nil, fmt.Errorf("dataset %s row %s: %w", d.ID, r.RowID, err)
		}
		row := DatasetRow{RowID: r.RowID, Index: first + int64(i), Values: values,
			CreatedInVersion: version, CreatedAt: at, CreatedBy: by,
			UpdatedInVersion: version, UpdatedAt: at, UpdatedBy: by}
		items = append(items, datasetRowItem(d.ID, d.OrgID, row), datasetRowIDItem(d.ID, d.OrgID, r.RowID, row.Index))
	}
	return items, nil
}

func normalizeRowValues(values []any) ([]any, error) {
	n, err := Normalize(values)
	if err != nil {
		return nil, err
	}
	out := n.([]any)
	if DatasetRowSize(out) > MaxDatasetRowBytes {
		return nil, fmt.Errorf("%w: row values of %d bytes exceed %d", ErrTooLarge, DatasetRowSize(out), MaxDatasetRowBytes)
	}
	return out, nil
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
