package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sessions: a session is one refresh-token family, started by a login (with a password or an
// API key) and carried forward by every refresh exchange. It records what it was derived
// from, so that ending that ends the session: a revoked or expired API key ends the
// sessions started with it, a password change the sessions started with the old password,
// a deleted or deactivated user all of theirs; logout deletes one session, logout
// everywhere all of a user's.
//
//	session   USER#<user>   SESSION#<session id>   refresh_jti: the one live refresh token;
//	                                               expires_at: TTL, the refresh token's expiry
//
// A user may hold any number of sessions (one per device or client process).

// EntitySession names the session items.
const EntitySession = "session"

// Session sources: what a session was derived from.
const (
	SourcePassword = "password"
	SourceAPIKey   = "api_key"
)

// Session is one refresh-token family without its live token id.
type Session struct {
	ID        string    `json:"id"`
	UserID    string    `json:"user_id"`
	OrgID     string    `json:"org_id"`
	Source    string    `json:"source"`               // SourcePassword or SourceAPIKey
	APIKeyID  string    `json:"api_key_id,omitempty"` // the key a SourceAPIKey session was started with
	CreatedAt time.Time `json:"created_at"`
}

// UserSessionKey is the key of session id of user userID.
func UserSessionKey(userID, id string) Key {
	return Key{PK: userPartition(userID), SK: "SESSION#" + id}
}

// CreateSession stores a new session whose live refresh token is jti, until expires.
func CreateSession(ctx context.Context, t Table, s Session, jti string, expires time.Time) error {
	it, err := Marshal(s)
	if err != nil {
		return err
	}
	it = itemAt(UserSessionKey(s.UserID, s.ID), it, AttrEntity, EntitySession, AttrRefreshJTI, jti,
		AttrExpiresAt, expires.Unix())
	err = t.Put(ctx, it, NotExists())
	if errors.Is(err, ErrConditionFailed) && sameItem(ctx, t, it) {
		err = nil // (a put the SDK retried after its first answer was lost: ours is there)
	}
	if err != nil {
		return fmt.Errorf("create session %s of user %s: %w", s.ID, s.UserID, err)
	}
	return nil
}

// SessionState is what deciding whether a session is still valid needs: the user with
// their credential state, the session with its live refresh token id, and, for a session
// started with an API key, that key. Absent records are nil.
type SessionState struct {
	User       *User
	UserAuth   UserAuth
	Session    *Session
	RefreshJTI string
	Key        *APIKey
}

// ReadSessionState reads the user, the session and (when apiKeyID is not empty) the API key
// in one batch; consistent reads see a write made a moment ago (the refresh exchange).
func ReadSessionState(ctx context.Context, t Table, userID, sessionID, apiKeyID string, consistent bool) (SessionState, error) {
	keys := []Key{UserKey(userID), UserSessionKey(userID, sessionID)}
	if apiKeyID != "" {
		keys = append(keys, APIKeyKey(apiKeyID))
	}
	items, err := t.BatchGet(ctx, keys, consistent)
	if err != nil {
		return SessionState{}, fmt.Errorf("read session %s of user %s: %w", sessionID, userID, err)
	}
	var st SessionState
	for _, it := range items {
		switch it.Key() {
		case keys[0]:
			var u User
			if err := Unmarshal(it, &u); err != nil {
				return SessionState{}, err
			}
			if err := Unmarshal(it, &st.UserAuth); err != nil {
				return SessionState{}, err
			}
			st.User = &u
		case keys[1]:
			var s Session
			if err := Unmarshal(it, &s); err != nil {
				return SessionState{}, err
			}
			st.Session = &s
			st.RefreshJTI, _ = it[AttrRefreshJTI].(string)
		default:
			var k APIKey
			if err := Unmarshal(it, &k); err != nil {
				return SessionState{}, err
			}
			st.Key = &k
		}
	}
	return st, nil
}

// Valid reports whether the session is still valid at now, and if not, why (for logs).
// It holds when the user exists, is active and of the session's organization; when the
// session exists; and, by its source, when its API key is still usable, or when the user's
// password has not changed since the session started.
func (st SessionState) Valid(now time.Time) (bool, string) {
	switch {
	case st.User == nil:
		return false, "user deleted"
	case st.User.State != UserActive:
		return false, "user not active"
	case st.Session == nil:
		return false, "session ended"
	case st.Session.OrgID != st.User.OrgID:
		return false, "organization changed"
	}
	switch st.Session.Source {
	case SourceAPIKey:
		if st.Key == nil || st.Key.ID != st.Session.APIKeyID || st.Key.UserID != st.User.ID || !st.Key.Usable(now) {
			return false, "api key revoked or expired"
		}
	case SourcePassword:
		if pc := st.UserAuth.PasswordChangedAt; pc != nil && st.Session.CreatedAt.Before(*pc) {
			return false, "password changed"
		}
	default:
		return false, "unknown source"
	}
	return true, ""
}

// SwapSessionJTI replaces the session's live refresh token presented by next, until expires,
// in one conditional write; ErrConditionFailed when presented is no longer the live one
// (another exchange won, or the session ended).
func SwapSessionJTI(ctx context.Context, t Table, userID, sessionID, presented, next string, expires time.Time) error {
	_, err := t.Update(ctx, Update{
		Key:   UserSessionKey(userID, sessionID),
		Set:   map[string]any{AttrRefreshJTI: next, AttrExpiresAt: expires.Unix()},
		Conds: []Cond{Equals(AttrRefreshJTI, presented)},
	})
	if err != nil {
		return fmt.Errorf("swap refresh token of session %s: %w", sessionID, err)
	}
	return nil
}

// DeleteSession ends one session (absent is not an error).
func DeleteSession(ctx context.Context, t Table, userID, sessionID string) error {
	if err := t.Delete(ctx, UserSessionKey(userID, sessionID)); err != nil {
		return fmt.Errorf("delete session %s of user %s: %w", sessionID, userID, err)
	}
	return nil
}

// DeleteUserSessions ends every session of the user and returns their ids.
func DeleteUserSessions(ctx context.Context, t Table, userID string) ([]string, error) {
	items, err := QueryAll(ctx, t, Query{PK: userPartition(userID), SKOp: SKPrefix, From: "SESSION#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("list sessions of user %s: %w", userID, err)
	}
	keys := make([]Key, len(items))
	ids := make([]string, len(items))
	for i, it := range items {
		keys[i] = it.Key()
		ids[i], _ = it["id"].(string)
	}
	if err := t.BatchWrite(ctx, nil, keys); err != nil {
		return nil, fmt.Errorf("delete sessions of user %s: %w", userID, err)
	}
	return ids, nil
}
