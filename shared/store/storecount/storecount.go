// Package storecount wraps a store.Table and counts the round trips a request makes: how many
// calls of each kind, and their sequential depth (how many waves of calls had to wait for the
// one before). Budget tests and the performance report use it; it never changes what the
// wrapped table does.
package storecount

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/evalobs/evalapi/shared/store"
)

// Table counts the calls made through it.
type Table struct {
	next store.Table

	mu       sync.Mutex
	calls    map[string]int
	inFlight int
	depth    int
}

var _ store.Table = (*Table)(nil)

// New wraps t.
func New(t store.Table) *Table { return &Table{next: t, calls: map[string]int{}} }

// Counts is a snapshot of what was counted.
type Counts struct {
	Calls map[string]int // by method: Get, Put, Delete, Update, Query, BatchGet, BatchWrite, Transact
	Total int
	Depth int // sequential waves: a call that starts while none is in flight opens a new wave
}

func (c Counts) String() string {
	names := make([]string, 0, len(c.Calls))
	for n := range c.Calls {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(n + "=" + itoa(c.Calls[n]))
	}
	return b.String() + " total=" + itoa(c.Total) + " depth=" + itoa(c.Depth)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// Snapshot returns the counts so far.
func (t *Table) Snapshot() Counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := Counts{Calls: make(map[string]int, len(t.calls)), Depth: t.depth}
	for k, v := range t.calls {
		c.Calls[k] = v
		c.Total += v
	}
	return c
}

// Reset clears the counts (between the setup of a test and the request it measures).
func (t *Table) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls, t.depth = map[string]int{}, 0
}

func (t *Table) begin(name string) func() {
	t.mu.Lock()
	t.calls[name]++
	if t.inFlight == 0 {
		t.depth++
	}
	t.inFlight++
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		t.inFlight--
		t.mu.Unlock()
	}
}

func (t *Table) Get(ctx context.Context, key store.Key, consistent bool) (store.Item, error) {
	defer t.begin("Get")()
	return t.next.Get(ctx, key, consistent)
}

func (t *Table) Put(ctx context.Context, item store.Item, conds ...store.Cond) error {
	defer t.begin("Put")()
	return t.next.Put(ctx, item, conds...)
}

func (t *Table) Delete(ctx context.Context, key store.Key, conds ...store.Cond) error {
	defer t.begin("Delete")()
	return t.next.Delete(ctx, key, conds...)
}

func (t *Table) Update(ctx context.Context, u store.Update) (store.Item, error) {
	defer t.begin("Update")()
	return t.next.Update(ctx, u)
}

func (t *Table) Query(ctx context.Context, q store.Query) (store.Page, error) {
	defer t.begin("Query")()
	return t.next.Query(ctx, q)
}

// BatchGet counts one call per 100 keys, as the DynamoDB adapter splits them.
func (t *Table) BatchGet(ctx context.Context, keys []store.Key, consistent bool) ([]store.Item, error) {
	done := t.begin("BatchGet")
	defer done()
	t.addExtra("BatchGet", (len(keys)+store.MaxBatchGet-1)/store.MaxBatchGet-1)
	return t.next.BatchGet(ctx, keys, consistent)
}

// BatchWrite counts one call per 25 items, as the DynamoDB adapter splits them.
func (t *Table) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	done := t.begin("BatchWrite")
	defer done()
	t.addExtra("BatchWrite", (len(puts)+len(deletes)+store.MaxBatchWrite-1)/store.MaxBatchWrite-1)
	return t.next.BatchWrite(ctx, puts, deletes)
}

func (t *Table) Transact(ctx context.Context, ops []store.Op) error {
	defer t.begin("Transact")()
	return t.next.Transact(ctx, ops)
}

func (t *Table) addExtra(name string, n int) {
	if n <= 0 {
		return
	}
	t.mu.Lock()
	t.calls[name] += n
	t.mu.Unlock()
}
