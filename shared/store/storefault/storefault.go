// Package storefault is test support: a store.Table that passes every call to another one
// and fails the calls a test chooses (the Nth call, or calls of one kind) with throttling,
// a timeout or a plain failure, before or after the call reaches the store. It also counts
// and logs every call and the keys of every write, so that a test can first count the
// calls of a healthy request and then fail each of them in turn, and can enumerate what a
// request wrote (the embedded store has no scan).
package storefault

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/evalobs/evalapi/shared/store"
)

// Op names a method of store.Table.
type Op string

// The methods of store.Table.
const (
	OpGet        Op = "Get"
	OpPut        Op = "Put"
	OpDelete     Op = "Delete"
	OpUpdate     Op = "Update"
	OpQuery      Op = "Query"
	OpBatchGet   Op = "BatchGet"
	OpBatchWrite Op = "BatchWrite"
	OpTransact   Op = "Transact"
)

// Writes reports whether op changes the table.
func (op Op) Writes() bool {
	switch op {
	case OpPut, OpDelete, OpUpdate, OpBatchWrite, OpTransact:
		return true
	}
	return false
}

// ErrInjected is the plain failure: an error the service cannot classify (it must answer
// 500 without telling anything of it).
var ErrInjected = errors.New("storefault: injected failure")

// Throttled is a throttling error as the adapters return it (wrapping store.ErrThrottled).
func Throttled() error { return fmt.Errorf("storefault: injected: %w", store.ErrThrottled) }

// Timeout is a dependency timeout (wrapping context.DeadlineExceeded), as the SDK returns
// it when its own deadline passed.
func Timeout() error { return fmt.Errorf("storefault: injected: %w", context.DeadlineExceeded) }

// Fault chooses calls to fail.
type Fault struct {
	// At is the 1-based position of the call among all calls of the Table; 0 matches any.
	At int
	// Op limits the fault to one method; "" matches every method.
	Op Op
	// Err is what the call returns.
	Err error
	// Applied lets the call reach the store first and then returns Err: the write happened
	// but its answer was lost (a timeout after DynamoDB applied it).
	Applied bool
	// Sticky keeps failing every matching call; otherwise the fault fires once.
	Sticky bool
}

// Call is one call the Table received.
type Call struct {
	N      int // 1-based position
	Op     Op
	Keys   []store.Key // the keys a write touched (puts, deletes, updates, transaction actions)
	Err    error       // what the caller got
	Failed bool        // the error was injected
}

// Table wraps a store.Table. It is safe for concurrent use; positions are given in the
// order calls arrive.
type Table struct {
	inner store.Table

	mu     sync.Mutex
	faults []Fault
	fired  []bool
	calls  []Call
}

var _ store.Table = (*Table)(nil)

// New wraps inner; faults apply to its calls from the first.
func New(inner store.Table, faults ...Fault) *Table {
	return &Table{inner: inner, faults: faults, fired: make([]bool, len(faults))}
}

// Inner is the wrapped table (to read it without counting).
func (t *Table) Inner() store.Table { return t.inner }

// Calls returns a copy of the log of calls.
func (t *Table) Calls() []Call {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Call(nil), t.calls...)
}

// Count is the number of calls so far.
func (t *Table) Count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.calls)
}

// Written lists the keys of every write call that reached the store, in order, without
// repeats (including writes whose answer was an injected error after they applied, and
// writes the store refused, which may still name keys worth reading back).
func (t *Table) Written() []store.Key {
	t.mu.Lock()
	defer t.mu.Unlock()
	seen := map[store.Key]bool{}
	var out []store.Key
	for _, c := range t.calls {
		for _, k := range c.Keys {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// begin registers a call and returns its position and the fault that applies, if any.
func (t *Table) begin(op Op) (int, *Fault) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.calls) + 1
	t.calls = append(t.calls, Call{N: n, Op: op})
	for i := range t.faults {
		f := &t.faults[i]
		if (f.At != 0 && f.At != n) || (f.Op != "" && f.Op != op) || (t.fired[i] && !f.Sticky) {
			continue
		}
		t.fired[i] = true
		return n, f
	}
	return n, nil
}

// end records the outcome of call n.
func (t *Table) end(n int, keys []store.Key, err error, injected bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := &t.calls[n-1]
	c.Err, c.Failed = err, injected
	if !injected {
		c.Keys = keys
	}
}

// do runs one call through the faults: fn reaches the store.
func (t *Table) do(op Op, keys []store.Key, fn func() error) error {
	n, f := t.begin(op)
	if f == nil {
		err := fn()
		t.end(n, keys, err, false)
		return err
	}
	if f.Applied {
		_ = fn() // the outcome is lost, as with a timeout after the store applied the write
		t.end(n, keys, f.Err, false)
		t.mu.Lock()
		t.calls[n-1].Failed = true
		t.mu.Unlock()
		return f.Err
	}
	t.end(n, nil, f.Err, true)
	return f.Err
}

func (t *Table) Get(ctx context.Context, key store.Key, consistent bool) (store.Item, error) {
	var it store.Item
	err := t.do(OpGet, nil, func() (err error) { it, err = t.inner.Get(ctx, key, consistent); return err })
	return it, err
}

func (t *Table) Put(ctx context.Context, item store.Item, conds ...store.Cond) error {
	return t.do(OpPut, []store.Key{item.Key()}, func() error { return t.inner.Put(ctx, item, conds...) })
}

func (t *Table) Delete(ctx context.Context, key store.Key, conds ...store.Cond) error {
	return t.do(OpDelete, []store.Key{key}, func() error { return t.inner.Delete(ctx, key, conds...) })
}

func (t *Table) Update(ctx context.Context, u store.Update) (store.Item, error) {
	var it store.Item
	err := t.do(OpUpdate, []store.Key{u.Key}, func() (err error) { it, err = t.inner.Update(ctx, u); return err })
	return it, err
}

func (t *Table) Query(ctx context.Context, q store.Query) (store.Page, error) {
	var p store.Page
	err := t.do(OpQuery, nil, func() (err error) { p, err = t.inner.Query(ctx, q); return err })
	return p, err
}

func (t *Table) BatchGet(ctx context.Context, keys []store.Key, consistent bool) ([]store.Item, error) {
	var items []store.Item
	err := t.do(OpBatchGet, nil, func() (err error) { items, err = t.inner.BatchGet(ctx, keys, consistent); return err })
	return items, err
}

func (t *Table) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	keys := make([]store.Key, 0, len(puts)+len(deletes))
	for _, it := range puts {
		keys = append(keys, it.Key())
	}
	keys = append(keys, deletes...)
	return t.do(OpBatchWrite, keys, func() error { return t.inner.BatchWrite(ctx, puts, deletes) })
}

func (t *Table) Transact(ctx context.Context, ops []store.Op) error {
	var keys []store.Key
	for _, op := range ops {
		switch op.Kind {
		case store.OpPut:
			keys = append(keys, op.Item.Key())
		case store.OpDelete:
			keys = append(keys, op.Key)
		case store.OpUpdate:
			keys = append(keys, op.Update.Key)
		}
	}
	return t.do(OpTransact, keys, func() error { return t.inner.Transact(ctx, ops) })
}
