package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// SharedIntegrations lists the integrations of organization orgID shared with user, in the
// order of their ids. Three round trips whatever their number: the user's index entries
// (GSI1, eventually consistent: a share just made may take a moment to show), then the
// pointers, then the records, in batches. An entry whose integration is gone, replaced by
// another of the same provider, or of another organization is left out.
func SharedIntegrations(ctx context.Context, t Table, orgID, user string) ([]Integration, error) {
	entries, err := queryAllStored(ctx, t, Query{Index: IndexGSI1, PK: userPartition(user), SKOp: SKPrefix, From: intSharePrefix})
	if err != nil {
		return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
	}
	keys := make([]Key, 0, len(entries))
	for _, e := range entries {
		var c IntegrationCollaborator
		if err := e.Decode(&c); err != nil {
			return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
		}
		if c.OrgID == orgID && c.UserID == user {
			keys = append(keys, integrationPointerKey(c.IntegrationID))
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	pointers, err := batchGetStored(ctx, t, keys, true)
	if err != nil {
		return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
	}
	want := map[Key]string{} // record key → the id the share names
	keys = keys[:0]
	for _, it := range pointers {
		var p integrationPointer
		if err := it.Decode(&p); err != nil {
			return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
		}
		if p.OrgID == orgID {
			k := integrationKey(p.OwnerID, p.Provider)
			want[k] = p.ID
			keys = append(keys, k)
		}
	}
	records, err := batchGetStored(ctx, t, keys, true)
	if err != nil {
		return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
	}
	out := make([]Integration, 0, len(records))
	for _, it := range records {
		var in Integration
		if err := it.Decode(&in); err != nil {
			return nil, fmt.Errorf("integrations shared with user %s: %w", user, err)
		}
		if in.OrgID == orgID && in.ID == want[integrationKey(in.OwnerID, in.Provider)] {
			out = append(out, in)
		}
	}
	slices.SortFunc(out, func(a, b Integration) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// ListIntegrationShare gives the viewer item of user on integration id its index entry when
// it has none (an item written before SharedIntegrations existed), so that the share is
// listed from then on. It is idempotent: an item that has its entry, or no item, is left as
// it is.
func ListIntegrationShare(ctx context.Context, t Table, orgID, id, user string) error {
	_, err := t.Update(ctx, Update{
		Key:   integrationUserKey(id, user),
		Set:   map[string]any{AttrGSI1PK: userPartition(user), AttrGSI1SK: intSharePrefix + id},
		Conds: []Cond{Exists(), Equals("org_id", orgID), AttrAbsent(AttrGSI1PK)},
	})
	if err != nil && !errors.Is(err, ErrConditionFailed) {
		return fmt.Errorf("list share of integration %s with user %s: %w", id, user, err)
	}
	return nil
}
