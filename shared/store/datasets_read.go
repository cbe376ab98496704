package store

import (
	"context"
	"fmt"
	"strings"
)

// GetDataset reads a dataset of organization orgID strongly consistently; ErrNotFound also
// for another organization's and for one whose creation has not committed.
func GetDataset(ctx context.Context, t Table, orgID, id string) (Dataset, error) {
	s, err := getStored(ctx, t, DatasetKey(id), true)
	if err != nil {
		return Dataset{}, fmt.Errorf("get dataset %s: %w", id, err)
	}
	d, err := datasetOf(s)
	if err != nil {
		return Dataset{}, err
	}
	if d.OrgID != orgID || d.Version == 0 {
		return Dataset{}, fmt.Errorf("get dataset %s: %w", id, ErrNotFound)
	}
	return d, nil
}

// DatasetAccess reads datasets of organization orgID together with the strongest role that
// user userID holds on each, directly or through one of groupIDs (the user's groups). It
// returns the datasets it found, by id; ids of absent datasets and of other organizations'
// are left out, with one BatchGet per 100 keys (strongly consistent when asked).
func DatasetAccess(ctx context.Context, t Table, orgID, userID string, groupIDs, ids []string, consistent bool) (map[string]DatasetGrant, error) {
	var keys []Key
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		keys = append(keys, DatasetKey(id), datasetUserKey(id, userID))
		for _, g := range groupIDs {
			keys = append(keys, datasetGroupKey(id, g))
		}
	}
	items, err := batchGetStored(ctx, t, keys, consistent)
	if err != nil {
		return nil, fmt.Errorf("dataset access of user %s: read dataset items: %w", userID, err)
	}
	out := make(map[string]DatasetGrant, len(ids))
	roles := make(map[string]DatasetRole, len(ids))
	for _, it := range items {
		k := it.Key()
		id := strings.TrimPrefix(k.PK, datasetPartition(""))
		if k.SK == meta {
			d, err := datasetOf(it)
			if err != nil {
				return nil, err
			}
			if d.OrgID == orgID && d.Version > 0 {
				out[id] = DatasetGrant{Dataset: d}
			}
			continue
		}
		var c DatasetCollaborator
		if err := it.Decode(&c); err != nil {
			return nil, err
		}
		if c.OrgID == orgID && c.Role.Rank() > roles[id].Rank() {
			roles[id] = c.Role
		}
	}
	for id, g := range out {
		g.Role = roles[id]
		out[id] = g
	}
	return out, nil
}

// DatasetGrantOf reads dataset id of organization orgID with the strongest role user userID
// holds on it, directly or through one of their groups (Role "" when none), strongly
// consistently. ErrNotFound when the organization has no such dataset. It is what another
// group needs to tell whether the user may see a dataset it names.
func DatasetGrantOf(ctx context.Context, t Table, orgID, userID, id string) (DatasetGrant, error) {
	ms, err := UserMemberships(ctx, t, orgID, userID)
	if err != nil {
		return DatasetGrant{}, err
	}
	groups := make([]string, len(ms))
	for i, m := range ms {
		groups[i] = m.GroupID
	}
	gs, err := DatasetAccess(ctx, t, orgID, userID, groups, []string{id}, true)
	if err != nil {
		return DatasetGrant{}, err
	}
	g, ok := gs[id]
	if !ok {
		return DatasetGrant{}, fmt.Errorf("dataset %s: %w", id, ErrNotFound)
	}
	return g, nil
}
