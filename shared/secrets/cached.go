package secrets

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// maxCacheEntries bounds the memory a long-lived Lambda instance spends on secrets it read
// once (integration credentials of many users); the value is the one of
// aws-secretsmanager-caching-go.
const maxCacheEntries = 1024

// errGetPanicked is what callers sharing a Get see when the call panicked in another goroutine.
var errGetPanicked = errors.New("secrets: get panicked")

// CacheOption configures Cached.
type CacheOption func(*cache)

// WithClock makes the cache read the time from now instead of time.Now.
func WithClock(now func() time.Time) CacheOption {
	return func(c *cache) { c.now = now }
}

// Cached returns a Store that keeps the values Get returns for ttl in process memory, so a
// warm Lambda instance reads a secret from Secrets Manager once per ttl, not per request.
//
// Concurrent Gets of one ref share one call to store. Put and Delete through the returned
// Store drop the ref's entry; writes by other processes show after at most ttl. Errors
// (ErrNotFound included) are not cached. With ttl <= 0 nothing is cached but concurrent
// Gets are still shared. The returned Store is safe for concurrent use.
func Cached(store Store, ttl time.Duration, opts ...CacheOption) Store {
	c := &cache{
		store:   store,
		ttl:     ttl,
		now:     time.Now,
		entries: make(map[string]cacheEntry),
		calls:   make(map[string]*call),
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

type cache struct {
	store Store
	ttl   time.Duration
	now   func() time.Time

	mu      sync.Mutex
	entries map[string]cacheEntry
	calls   map[string]*call // Gets under way; a call removed from here no longer fills the cache
}

type cacheEntry struct {
	value   Value
	expires time.Time
}

// call is one underlying Get shared by every caller that asked for its ref meanwhile.
// value and err are written before done is closed and only read after.
type call struct {
	done  chan struct{}
	value Value
	err   error
}

func (c *cache) Get(ctx context.Context, ref string) ([]byte, error) {
	for {
		c.mu.Lock()
		if e, ok := c.entries[ref]; ok {
			if c.now().Before(e.expires) {
				c.mu.Unlock()
				return e.value.Reveal(), nil
			}
			delete(c.entries, ref)
		}
		cl, ok := c.calls[ref]
		if !ok {
			cl = &call{done: make(chan struct{})}
			c.calls[ref] = cl
			c.mu.Unlock()
			c.fetch(ctx, ref, cl)
			return cl.value.Reveal(), cl.err
		}
		c.mu.Unlock()

		select {
		case <-cl.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("secrets: get %q: %w", ref, context.Cause(ctx))
		}
		// A call that the leader's context ended says nothing about the secret: while ours
		// is alive, ask again (and lead the next call if nobody else does).
		if isContextErr(cl.err) && ctx.Err() == nil {
			continue
		}
		return cl.value.Reveal(), cl.err
	}
}

func (c *cache) fetch(ctx context.Context, ref string, cl *call) {
	cl.err = errGetPanicked // kept only if store.Get panics
	defer func() {
		c.mu.Lock()
		if c.calls[ref] == cl {
			delete(c.calls, ref)
			if cl.err == nil && c.ttl > 0 {
				c.add(ref, cl.value)
			}
		}
		c.mu.Unlock()
		close(cl.done)
	}()
	v, err := c.store.Get(ctx, ref)
	cl.value, cl.err = Value{p: &v}, err
}

// add stores an entry; c.mu is held.
func (c *cache) add(ref string, value Value) {
	now := c.now()
	if len(c.entries) >= maxCacheEntries {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
	}
	if len(c.entries) >= maxCacheEntries {
		for k := range c.entries { // any victim will do: map order is random
			delete(c.entries, k)
			break
		}
	}
	c.entries[ref] = cacheEntry{value: value, expires: now.Add(c.ttl)}
}

func (c *cache) Put(ctx context.Context, name string, value []byte, tags map[string]string) (string, error) {
	ref, err := c.store.Put(ctx, name, value, tags)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		// The write may have happened all the same (a timeout after the service applied it)
		// and the ref is unknown: forget everything rather than serve a stale value.
		clear(c.entries)
		clear(c.calls)
		return "", err
	}
	c.forget(ref)
	return ref, nil
}

func (c *cache) Delete(ctx context.Context, ref string) error {
	err := c.store.Delete(ctx, ref)
	c.mu.Lock()
	c.forget(ref)
	c.mu.Unlock()
	return err
}

// forget drops ref's entry and detaches its call under way, whose result may predate the
// write; c.mu is held.
func (c *cache) forget(ref string) {
	delete(c.entries, ref)
	delete(c.calls, ref)
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
