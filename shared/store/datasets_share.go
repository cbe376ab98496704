package store

import (
	"context"
	"errors"
	"fmt"
)

// DatasetGroup is a group collaborator of a dataset with the group's name ("" when the group
// no longer exists).
type DatasetGroup struct {
	DatasetCollaborator
	GroupName string
}

// ShareDataset gives each collaborator (a user or a group) its role on a dataset of
// organization orgID, all or nothing: at most MaxDatasetUserShares users, or
// MaxDatasetGroupShares groups, per call. ErrNotFound when the dataset no longer exists;
// *DatasetShareExistsError (ErrAlreadyExists) when one of them has a role on it already.
// The caller has checked that the users and groups exist in the organization.
func ShareDataset(ctx context.Context, t Table, orgID, datasetID string, cs []DatasetCollaborator) error {
	if len(cs) == 0 {
		return nil
	}
	// The check keeps a share from outliving a dataset deleted meanwhile, whose partition
	// the purge may have swept already.
	ops := []Op{CheckOp(DatasetKey(datasetID), Equals(attrDatasetOrg, orgID))}
	owner := []int{-1} // ops[i] belongs to cs[owner[i]]
	for i, c := range cs {
		if c.DatasetID != datasetID || c.OrgID != orgID || (c.UserID == "") == (c.GroupID == "") {
			return fmt.Errorf("%w: collaborator %d must name this dataset, its organization and one user or group", ErrInvalid, i)
		}
		k := datasetUserKey(datasetID, c.UserID)
		if c.GroupID != "" {
			k = datasetGroupKey(datasetID, c.GroupID)
		}
		it, err := datasetCollaboratorItem(c, k)
		if err != nil {
			return err
		}
		ops = append(ops, PutOp(it, NotExists()))
		owner = append(owner, i)
		if c.GroupID != "" {
			entry, err := datasetCollaboratorItem(c, datasetGroupListKey(c))
			if err != nil {
				return err
			}
			ops = append(ops, PutOp(entry))
			owner = append(owner, i)
		}
	}
	err := t.Transact(ctx, ops)
	var tx *TxCanceledError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &tx) && tx.Failed() == 0:
		return fmt.Errorf("share dataset %s: %w", datasetID, ErrNotFound)
	case errors.As(err, &tx) && tx.Failed() > 0:
		return fmt.Errorf("share dataset %s: %w", datasetID, &DatasetShareExistsError{Index: owner[tx.Failed()]})
	}
	return fmt.Errorf("share dataset %s: %w", datasetID, err)
}

// DatasetGroups lists the group collaborators of a dataset of organization orgID in the
// order they were shared (then by group id), from position start, at most limit of them;
// more reports whether others follow.
func DatasetGroups(ctx context.Context, t Table, orgID, datasetID string, start, limit int) ([]DatasetGroup, bool, error) {
	items, err := QueryAll(ctx, t, Query{PK: datasetPartition(datasetID), SKOp: SKPrefix,
		From: datasetGroupListPrefix, Limit: start + limit + 1, Consistent: true})
	if err != nil {
		return nil, false, fmt.Errorf("groups of dataset %s: %w", datasetID, err)
	}
	if start >= len(items) {
		return nil, false, nil
	}
	items = items[start:]
	more := len(items) > limit
	items = items[:min(limit, len(items))]

	out := make([]DatasetGroup, 0, len(items))
	ids := make([]string, 0, len(items))
	for _, it := range items {
		c, err := datasetCollaboratorFrom(it)
		if err != nil {
			return nil, false, err
		}
		out = append(out, DatasetGroup{DatasetCollaborator: c})
		ids = append(ids, c.GroupID)
	}
	groups, err := LookupGroups(ctx, t, orgID, ids)
	if err != nil {
		return nil, false, fmt.Errorf("groups of dataset %s: %w", datasetID, err)
	}
	for i := range out {
		out[i].GroupName = groups[out[i].GroupID].Name
	}
	return out, more, nil
}

// LookupGroups reads the groups of organization orgID with the given ids (one BatchGet per
// 100), by id; absent ones and other organizations' are left out.
func LookupGroups(ctx context.Context, t Table, orgID string, ids []string) (map[string]Group, error) {
	keys := make([]Key, len(ids))
	for i, id := range ids {
		keys[i] = GroupKey(id)
	}
	items, err := t.BatchGet(ctx, keys, false)
	if err != nil {
		return nil, fmt.Errorf("get groups: %w", err)
	}
	out := make(map[string]Group, len(items))
	for _, it := range items {
		var g Group
		if err := Unmarshal(it, &g); err != nil {
			return nil, err
		}
		if g.OrgID == orgID {
			out[g.ID] = g
		}
	}
	return out, nil
}
