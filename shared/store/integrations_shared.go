package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// SharedIntegrations lists the integrations of organization orgID shared with user, in the
// order of their ids. Two round trips whatever their number: the user's index entries (GSI1,
// eventually consistent: a share just made may take a moment to show), then the records,
// whose keys the entries carry; an entry written before they did costs a third, through the
// integration's pointer. An entry whose integration is gone, replaced by another of the same
// provider, or of another organization is left out.
func SharedIntegrations(ctx context.Context, t Table, orgID, user string) ([]Integration, error) {
	entries, err := queryAllStored(ctx, t, Query{Index: IndexGSI1, PK: userPartition(user), SKOp: SKPrefix, From: intSharePrefix})
	if err != nil {
		return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
	}
	shared := map[string]bool{} // the ids the entries name
	seen := map[Key]bool{}      // no key twice in one batch (DynamoDB refuses it)
	var keys []Key              // records, and the pointers of entries without a record key
	add := func(k Key) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, e := range entries {
		var c IntegrationCollaborator
		if err := e.Decode(&c); err != nil {
			return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
		}
		if c.OrgID != orgID || c.UserID != user {
			continue
		}
		shared[c.IntegrationID] = true
		if c.OwnerID != "" && c.Provider != "" {
			add(integrationKey(c.OwnerID, c.Provider))
		} else {
			add(integrationPointerKey(c.IntegrationID))
		}
	}
	var out []Integration
	for len(keys) > 0 {
		items, err := batchGetStored(ctx, t, keys, true)
		if err != nil {
			return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
		}
		keys = nil
		for _, it := range items {
			if it.Key().SK == meta { // a pointer: its record comes in the next round
				var p integrationPointer
				if err := it.Decode(&p); err != nil {
					return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
				}
				if p.OrgID == orgID {
					add(integrationKey(p.OwnerID, p.Provider))
				}
				continue
			}
			var in Integration
			if err := it.Decode(&in); err != nil {
				return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
			}
			if in.OrgID == orgID && shared[in.ID] {
				out = append(out, in)
			}
		}
	}
	slices.SortFunc(out, func(a, b Integration) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// ListIntegrationShare gives the viewer item of user on integration in its index entry and
// the key of in's record when it names no record (an item written before SharedIntegrations
// existed), so that the share is listed from then on. It is idempotent: an item that names
// its record, or no item, is left as it is.
func ListIntegrationShare(ctx context.Context, t Table, in Integration, user string) error {
	_, err := t.Update(ctx, Update{
		Key: integrationUserKey(in.ID, user),
		Set: map[string]any{AttrGSI1PK: userPartition(user), AttrGSI1SK: intSharePrefix + in.ID,
			"owner_id": in.OwnerID, "provider": in.Provider},
		Conds: []Cond{Exists(), Equals("org_id", in.OrgID), AttrAbsent("owner_id")},
	})
	if err != nil && !errors.Is(err, ErrConditionFailed) {
		return fmt.Errorf("list share of integration %s with user %s: %w", in.ID, user, err)
	}
	return nil
}
