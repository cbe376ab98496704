package datasets_test

import (
	"context"
	"sync"

	"github.com/evalobs/evalapi/shared/store"
)

// itemCounter counts the items that go through a table: read (returned by Get, Query,
// BatchGet) and written (by every write).
type itemCounter struct {
	store.Table
	mu            sync.Mutex
	read, written int
}

func (c *itemCounter) add(read, written int) {
	c.mu.Lock()
	c.read += read
	c.written += written
	c.mu.Unlock()
}

// Reset clears the counts.
func (c *itemCounter) Reset() { c.mu.Lock(); c.read, c.written = 0, 0; c.mu.Unlock() }

// Counts returns the items read and written so far.
func (c *itemCounter) Counts() (read, written int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read, c.written
}

func (c *itemCounter) Get(ctx context.Context, k store.Key, consistent bool) (store.Item, error) {
	it, err := c.Table.Get(ctx, k, consistent)
	if err == nil {
		c.add(1, 0)
	}
	return it, err
}

func (c *itemCounter) Query(ctx context.Context, q store.Query) (store.Page, error) {
	p, err := c.Table.Query(ctx, q)
	c.add(len(p.Items), 0)
	return p, err
}

func (c *itemCounter) BatchGet(ctx context.Context, keys []store.Key, consistent bool) ([]store.Item, error) {
	items, err := c.Table.BatchGet(ctx, keys, consistent)
	c.add(len(items), 0)
	return items, err
}

func (c *itemCounter) Put(ctx context.Context, it store.Item, conds ...store.Cond) error {
	c.add(0, 1)
	return c.Table.Put(ctx, it, conds...)
}

func (c *itemCounter) Delete(ctx context.Context, k store.Key, conds ...store.Cond) error {
	c.add(0, 1)
	return c.Table.Delete(ctx, k, conds...)
}

func (c *itemCounter) Update(ctx context.Context, u store.Update) (store.Item, error) {
	c.add(0, 1)
	return c.Table.Update(ctx, u)
}

func (c *itemCounter) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	c.add(0, len(puts)+len(deletes))
	return c.Table.BatchWrite(ctx, puts, deletes)
}

func (c *itemCounter) Transact(ctx context.Context, ops []store.Op) error {
	c.add(0, len(ops))
	return c.Table.Transact(ctx, ops)
}
