package storefault_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/store/storefault"
)

func open(t *testing.T) *embedded.DB {
	t.Helper()
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func item(sk string) store.Item { return store.Item{store.AttrPK: "P", store.AttrSK: sk} }

// run makes the same five calls on tbl: put a, get a, put b, transact (put c, delete a), query.
func run(ctx context.Context, tbl store.Table) []error {
	var errs []error
	errs = append(errs, tbl.Put(ctx, item("a")))
	_, err := tbl.Get(ctx, store.Key{PK: "P", SK: "a"}, true)
	errs = append(errs, err)
	errs = append(errs, tbl.Put(ctx, item("b")))
	errs = append(errs, tbl.Transact(ctx, []store.Op{store.PutOp(item("c")), store.DeleteOp(store.Key{PK: "P", SK: "a"})}))
	_, err = tbl.Query(ctx, store.Query{PK: "P"})
	return append(errs, err)
}

func present(t *testing.T, db store.Table) []string {
	t.Helper()
	items, err := store.QueryAll(t.Context(), db, store.Query{PK: "P"})
	if err != nil {
		t.Fatal(err)
	}
	var sks []string
	for _, it := range items {
		sks = append(sks, it[store.AttrSK].(string))
	}
	return sks
}

func TestFaults(t *testing.T) {
	for _, c := range []struct {
		name    string
		fault   storefault.Fault
		failed  []int    // 1-based calls that must fail
		is      error    // what the failures wrap
		present []string // items after the run
	}{
		{"none", storefault.Fault{}, nil, nil, []string{"b", "c"}},
		{"second call throttled", storefault.Fault{At: 2, Err: storefault.Throttled()}, []int{2}, store.ErrThrottled, []string{"b", "c"}},
		{"first put times out", storefault.Fault{Op: storefault.OpPut, Err: storefault.Timeout()}, []int{1}, context.DeadlineExceeded, []string{"b", "c"}},
		{"every put fails", storefault.Fault{Op: storefault.OpPut, Err: storefault.ErrInjected, Sticky: true}, []int{1, 3}, storefault.ErrInjected, []string{"c"}},
		{"transaction refused", storefault.Fault{At: 4, Err: storefault.ErrInjected}, []int{4}, storefault.ErrInjected, []string{"a", "b"}},
		{"transaction applied, answer lost", storefault.Fault{At: 4, Err: storefault.Timeout(), Applied: true}, []int{4}, context.DeadlineExceeded, []string{"b", "c"}},
		{"position and kind must both match", storefault.Fault{At: 2, Op: storefault.OpPut, Err: storefault.ErrInjected}, nil, nil, []string{"b", "c"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := open(t)
			var faults []storefault.Fault
			if c.fault.Err != nil {
				faults = append(faults, c.fault)
			}
			tbl := storefault.New(db, faults...)
			errs := run(t.Context(), tbl)
			for i, err := range errs {
				// A call that is not failed may still fail naturally (the get of an item whose
				// put was failed), but never with the injected error.
				want := slices.Contains(c.failed, i+1)
				if want != (err != nil && errors.Is(err, c.is)) {
					t.Errorf("call %d: error %v, want injected failure %v wrapping %v", i+1, err, want, c.is)
				}
			}
			if got := present(t, db); !slices.Equal(got, c.present) {
				t.Errorf("items %v, want %v", got, c.present)
			}
			calls := tbl.Calls()
			if len(calls) != 5 || tbl.Count() != 5 {
				t.Fatalf("%d calls logged, want 5", len(calls))
			}
			wantOps := []storefault.Op{storefault.OpPut, storefault.OpGet, storefault.OpPut, storefault.OpTransact, storefault.OpQuery}
			for i, call := range calls {
				if call.N != i+1 || call.Op != wantOps[i] || call.Failed != slices.Contains(c.failed, i+1) {
					t.Errorf("call %d logged as %+v", i+1, call)
				}
			}
		})
	}
}

func TestWritten(t *testing.T) {
	db := open(t)
	tbl := storefault.New(db, storefault.Fault{At: 3, Err: storefault.ErrInjected})
	run(t.Context(), tbl)
	if err := tbl.BatchWrite(t.Context(), []store.Item{item("d")}, []store.Key{{PK: "P", SK: "b"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Update(t.Context(), store.Update{Key: store.Key{PK: "P", SK: "e"}, Add: map[string]int64{"n": 1}}); err != nil {
		t.Fatal(err)
	}
	// The refused put of b (call 3) reached nothing; the batch's delete of b did.
	want := []store.Key{{PK: "P", SK: "a"}, {PK: "P", SK: "c"}, {PK: "P", SK: "d"}, {PK: "P", SK: "b"}, {PK: "P", SK: "e"}}
	if got := tbl.Written(); !slices.Equal(got, want) {
		t.Errorf("Written() = %v, want %v", got, want)
	}
	if tbl.Inner() != store.Table(db) {
		t.Error("Inner() is not the wrapped table")
	}
	for _, op := range []storefault.Op{storefault.OpPut, storefault.OpDelete, storefault.OpUpdate, storefault.OpBatchWrite, storefault.OpTransact} {
		if !op.Writes() {
			t.Errorf("%s.Writes() = false", op)
		}
	}
	for _, op := range []storefault.Op{storefault.OpGet, storefault.OpQuery, storefault.OpBatchGet} {
		if op.Writes() {
			t.Errorf("%s.Writes() = true", op)
		}
	}
}
