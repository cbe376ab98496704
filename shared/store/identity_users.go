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
	items, err := t.BatchGet(ctx, keys, false)
	if err != nil {
		return nil, fmt.Errorf("get users: %w", err)
	}
	out := make([]User, 0, len(items))
	for _, it := range items {
		var u User
		if err := Unmarshal(it, &u); err != nil {
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
	items, err := QueryAll(ctx, t, Query{Index: IndexGSI2, PK: orgPartition(orgID), SKOp: SKPrefix, From: "USER#"})
	if err != nil {
		return nil, fmt.Errorf("list users of org %s: %w", orgID, err)
	}
	out := make([]User, 0, len(items))
	for _, it := range items {
		var u User
		if err := Unmarshal(it, &u); err != nil {
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

// SetRefreshJTI makes jti the user's one live refresh token (a login starts a new family).
func SetRefreshJTI(ctx context.Context, t Table, userID, jti string, now time.Time) error {
	_, err := t.Update(ctx, Update{
		Key:   UserKey(userID),
		Set:   map[string]any{AttrRefreshJTI: jti, AttrUpdatedAt: timeAttr(now)},
		Conds: []Cond{Exists()},
	})
	if err != nil {
		return fmt.Errorf("set refresh token of user %s: %w", userID, err)
	}
	return nil
}

// SwapRefreshJTI replaces the live refresh token presented by next in one conditional
// write; ErrConditionFailed when presented is no longer the live one (another exchange won,
// or the family was revoked).
func SwapRefreshJTI(ctx context.Context, t Table, userID, presented, next string, now time.Time) error {
	_, err := t.Update(ctx, Update{
		Key:   UserKey(userID),
		Set:   map[string]any{AttrRefreshJTI: next, AttrUpdatedAt: timeAttr(now)},
		Conds: []Cond{Equals(AttrRefreshJTI, presented)},
	})
	if err != nil {
		return fmt.Errorf("swap refresh token of user %s: %w", userID, err)
	}
	return nil
}

// ClearRefreshJTI revokes the user's refresh token family: no refresh token works until the
// next login.
func ClearRefreshJTI(ctx context.Context, t Table, userID string, now time.Time) error {
	_, err := t.Update(ctx, Update{
		Key:    UserKey(userID),
		Set:    map[string]any{AttrUpdatedAt: timeAttr(now)},
		Remove: []string{AttrRefreshJTI},
		Conds:  []Cond{Exists()},
	})
	if err != nil {
		return fmt.Errorf("revoke refresh tokens of user %s: %w", userID, err)
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
