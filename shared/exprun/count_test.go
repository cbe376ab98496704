package exprun_test

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/evalobs/evalapi/shared/store"
)

// countTable counts the calls a run makes on a backend, by method, and the conditional
// writes the backend refused: a test on an emulator can then show that it crossed the
// boundary it exists for (a duplicate delivery losing its condition there) instead of
// trusting the row count to have made it happen.
type countTable struct {
	store.Table
	mu      sync.Mutex
	calls   map[string]int
	refused int // writes answered store.ErrConditionFailed
	// markersRefused counts the refused transactions that recorded job-row markers: a
	// delivery that found a row recorded by another (the duplicate's path).
	markersRefused int
}

func newCountTable(t store.Table) *countTable {
	return &countTable{Table: t, calls: map[string]int{}}
}

func (c *countTable) note(method string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[method]++
	if errors.Is(err, store.ErrConditionFailed) {
		c.refused++
	}
}

// counted is what countTable saw.
type counted struct {
	calls                   map[string]int
	refused, markersRefused int
}

func (c *countTable) counts() counted {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := counted{calls: make(map[string]int, len(c.calls)), refused: c.refused, markersRefused: c.markersRefused}
	for k, v := range c.calls {
		out.calls[k] = v
	}
	return out
}

func (c *countTable) Get(ctx context.Context, key store.Key, consistent bool) (store.Item, error) {
	it, err := c.Table.Get(ctx, key, consistent)
	c.note("Get", nil)
	return it, err
}

func (c *countTable) Put(ctx context.Context, item store.Item, conds ...store.Cond) error {
	err := c.Table.Put(ctx, item, conds...)
	c.note("Put", err)
	return err
}

func (c *countTable) Delete(ctx context.Context, key store.Key, conds ...store.Cond) error {
	err := c.Table.Delete(ctx, key, conds...)
	c.note("Delete", err)
	return err
}

func (c *countTable) Update(ctx context.Context, u store.Update) (store.Item, error) {
	it, err := c.Table.Update(ctx, u)
	c.note("Update", err)
	return it, err
}

func (c *countTable) Query(ctx context.Context, q store.Query) (store.Page, error) {
	p, err := c.Table.Query(ctx, q)
	c.note("Query", nil)
	return p, err
}

func (c *countTable) BatchGet(ctx context.Context, keys []store.Key, consistent bool) ([]store.Item, error) {
	its, err := c.Table.BatchGet(ctx, keys, consistent)
	c.note("BatchGet", nil)
	return its, err
}

func (c *countTable) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	err := c.Table.BatchWrite(ctx, puts, deletes)
	c.note("BatchWrite", nil)
	return err
}

func (c *countTable) Transact(ctx context.Context, ops []store.Op) error {
	err := c.Table.Transact(ctx, ops)
	c.note("Transact", err)
	if errors.Is(err, store.ErrConditionFailed) && slices.ContainsFunc(ops, func(op store.Op) bool {
		return op.Kind == store.OpPut && op.Item[store.AttrEntity] == store.EntityJobRow
	}) {
		c.mu.Lock()
		c.markersRefused++
		c.mu.Unlock()
	}
	return err
}
