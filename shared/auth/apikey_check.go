package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"sync"
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
	return callerOf(u, SchemeAPIKey), rec, nil
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

// keyCache holds keys validated in the last TTL, by key id.
type keyCache struct {
	ttl time.Duration
	max int

	mu sync.Mutex
	m  map[string]cachedKey
}

type cachedKey struct {
	digest [sha256.Size]byte
	caller Caller
	until  time.Time
}

func newKeyCache(ttl time.Duration) *keyCache {
	return &keyCache{ttl: ttl, max: 10000, m: make(map[string]cachedKey)}
}

func (c *keyCache) get(id string, now time.Time) (cachedKey, bool) {
	if c.ttl <= 0 {
		return cachedKey{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok || !now.Before(e.until) {
		return cachedKey{}, false
	}
	return e, true
}

func (c *keyCache) put(id string, e cachedKey) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		// Rare (ten thousand keys in a minute on one instance): starting over is simpler
		// than an LRU and costs one read per key.
		clear(c.m)
	}
	c.m[id] = e
}

func (c *keyCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}

// CheckAPIKey authenticates a presented API key from the store, never from the
// per-instance cache: exchanging a key for a session must not outlive its revocation on
// another instance.
func (s *Service) CheckAPIKey(ctx context.Context, presented string) (Caller, error) {
	return s.checkAPIKey(ctx, presented, false)
}

// ForgetAPIKey drops a revoked key from this instance's cache, so that it stops working
// here at once (other instances within MaxAPIKeyCacheTTL).
func (s *Service) ForgetAPIKey(id string) { s.cache.drop(id) }
