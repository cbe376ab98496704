package store

import (
	"context"
	"errors"
	"fmt"
)

// CreateGroup creates g together with the claim of its name in the organization;
// ErrAlreadyExists when the organization has a group of that name (case-insensitively).
func CreateGroup(ctx context.Context, t Table, g Group) error {
	it, err := Marshal(g)
	if err != nil {
		return err
	}
	it = itemAt(GroupKey(g.ID), it, AttrEntity, EntityGroup,
		AttrGSI2PK, orgPartition(g.OrgID), AttrGSI2SK, groupSortKey(g))
	claim := itemAt(groupNameKey(g.OrgID, g.Name), Item{AttrEntity: EntityGroupName, "group_id": g.ID})
	if err := t.Transact(ctx, []Op{PutOp(it, NotExists()), PutOp(claim, NotExists())}); err != nil {
		if errors.Is(err, ErrConditionFailed) {
			return fmt.Errorf("create group: name %w", ErrAlreadyExists)
		}
		return fmt.Errorf("create group %s: %w", g.ID, err)
	}
	return nil
}

// GetGroup reads a group of organization orgID; ErrNotFound also for another
// organization's group.
func GetGroup(ctx context.Context, t Table, orgID, id string) (Group, error) {
	var g Group
	if err := getInto(ctx, t, GroupKey(id), false, &g); err != nil {
		return Group{}, fmt.Errorf("get group %s: %w", id, err)
	}
	if g.OrgID != orgID {
		return Group{}, fmt.Errorf("get group %s: %w", id, ErrNotFound)
	}
	return g, nil
}

// ListOrgGroups lists the groups of organization orgID in name order (eventually
// consistent).
func ListOrgGroups(ctx context.Context, t Table, orgID string) ([]Group, error) {
	items, err := queryAllStored(ctx, t, Query{Index: IndexGSI2, PK: orgPartition(orgID), SKOp: SKPrefix, From: "GROUP#"})
	if err != nil {
		return nil, fmt.Errorf("list groups of org %s: %w", orgID, err)
	}
	out := make([]Group, 0, len(items))
	for _, it := range items {
		var g Group
		if err := it.Decode(&g); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// AddGroupMembers adds members to their groups all or nothing (at most MaxTransactItems);
// ErrAlreadyExists when one of the users is a member already. The caller has checked that
// the groups and users exist in the members' organization.
func AddGroupMembers(ctx context.Context, t Table, members []GroupMember) error {
	if len(members) == 0 {
		return nil
	}
	ops := make([]Op, 0, len(members))
	for _, m := range members {
		it, err := Marshal(m)
		if err != nil {
			return err
		}
		it = itemAt(GroupMemberKey(m.GroupID, m.UserID), it, AttrEntity, EntityGroupMember,
			AttrGSI1PK, userPartition(m.UserID), AttrGSI1SK, memberSortKey(m.GroupID))
		ops = append(ops, PutOp(it, NotExists()))
	}
	if err := t.Transact(ctx, ops); err != nil {
		if errors.Is(err, ErrConditionFailed) {
			return fmt.Errorf("add group members: membership %w", ErrAlreadyExists)
		}
		return fmt.Errorf("add group members: %w", err)
	}
	return nil
}

// GroupMembers lists the members of a group in user-id order (strongly consistent).
func GroupMembers(ctx context.Context, t Table, groupID string) ([]GroupMember, error) {
	k := GroupKey(groupID)
	items, err := queryAllStored(ctx, t, Query{PK: k.PK, SKOp: SKPrefix, From: "MEMBER#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("list members of group %s: %w", groupID, err)
	}
	return unmarshalMembers(items)
}

// UserMemberships lists the memberships of a user in organization orgID (one GSI query,
// eventually consistent).
func UserMemberships(ctx context.Context, t Table, orgID, userID string) ([]GroupMember, error) {
	items, err := queryAllStored(ctx, t, Query{Index: IndexGSI1, PK: userPartition(userID), SKOp: SKPrefix, From: "GROUP#"})
	if err != nil {
		return nil, fmt.Errorf("list groups of user %s: %w", userID, err)
	}
	ms, err := unmarshalMembers(items)
	if err != nil {
		return nil, err
	}
	out := ms[:0]
	for _, m := range ms {
		if m.OrgID == orgID {
			out = append(out, m)
		}
	}
	return out, nil
}

// UserGroups returns the groups a user of organization orgID belongs to, in group-id order
// (a GSI query and a batch read).
func UserGroups(ctx context.Context, t Table, orgID, userID string) ([]Group, error) {
	ms, err := UserMemberships(ctx, t, orgID, userID)
	if err != nil || len(ms) == 0 {
		return nil, err
	}
	keys := make([]Key, len(ms))
	for i, m := range ms {
		keys[i] = GroupKey(m.GroupID)
	}
	items, err := t.BatchGet(ctx, keys, false)
	if err != nil {
		return nil, fmt.Errorf("groups of user %s: %w", userID, err)
	}
	byID := make(map[string]Group, len(items))
	for _, it := range items {
		var g Group
		if err := Unmarshal(it, &g); err != nil {
			return nil, err
		}
		if g.OrgID == orgID {
			byID[g.ID] = g
		}
	}
	out := make([]Group, 0, len(byID))
	for _, m := range ms {
		if g, ok := byID[m.GroupID]; ok {
			out = append(out, g)
		}
	}
	return out, nil
}

func unmarshalMembers(items []StoredItem) ([]GroupMember, error) {
	out := make([]GroupMember, 0, len(items))
	for _, it := range items {
		var m GroupMember
		if err := it.Decode(&m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
