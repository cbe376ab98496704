package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// touchEvery is how often a key's last_used_at is written at most.
const touchEvery = time.Minute

// checkAPIKey authenticates a presented API key: from the cache when cached is true and
// this instance validated it less than the cache TTL ago, else with one read of the key and
// one of its user. The secret's digest is compared in constant time either way. A request
// may ride on the cache (a revocation reaches it within the TTL); an exchange of the key for
// tokens (POST /login/api_key) may not, or a key revoked a moment ago could still start a
// 14-day session on another instance.
func (s *Service) checkAPIKey(ctx context.Context, presented string, cached bool) (Caller, error) {
	pk, ok := parseAPIKey(presented)
	if !ok {
		return Caller{}, http401(detailBadAPIKey)
	}
	k, err := s.keyring.get(ctx)
	if err != nil {
		return Caller{}, err
	}
	digest := pk.digest(k.pepper)
	now := s.now()
	if e, ok := s.cache.get(pk.id, now); ok && cached {
		if subtle.ConstantTimeCompare(digest[:], e.digest[:]) != 1 {
			return Caller{}, http401(detailBadAPIKey)
		}
		return e.caller, nil
	}
	c, rec, err := s.loadAPIKey(ctx, pk.id, digest, now)
	if err != nil {
		return Caller{}, err
	}
	until := now.Add(s.cache.ttl)
	if rec.ExpiresAt != nil && rec.ExpiresAt.Before(until) {
		until = *rec.ExpiresAt
	}
	s.cache.put(pk.id, cachedKey{digest: digest, caller: c, until: until})
	s.touch(ctx, rec, now)
	return c, nil
}

// loadAPIKey reads the key and its user and checks them.
func (s *Service) loadAPIKey(ctx context.Context, id string, digest [sha256.Size]byte, now time.Time) (Caller, store.APIKey, error) {
	rec, stored, err := store.APIKeyAuth(ctx, s.table, id)
	if errors.Is(err, store.ErrNotFound) {
		return Caller{}, store.APIKey{}, http401(detailBadAPIKey)
	}
	if err != nil {
		return Caller{}, store.APIKey{}, err
	}
	want, ok := decodeDigest(stored)
	if !ok || subtle.ConstantTimeCompare(digest[:], want[:]) != 1 || !rec.Usable(now) {
		return Caller{}, store.APIKey{}, http401(detailBadAPIKey)
	}
	u, _, err := store.GetUser(ctx, s.table, rec.UserID, true)
	if errors.Is(err, store.ErrNotFound) {
		return Caller{}, store.APIKey{}, http401(detailBadAPIKey)
	}
	if err != nil {
		return Caller{}, store.APIKey{}, err
	}
	if u.OrgID != rec.OrgID || u.State != store.UserActive {
		return Caller{}, store.APIKey{}, http401(detailBadAPIKey)
	}
	c := callerOf(u, SchemeAPIKey)
	c.APIKeyID = rec.ID
	return c, rec, nil
}

// touch stamps last_used_at after the response, at most once a minute per key: the write
// is conditional on the stamp read, so of several instances one wins and the others skip.
// On Lambda the goroutine may be frozen with the instance and finish on its next request;
// a stamp lost with the instance is acceptable for a usage hint.
func (s *Service) touch(ctx context.Context, rec store.APIKey, now time.Time) {
	if rec.LastUsedAt != nil && now.Sub(*rec.LastUsedAt) < touchEvery {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		defer cancel()
		err := store.TouchAPIKey(ctx, s.table, rec.ID, rec.LastUsedAt, now.UTC())
		if err != nil && !errors.Is(err, store.ErrConditionFailed) {
			s.log.WarnContext(ctx, "api key last-used stamp failed", "api_key_id", rec.ID, "error", err.Error())
		}
	}()
}

// cachedKey is a key this instance validated, with the caller it authenticates.
type cachedKey struct {
	digest [sha256.Size]byte
	caller Caller
	until  time.Time
}

func (e cachedKey) expiry() time.Time { return e.until }

// CheckAPIKey authenticates a presented API key from the store, never from the
// per-instance cache: exchanging a key for a session must not outlive its revocation on
// another instance.
func (s *Service) CheckAPIKey(ctx context.Context, presented string) (Caller, error) {
	return s.checkAPIKey(ctx, presented, false)
}

// ForgetAPIKey drops a revoked key, and the sessions started with it, from this instance's
// caches, so that they stop working here at once (other instances within StalenessBound).
func (s *Service) ForgetAPIKey(id string) {
	s.cache.drop(id)
	s.sessions.dropWhere(func(e cachedCaller) bool { return e.claims.Kid == id })
}

// ForgetUser drops every credential of the user from this instance's caches (a deleted or
// deactivated user): they stop working here at once, elsewhere within StalenessBound.
func (s *Service) ForgetUser(userID string) {
	s.cache.dropWhere(func(e cachedKey) bool { return e.caller.UserID == userID })
	s.sessions.dropWhere(func(e cachedCaller) bool { return e.caller.UserID == userID })
}

// ForgetPasswordSessions drops the user's password sessions from this instance's cache (a
// changed password ends them: here at once, elsewhere within StalenessBound).
func (s *Service) ForgetPasswordSessions(userID string) {
	s.sessions.dropWhere(func(e cachedCaller) bool {
		return e.caller.UserID == userID && e.claims.Src == store.SourcePassword
	})
}
