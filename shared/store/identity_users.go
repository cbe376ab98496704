package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// CreateOrg writes a new organization.
func CreateOrg(ctx context.Context, t Table, o Org) error {
	op, err := orgPut(o)
	if err != nil {
		return err
	}
	err = t.Put(ctx, op.Item, op.Conds...)
	if errors.Is(err, ErrConditionFailed) && sameItem(ctx, t, op.Item) {
		err = nil // (a put the SDK retried after its first answer was lost: ours is there)
	}
	if err != nil {
		return fmt.Errorf("create org %s: %w", o.ID, err)
	}
	return nil
}

// sameItem reports whether the table holds exactly item (read strongly consistently). A
// create's Put conditioned on NotExists that the SDK retried after a lost answer fails its
// condition on the item it wrote itself; a create tells its own item from another this way.
func sameItem(ctx context.Context, t Table, item Item) bool {
	got, err := t.Get(ctx, item.Key(), true)
	return err == nil && reflect.DeepEqual(got, item)
}

func orgPut(o Org) (Op, error) {
	it, err := Marshal(o)
	if err != nil {
		return Op{}, err
	}
	it = itemAt(OrgKey(o.ID), it, AttrEntity, EntityOrg,
		AttrGSI2PK, orgsPartition(), AttrGSI2SK, "ORG#"+o.ID)
	return PutOp(it, NotExists()), nil
}

// GetOrg reads an organization; ErrNotFound when absent.
func GetOrg(ctx context.Context, t Table, id string) (Org, error) {
	var o Org
	if err := getInto(ctx, t, OrgKey(id), false, &o); err != nil {
		return Org{}, fmt.Errorf("get org %s: %w", id, err)
	}
	return o, nil
}

// AnyOrg reports whether the table holds at least one organization.
func AnyOrg(ctx context.Context, t Table) (bool, error) {
	p, err := t.Query(ctx, Query{Index: IndexGSI2, PK: orgsPartition(), Limit: 1})
	if err != nil {
		return false, fmt.Errorf("any org: %w", err)
	}
	return len(p.Items) > 0 || p.Next != nil, nil
}

// CreateUserOps returns the actions that create u with the given password hash (empty for
// an invited user): the user item and the claim of its e-mail. Callers that create a user
// together with other items (an invitation while sharing) put them in one transaction; the
// transaction fails with ErrConditionFailed when the e-mail is taken.
func CreateUserOps(u User, passwordHash string) ([]Op, error) {
	u.Email = NormalizeEmail(u.Email)
	it, err := Marshal(u)
	if err != nil {
		return nil, err
	}
	it = itemAt(UserKey(u.ID), it, AttrEntity, EntityUser,
		AttrGSI2PK, orgPartition(u.OrgID), AttrGSI2SK, userSortKey(u.Email))
	if passwordHash != "" {
		it[AttrPasswordHash] = passwordHash
	}
	claim := Item{AttrEntity: EntityEmail, "user_id": u.ID, "org_id": u.OrgID}
	claim = itemAt(EmailKey(u.Email), claim)
	return []Op{PutOp(it, NotExists()), PutOp(claim, NotExists())}, nil
}

// CreateUser creates u; ErrAlreadyExists when its e-mail is taken.
func CreateUser(ctx context.Context, t Table, u User, passwordHash string) error {
	ops, err := CreateUserOps(u, passwordHash)
	if err != nil {
		return err
	}
	if err := t.Transact(ctx, ops); err != nil {
		if errors.Is(err, ErrConditionFailed) {
			return fmt.Errorf("create user: e-mail %w", ErrAlreadyExists)
		}
		return fmt.Errorf("create user %s: %w", u.ID, err)
	}
	return nil
}

// GetUser reads a user of any organization, for authentication, which learns the
// organization from the user. Handlers use OrgUser.
func GetUser(ctx context.Context, t Table, id string, consistent bool) (User, UserAuth, error) {
	it, err := t.Get(ctx, UserKey(id), consistent)
	if err != nil {
		return User{}, UserAuth{}, fmt.Errorf("get user %s: %w", id, err)
	}
	var u User
	var a UserAuth
	if err := Unmarshal(it, &u); err != nil {
		return User{}, UserAuth{}, err
	}
	if err := Unmarshal(it, &a); err != nil {
		return User{}, UserAuth{}, err
	}
	return u, a, nil
}

// OrgUser reads a user of organization orgID; ErrNotFound also for another organization's.
func OrgUser(ctx context.Context, t Table, orgID, id string) (User, error) {
	u, _, err := GetUser(ctx, t, id, false)
	if err != nil {
		return User{}, err
	}
	if u.OrgID != orgID {
		return User{}, fmt.Errorf("get user %s: %w", id, ErrNotFound)
	}
	return u, nil
}

// OrgUsers reads the users of organization orgID with the given ids, in no particular
// order; ids of absent users or of other organizations' are left out.
func OrgUsers(ctx context.Context, t Table, orgID string, ids []string) ([]User, error) {
	keys := make([]Key, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !seen[id] { // BatchGetItem refuses a key named twice
			seen[id] = true
			keys = append(keys, UserKey(id))
		}
	}
	items, err := batchGetStored(ctx, t, keys, false)
	if err != nil {
		return nil, fmt.Errorf("get users: %w", err)
	}
	out := make([]User, 0, len(items))
	for _, it := range items {
		var u User
		if err := it.Decode(&u); err != nil {
			return nil, err
		}
		if u.OrgID == orgID {
			out = append(out, u)
		}
	}
	return out, nil
}

