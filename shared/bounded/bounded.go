// Package bounded is a map of values bounded in bytes that starts over when full: simpler
// than an LRU, and a miss costs one read. The process-wide caches of things that never
// change once written (a dataset's segments, a page's encoded rows) keep their values in it.
package bounded

import "sync"

// Cache maps keys to values, at most max bytes of them as Put's sizes count. Safe for
// concurrent use; the values are shared by every reader, so they must be read only.
type Cache[V any] struct {
	max int

	mu   sync.Mutex
	size int
	m    map[string]sized[V]
}

type sized[V any] struct {
	v    V
	size int
}

// New returns an empty cache of at most maxBytes; 0 keeps nothing.
func New[V any](maxBytes int) *Cache[V] { return &Cache[V]{max: maxBytes} }

// Get returns the value under key.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	return e.v, ok
}

// Put keeps v, of size bytes, under key, unless it is larger than the cache or the key holds
// a value already (the same one: what is cached never changes). A full cache starts over.
func (c *Cache[V]) Put(key string, v V, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if size > c.max {
		return
	}
	if _, ok := c.m[key]; ok {
		return
	}
	if c.m == nil || c.size+size > c.max {
		c.m, c.size = map[string]sized[V]{}, 0
	}
	c.m[key] = sized[V]{v: v, size: size}
	c.size += size
}
