package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// createAPIKeyOp is the put of a new API key with the digest of its secret.
func createAPIKeyOp(k APIKey, secretHash string) (Op, error) {
	it, err := Marshal(k)
	if err != nil {
		return Op{}, err
	}
	it = itemAt(APIKeyKey(k.ID), it, AttrEntity, EntityAPIKey, AttrSecretHash, secretHash,
		AttrGSI1PK, userPartition(k.UserID), AttrGSI1SK, apiKeySortKey(k))
	return PutOp(it, NotExists()), nil
}

// CreateAPIKey writes a new API key; ErrAlreadyExists when the key id is taken.
func CreateAPIKey(ctx context.Context, t Table, k APIKey, secretHash string) error {
	op, err := createAPIKeyOp(k, secretHash)
	if err != nil {
		return err
	}
	err = t.Put(ctx, op.Item, op.Conds...)
	switch {
	case err == nil, errors.Is(err, ErrConditionFailed) && sameItem(ctx, t, op.Item):
		return nil // (a put the SDK retried after its first answer was lost: ours is there)
	case errors.Is(err, ErrConditionFailed):
		return fmt.Errorf("create api key: id %w", ErrAlreadyExists)
	default:
		return fmt.Errorf("create api key %s: %w", k.ID, err)
	}
}

// APIKeyAuth reads an API key with the digest of its secret: authentication's one round
// trip for an uncached key. The read is strongly consistent, so that a key works the moment
// its create returns and, read here, stops the moment its revocation does (shared/auth may
// trust a validated key from its per-instance cache for up to a minute more on requests).
func APIKeyAuth(ctx context.Context, t Table, id string) (APIKey, string, error) {
	it, err := t.Get(ctx, APIKeyKey(id), true)
	if err != nil {
		return APIKey{}, "", fmt.Errorf("get api key %s: %w", id, err)
	}
	var k APIKey
	if err := Unmarshal(it, &k); err != nil {
		return APIKey{}, "", err
	}
	h, _ := it[AttrSecretHash].(string)
	return k, h, nil
}

// UserAPIKeys lists the API keys of a user, oldest first (revoked and expired ones too).
func UserAPIKeys(ctx context.Context, t Table, userID string) ([]APIKey, error) {
	items, err := queryAllStored(ctx, t, Query{Index: IndexGSI1, PK: userPartition(userID), SKOp: SKPrefix, From: "APIKEY#"})
	if err != nil {
		return nil, fmt.Errorf("list api keys of user %s: %w", userID, err)
	}
	out := make([]APIKey, 0, len(items))
	for _, it := range items {
		var k APIKey
		if err := it.Decode(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// RevokeAPIKey revokes the key id of user userID, in one conditional write, and returns it;
// ErrNotFound when the key does not exist or belongs to someone else.
func RevokeAPIKey(ctx context.Context, t Table, userID, id string, now time.Time) (APIKey, error) {
	it, err := t.Update(ctx, Update{
		Key:   APIKeyKey(id),
		Set:   map[string]any{AttrRevoked: true, AttrRevokedAt: timeAttr(now), AttrUpdatedAt: timeAttr(now)},
		Conds: []Cond{Equals("user_id", userID)},
	})
	if err != nil {
		if errors.Is(err, ErrConditionFailed) {
			return APIKey{}, fmt.Errorf("revoke api key %s: %w", id, ErrNotFound)
		}
		return APIKey{}, fmt.Errorf("revoke api key %s: %w", id, err)
	}
	var k APIKey
	return k, Unmarshal(it, &k)
}

// TouchAPIKey records that the key was used at now, if its last_used_at is still prev (nil:
// never used). The condition makes concurrent instances write at most one of their touches;
// a lost race returns ErrConditionFailed, which callers ignore.
func TouchAPIKey(ctx context.Context, t Table, id string, prev *time.Time, now time.Time) error {
	cond := AttrAbsent(AttrLastUsedAt)
	if prev != nil {
		cond = Equals(AttrLastUsedAt, timeAttr(*prev))
	}
	_, err := t.Update(ctx, Update{
		Key:   APIKeyKey(id),
		Set:   map[string]any{AttrLastUsedAt: timeAttr(now)},
		Conds: []Cond{Exists(), cond},
	})
	if err != nil {
		return fmt.Errorf("touch api key %s: %w", id, err)
	}
	return nil
}

// Bootstrap creates the first organization of a table with its admin user and API key, in
// one transaction guarded by a per-table install claim; ErrAlreadyExists when the table was
// bootstrapped before (also by a concurrent call), ErrConditionFailed when the admin's
// e-mail is taken.
func Bootstrap(ctx context.Context, t Table, o Org, admin User, passwordHash string, k APIKey, secretHash string) error {
	orgOp, err := orgPut(o)
	if err != nil {
		return err
	}
	userOps, err := CreateUserOps(admin, passwordHash)
	if err != nil {
		return err
	}
	keyOp, err := createAPIKeyOp(k, secretHash)
	if err != nil {
		return err
	}
	claim := itemAt(installKey(), Item{AttrEntity: EntityInstall, "org_id": o.ID, "created_at": timeAttr(o.CreatedAt)})
	ops := append([]Op{PutOp(claim, NotExists()), orgOp, keyOp}, userOps...)
	if err := t.Transact(ctx, ops); err != nil {
		var tx *TxCanceledError
		if errors.As(err, &tx) && tx.Failed() == 0 {
			return fmt.Errorf("bootstrap: table %w", ErrAlreadyExists)
		}
		return fmt.Errorf("bootstrap: %w", err)
	}
	return nil
}