// ListOrgUsers lists the users of organization orgID in e-mail order (one GSI query per
// page; eventually consistent).
func ListOrgUsers(ctx context.Context, t Table, orgID string) ([]User, error) {
	items, err := queryAllStored(ctx, t, Query{Index: IndexGSI2, PK: orgPartition(orgID), SKOp: SKPrefix, From: "USER#"})
	if err != nil {
		return nil, fmt.Errorf("list users of org %s: %w", orgID, err)
	}
	out := make([]User, 0, len(items))
	for _, it := range items {
		var u User
		if err := it.Decode(&u); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// UserByEmail finds a user of any organization by e-mail with two strongly consistent
// reads (the claim, then the user); ErrNotFound when nobody has the address.
func UserByEmail(ctx context.Context, t Table, email string) (User, UserAuth, error) {
	it, err := t.Get(ctx, EmailKey(email), true)
	if err != nil {
		return User{}, UserAuth{}, fmt.Errorf("user by e-mail: %w", err)
	}
	id, _ := it["user_id"].(string)
	if id == "" {
		return User{}, UserAuth{}, fmt.Errorf("user by e-mail: claim without user: %w", ErrNotFound)
	}
	return GetUser(ctx, t, id, true)
}

// OrgUserByEmail finds a user of organization orgID by e-mail; ErrNotFound also when the
// address belongs to another organization's user (it is still taken: e-mails are unique
// across organizations, so creating a user with it fails).
func OrgUserByEmail(ctx context.Context, t Table, orgID, email string) (User, error) {
	u, _, err := UserByEmail(ctx, t, email)
	if err != nil {
		return User{}, err
	}
	if u.OrgID != orgID {
		return User{}, fmt.Errorf("user by e-mail: %w", ErrNotFound)
	}
	return u, nil
}

// UserChange is an update of a user: the fields that are not nil are set.
type UserChange struct {
	FirstName, LastName, Role, State *string
}

// UpdateUser applies c to user id of organization orgID and returns the user afterwards;
// ErrNotFound when there is no such user.
func UpdateUser(ctx context.Context, t Table, orgID, id string, c UserChange, now time.Time) (User, error) {
	set := map[string]any{AttrUpdatedAt: timeAttr(now)}
	for name, v := range map[string]*string{"first_name": c.FirstName, "last_name": c.LastName, "role": c.Role, "state": c.State} {
		if v != nil {
			set[name] = *v
		}
	}
	it, err := t.Update(ctx, Update{Key: UserKey(id), Set: set, Conds: []Cond{Equals("org_id", orgID)}})
	if errors.Is(err, ErrConditionFailed) {
		err = ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("update user %s: %w", id, err)
	}
	var u User
	return u, Unmarshal(it, &u)
}

// SetPassword stores a new password hash for the user and stamps the change, which ends
// the sessions started with the old password; an invited user becomes active.
func SetPassword(ctx context.Context, t Table, userID, hash string, now time.Time) error {
	_, err := t.Update(ctx, Update{
		Key: UserKey(userID),
		Set: map[string]any{AttrPasswordHash: hash, AttrPasswordChangedAt: timeAttr(now),
			"state": UserActive, AttrUpdatedAt: timeAttr(now)},
		Conds: []Cond{Exists()},
	})
	if errors.Is(err, ErrConditionFailed) {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("set password of user %s: %w", userID, err)
	}
	return nil
}

// DeleteUser removes user id of organization orgID with its e-mail claim, in one
// transaction (the address is free again), then its group memberships and sessions, which
// are safe to delete again if a retry repeats it; ErrNotFound when there is no such user.
func DeleteUser(ctx context.Context, t Table, orgID, id string) error {
	u, err := OrgUser(ctx, t, orgID, id)
	if err != nil {
		return err
	}
	err = t.Transact(ctx, []Op{
		DeleteOp(UserKey(id), Equals("org_id", orgID)),
		DeleteOp(EmailKey(u.Email), Equals("user_id", id)),
	})
	if errors.Is(err, ErrConditionFailed) {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("delete user %s: %w", id, err)
	}
	// The memberships and the sessions go side by side: two partitions, no order between.
	sessions := make(chan error, 1)
	go func() {
		_, err := DeleteUserSessions(ctx, t, id)
		sessions <- err
	}()
	members, err := QueryAll(ctx, t, Query{Index: IndexGSI1, PK: userPartition(id), SKOp: SKPrefix, From: "GROUP#"})
	if err == nil {
		keys := make([]Key, len(members))
		for i, m := range members {
			keys[i] = m.Key()
		}
		err = t.BatchWrite(ctx, nil, keys)
	}
	if err := errors.Join(err, <-sessions); err != nil {
		return fmt.Errorf("delete user %s: memberships and sessions: %w", id, err)
	}
	return nil
}

// getInto reads the item at k into the record v.
func getInto(ctx context.Context, t Table, k Key, consistent bool, v any) error {
	it, err := t.Get(ctx, k, consistent)
	if err != nil {
		return err
	}
	return Unmarshal(it, v)
}
