package store

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"
)

// The lease of a writer of many rows (see the package notes on versions). A lease is two
// attributes of the dataset's META: lease_token, which the commit conditions on, and
// lease_until, after which another writer may take the dataset over. Leases run on the wall
// clock, not on the clock that stamps records, since they coordinate processes.

type datasetLeaseHold struct {
	token string
	until time.Time
}

// stopBy is when the holder stops writing: a quarter of the lease before its end, so that no
// write of an expired lease lands after another writer took over.
func (l datasetLeaseHold) stopBy() time.Time { return l.until.Add(-DatasetLeaseTTL / 4) }

func newDatasetLease() datasetLeaseHold {
	return datasetLeaseHold{token: rand.Text(), until: time.Now().Add(DatasetLeaseTTL)}
}

func (l datasetLeaseHold) set() map[string]any {
	return map[string]any{attrDatasetLeaseToken: l.token, attrDatasetLeaseUntil: timeAttr(l.until)}
}

// datasetLeaseFree returns the condition under which no other writer holds the dataset item
// it: no lease, or the same expired lease it shows (which the write then removes).
// ErrDatasetBusy when a live lease holds it.
func datasetLeaseFree(it Item) (Cond, error) {
	token, until := datasetLease(it)
	switch {
	case token == "":
		return AttrAbsent(attrDatasetLeaseToken), nil
	case time.Now().After(until):
		return Equals(attrDatasetLeaseToken, token), nil
	}
	return Cond{}, ErrDatasetBusy
}

// getDatasetItem reads a committed dataset of organization orgID, strongly consistently,
// with its item (which holds the lease).
func getDatasetItem(ctx context.Context, t Table, orgID, id string) (Dataset, Item, error) {
	it, err := t.Get(ctx, DatasetKey(id), true)
	if err != nil {
		return Dataset{}, nil, fmt.Errorf("get dataset %s: %w", id, err)
	}
	d, err := datasetFrom(it)
	if err != nil {
		return Dataset{}, nil, err
	}
	if d.OrgID != orgID || d.Version == 0 {
		return Dataset{}, nil, fmt.Errorf("get dataset %s: %w", id, ErrNotFound)
	}
	return d, it, nil
}

// datasetAttempts bounds the re-reads of a writer that lost a race on META.
const datasetAttempts = 3

// acquireDatasetLease takes the lease of a committed dataset whose version is ifVersion (any
// when 0).
func acquireDatasetLease(ctx context.Context, t Table, orgID, id string, ifVersion int64) (Dataset, datasetLeaseHold, error) {
	for range datasetAttempts {
		d, it, err := getDatasetItem(ctx, t, orgID, id)
		if err != nil {
			return Dataset{}, datasetLeaseHold{}, err
		}
		if ifVersion != 0 && d.Version != ifVersion {
			return Dataset{}, datasetLeaseHold{}, fmt.Errorf("dataset %s: %w", id, ErrDatasetVersion)
		}
		free, err := datasetLeaseFree(it)
		if err != nil {
			return Dataset{}, datasetLeaseHold{}, fmt.Errorf("dataset %s: %w", id, err)
		}
		l := newDatasetLease()
		_, err = t.Update(ctx, Update{Key: DatasetKey(id), Set: l.set(),
			Conds: []Cond{Equals(attrDatasetVersion, d.Version), free}})
		if errors.Is(err, ErrConditionFailed) {
			continue // another writer moved first: look again
		}
		if err != nil {
			return Dataset{}, datasetLeaseHold{}, fmt.Errorf("lease dataset %s: %w", id, err)
		}
		return d, l, nil
	}
	return Dataset{}, datasetLeaseHold{}, fmt.Errorf("dataset %s: %w", id, ErrDatasetBusy)
}

// commitDataset makes the rows written under lease l the next version: version and
// row_count move and the lease ends, on condition that l still holds the dataset.
func commitDataset(ctx context.Context, t Table, d Dataset, l datasetLeaseHold, added int64, by string, at time.Time) (Dataset, error) {
	it, err := t.Update(ctx, Update{
		Key: DatasetKey(d.ID),
		Set: map[string]any{attrDatasetVersion: d.Version + 1, attrDatasetRowCount: d.RowCount + added,
			attrDatasetUpdatedBy: by, AttrUpdatedAt: timeAttr(at)},
		Remove: []string{attrDatasetLeaseToken, attrDatasetLeaseUntil},
		Conds:  []Cond{Equals(attrDatasetLeaseToken, l.token)},
	})
	if err != nil {
		return Dataset{}, fmt.Errorf("commit dataset %s: %w", d.ID, err)
	}
	return datasetFrom(it)
}

// releaseDataset ends lease l without a new version (a failed write). It runs even when ctx
// is canceled, since a failed request should not block the dataset for the lease's life.
func releaseDataset(ctx context.Context, t Table, id string, l datasetLeaseHold) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, err := t.Update(ctx, Update{Key: DatasetKey(id), Remove: []string{attrDatasetLeaseToken, attrDatasetLeaseUntil},
		Conds: []Cond{Equals(attrDatasetLeaseToken, l.token)}})
	if err != nil && !errors.Is(err, ErrConditionFailed) {
		return fmt.Errorf("release dataset %s: %w", id, err)
	}
	return nil
}
