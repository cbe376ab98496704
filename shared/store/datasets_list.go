package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ListOrgDatasets reads every dataset of the organization (one query of GSI2, where each
// dataset's META is under ORG#<org id>, oldest first). The index is eventually consistent:
// a dataset created a moment ago may be missing; one deleted may still show (the caller
// reads the datasets it keeps through their grants, which are consistent).
func ListOrgDatasets(ctx context.Context, t Table, orgID string) ([]Dataset, error) {
	items, err := queryAllStored(ctx, t, Query{Index: IndexGSI2, PK: orgPartition(orgID), SKOp: SKPrefix, From: "DATASET#"})
	if err != nil {
		return nil, fmt.Errorf("list datasets: %w", err)
	}
	out := make([]Dataset, 0, len(items))
	for _, it := range items {
		d, err := datasetOf(it)
		if err != nil {
			return nil, err
		}
		if d.OrgID == orgID && d.Version > 0 {
			out = append(out, d)
		}
	}
	return out, nil
}

// UpdateDatasetInfo renames a dataset of the organization (name non-nil) and/or sets its
// draft flag (draft non-nil), and returns it as it is afterwards; ErrNotFound when it is
// gone. Its content and version do not change.
func UpdateDatasetInfo(ctx context.Context, t Table, orgID, id string, name *string, draft *bool, by string, at time.Time) (Dataset, error) {
	set := map[string]any{AttrUpdatedAt: timeAttr(at), "updated_by": by}
	if name != nil {
		set["name"] = *name
	}
	if draft != nil {
		set["draft"] = *draft
	}
	it, err := t.Update(ctx, Update{Key: DatasetKey(id), Set: set, Conds: []Cond{Equals(attrDatasetOrg, orgID)}})
	if errors.Is(err, ErrConditionFailed) {
		err = ErrNotFound
	}
	if err != nil {
		return Dataset{}, fmt.Errorf("update dataset %s: %w", id, err)
	}
	return datasetFrom(it)
}
