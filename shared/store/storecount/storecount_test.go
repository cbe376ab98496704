package storecount

import (
	"context"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// fake is a Table that does nothing but wait on a gate, so tests control overlap.
type fake struct{ gate chan struct{} }

func (f fake) wait() {
	if f.gate != nil {
		<-f.gate
	}
}
func (f fake) Get(context.Context, store.Key, bool) (store.Item, error) { f.wait(); return nil, nil }
func (f fake) Put(context.Context, store.Item, ...store.Cond) error     { f.wait(); return nil }
func (f fake) Delete(context.Context, store.Key, ...store.Cond) error   { f.wait(); return nil }
func (f fake) Update(context.Context, store.Update) (store.Item, error) { f.wait(); return nil, nil }
func (f fake) Query(context.Context, store.Query) (store.Page, error) {
	f.wait()
	return store.Page{}, nil
}
func (f fake) BatchGet(context.Context, []store.Key, bool) ([]store.Item, error) {
	f.wait()
	return nil, nil
}
func (f fake) BatchWrite(context.Context, []store.Item, []store.Key) error { f.wait(); return nil }
func (f fake) Transact(context.Context, []store.Op) error                  { f.wait(); return nil }

func TestSequentialCallsEachOpenAWave(t *testing.T) {
	ctx := context.Background()
	c := New(fake{})
	_, _ = c.Get(ctx, store.Key{}, true)
	_, _ = c.Query(ctx, store.Query{})
	_, _ = c.BatchGet(ctx, make([]store.Key, 250), false)
	got := c.Snapshot()
	if got.Depth != 3 || got.Total != 5 || got.Calls["BatchGet"] != 3 {
		t.Fatalf("got %v, want depth 3, total 5, BatchGet 3", got)
	}
	c.Reset()
	if s := c.Snapshot(); s.Total != 0 || s.Depth != 0 {
		t.Fatalf("after Reset: %v", s)
	}
}

func TestParallelCallsShareAWave(t *testing.T) {
	ctx := context.Background()
	gate := make(chan struct{})
	c := New(fake{gate: gate})
	var started, wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		started.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			_, _ = c.Get(ctx, store.Key{}, false)
		}()
	}
	started.Wait()
	for c.Snapshot().Total < 3 { // all three are in flight before any finishes
	}
	close(gate)
	wg.Wait()
	if got := c.Snapshot(); got.Depth != 1 || got.Calls["Get"] != 3 {
		t.Fatalf("got %v, want 3 Gets in 1 wave", got)
	}
}
