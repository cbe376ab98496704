package embedded_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

// TestOnCommit checks the stream emulation: one call per write transaction that changed
// something, with old and new images.
func TestOnCommit(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var calls [][]embedded.Change
	db, err := embedded.Open(filepath.Join(t.TempDir(), "t.db"), embedded.Options{OnCommit: func(c []embedded.Change) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, c)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	take := func() [][]embedded.Change {
		mu.Lock()
		defer mu.Unlock()
		out := calls
		calls = nil
		return out
	}
	a1 := item("P", "a", "v", int64(1))
	a2 := item("P", "a", "v", int64(2))
	b := item("P", "b")
	steps := []struct {
		name  string
		write func() error
		want  [][]embedded.Change
	}{
		{"create", func() error { return db.Put(ctx, a1) }, [][]embedded.Change{{{New: a1}}}},
		{"identical put", func() error { return db.Put(ctx, a1) }, nil},
		{"failed condition", func() error {
			if err := db.Put(ctx, a2, store.NotExists()); !errors.Is(err, store.ErrConditionFailed) {
				return errors.New("the put did not fail")
			}
			return nil
		}, nil},
		{"update", func() error {
			_, err := db.Update(ctx, store.Update{Key: a1.Key(), Add: map[string]int64{"v": 1}})
			return err
		}, [][]embedded.Change{{{Old: a1, New: a2}}}},
		{"delete absent", func() error { return db.Delete(ctx, b.Key()) }, nil},
		{"transaction", func() error {
			return db.Transact(ctx, []store.Op{
				store.DeleteOp(a1.Key()),
				store.PutOp(b),
				store.CheckOp(item("P", "c").Key(), store.NotExists()),
			})
		}, [][]embedded.Change{{{Old: a2}, {New: b}}}},
		{"batch", func() error { return db.BatchWrite(ctx, []store.Item{a1}, []store.Key{b.Key()}) },
			[][]embedded.Change{{{New: a1}, {Old: b}}}},
	}
	for _, st := range steps {
		if err := st.write(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := take(); !reflect.DeepEqual(got, st.want) {
			t.Fatalf("%s: OnCommit calls\n got %v\nwant %v", st.name, got, st.want)
		}
	}
}

// TestOnCommitWrites checks that OnCommit may write to the DB (as a stream consumer does)
// without deadlock, and that those writes are delivered in turn.
func TestOnCommitWrites(t *testing.T) {
	ctx := context.Background()
	var db *embedded.DB
	var mu sync.Mutex
	var seen []string
	db, err := embedded.Open(filepath.Join(t.TempDir(), "t.db"), embedded.Options{OnCommit: func(cs []embedded.Change) {
		for _, c := range cs {
			mu.Lock()
			seen = append(seen, c.New.Key().SK)
			mu.Unlock()
			if c.New[store.AttrPK] == "P" { // aggregate into another partition
				if _, err := db.Update(ctx, store.Update{Key: store.Key{PK: "AGG", SK: "count"}, Add: map[string]int64{"n": 1}}); err != nil {
					t.Error(err)
				}
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var wg sync.WaitGroup
	for _, sk := range []string{"a", "b", "c", "d"} {
		wg.Go(func() {
			if err := db.Put(ctx, item("P", sk)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// Every Put has returned, and the goroutine that delivered returns only once the queue is
	// empty, so every change (the aggregate's too) has been delivered by now.
	got, err := db.Get(ctx, store.Key{PK: "AGG", SK: "count"}, true)
	if err != nil || got["n"] != int64(4) {
		t.Fatalf("aggregate = %v, %v; want n=4", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 8 { // 4 puts, 4 aggregate updates
		t.Fatalf("delivered %q; want 8 changes", seen)
	}
}

func TestOnCommitCopies(t *testing.T) {
	ctx := context.Background()
	db, err := embedded.Open(filepath.Join(t.TempDir(), "t.db"), embedded.Options{OnCommit: func(cs []embedded.Change) {
		cs[0].New["list"].([]any)[0] = "mutated"
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Update(ctx, store.Update{Key: store.Key{PK: "P", SK: "x"}, Set: map[string]any{"list": []any{"a"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got["list"].([]any)[0] != "a" {
		t.Fatalf("the item returned by Update shares values with OnCommit's: %v", got)
	}
	stored, _ := db.Get(ctx, store.Key{PK: "P", SK: "x"}, true)
	if stored["list"].([]any)[0] != "a" {
		t.Fatalf("the stored item changed with OnCommit's: %v", stored)
	}
}
