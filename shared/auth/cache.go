package auth

import (
	"sync"
	"time"
)

// StalenessBound is the longest an instance trusts a credential it validated without reading
// the store again: a revoked or expired API key, an ended session (logout, a revoked key, a
// password change, a deactivated or deleted user) and a changed role reach every instance
// within this time, and the instance that made the change at once.
const StalenessBound = 5 * time.Second

// ttlCache holds validated credentials by id until their entry's expiry. It is bounded: a
// full cache starts over, which is simpler than an LRU and costs one read per credential.
type ttlCache[V interface{ expiry() time.Time }] struct {
	ttl time.Duration // zero or negative: nothing is cached
	max int

	mu sync.Mutex
	m  map[string]V
}

func newTTLCache[V interface{ expiry() time.Time }](ttl time.Duration) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, max: 10000, m: make(map[string]V)}
}

func (c *ttlCache[V]) get(id string, now time.Time) (V, bool) {
	var zero V
	if c.ttl <= 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok || !now.Before(e.expiry()) {
		return zero, false
	}
	return e, true
}

func (c *ttlCache[V]) put(id string, e V) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[id] = e
}

func (c *ttlCache[V]) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}

// dropWhere removes every entry that gone says is gone.
func (c *ttlCache[V]) dropWhere(gone func(V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, e := range c.m {
		if gone(e) {
			delete(c.m, id)
		}
	}
}

// cachedCaller is a session this instance validated, with the caller it authenticates.
type cachedCaller struct {
	caller Caller
	claims sessionClaims // of the token validated: another token naming the session with
	org    string        // other claims is checked afresh
	until  time.Time
}

func (e cachedCaller) expiry() time.Time { return e.until }
