package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// DeleteDatasets deletes the datasets of organization orgID with the given ids (at most
// MaxTransactItems) and returns the ids it deleted; absent ones and other organizations'
// are left alone. Only the META items go, in one transaction of conditional deletes, so the
// cost does not grow with the datasets' rows, and a repeated call deletes nothing twice. The
// rest of each dataset is removed by the purge worker when the stream reports the deletion.
func DeleteDatasets(ctx context.Context, t Table, orgID string, ids []string) ([]string, error) {
	if len(ids) > MaxTransactItems {
		return nil, fmt.Errorf("%w: %d datasets, at most %d per call", ErrInvalid, len(ids), MaxTransactItems)
	}
	pending := ids
	for range datasetAttempts + 1 {
		if len(pending) == 0 {
			return nil, nil
		}
		ops := make([]Op, len(pending))
		for i, id := range pending {
			ops[i] = DeleteOp(DatasetKey(id), Equals(attrDatasetOrg, orgID))
		}
		err := t.Transact(ctx, ops)
		if err == nil {
			return pending, nil
		}
		var tx *TxCanceledError
		if !errors.As(err, &tx) || len(tx.Reasons) != len(pending) {
			return nil, fmt.Errorf("delete datasets: %w", err)
		}
		// Drop the datasets whose condition failed (gone, or never the organization's)
		// and try the others again; a conflict with another write leaves them all.
		var next []string
		for i, reason := range tx.Reasons {
			if reason != "ConditionalCheckFailed" {
				next = append(next, pending[i])
			}
		}
		pending = next
	}
	return nil, fmt.Errorf("delete datasets: %w", ErrConflict)
}

// DeletedDatasetID recognizes the last image of a deleted dataset's META in a stream record
// and returns the dataset's id.
func DeletedDatasetID(old Item) (string, bool) {
	k := old.Key()
	id, ok := strings.CutPrefix(k.PK, datasetPartition(""))
	if !ok || k.SK != meta || old[AttrEntity] != EntityDataset || id == "" {
		return "", false
	}
	return id, true
}

// purgePage is how many items of a deleted dataset one Query reads.
const purgePage = 1000

// PurgeDataset removes every item left of a deleted dataset (rows, row ids, collaborators)
// and returns how many it removed. It refuses while the dataset's META exists, so that a
// stray record can never empty a live dataset. Running it again is harmless.
func PurgeDataset(ctx context.Context, t Table, id string) (int, error) {
	if _, err := t.Get(ctx, DatasetKey(id), true); !errors.Is(err, ErrNotFound) {
		if err == nil {
			return 0, fmt.Errorf("purge dataset %s: %w: the dataset exists", id, ErrInvalid)
		}
		return 0, fmt.Errorf("purge dataset %s: %w", id, err)
	}
	q := Query{PK: datasetPartition(id), Limit: purgePage, Consistent: true}
	n := 0
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return n, fmt.Errorf("purge dataset %s: %w", id, err)
		}
		keys := make([]Key, len(p.Items))
		for i, it := range p.Items {
			keys[i] = it.Key()
		}
		if err := datasetDeleteAll(ctx, t, keys); err != nil {
			return n, fmt.Errorf("purge dataset %s: %w", id, err)
		}
		n += len(keys)
		if p.Next == nil {
			return n, nil
		}
		q.Start = p.Next
	}
}
