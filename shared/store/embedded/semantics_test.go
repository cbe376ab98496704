package embedded_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

// TestLimitPageNext checks DynamoDB's behaviour that a page stopped by Limit carries a Next
// even when nothing follows (moto differs, so the shared suite does not assert it).
func TestLimitPageNext(t *testing.T) {
	ctx := context.Background()
	db := openMemory(t)
	for _, sk := range []string{"a", "b"} {
		if err := db.Put(ctx, item("P", sk)); err != nil {
			t.Fatal(err)
		}
	}
	p, err := db.Query(ctx, store.Query{PK: "P", Limit: 2})
	if err != nil || len(p.Items) != 2 || p.Next == nil {
		t.Fatalf("page = %v, %v; want 2 items and a Next", p, err)
	}
	p, err = db.Query(ctx, store.Query{PK: "P", Limit: 2, Start: p.Next})
	if err != nil || len(p.Items) != 0 || p.Next != nil {
		t.Fatalf("page after the last = %v, %v; want empty and no Next", p, err)
	}
	p, err = db.Query(ctx, store.Query{PK: "P", Limit: 3})
	if err != nil || len(p.Items) != 2 || p.Next != nil {
		t.Fatalf("page under the limit = %v, %v; want 2 items and no Next", p, err)
	}
}

// TestPageSize checks the 1 MB cut where DynamoDB Local makes it: 30 items of 100,000-byte
// strings come in pages of 11, 11 and 8 (the page stops at the item that reaches 1 MB).
func TestPageSize(t *testing.T) {
	ctx := context.Background()
	db := openMemory(t)
	for i := range 30 {
		if err := db.Put(ctx, item("B", store.Pad(int64(i), 2), "blob", strings.Repeat("x", 100_000))); err != nil {
			t.Fatal(err)
		}
	}
	var sizes []int
	q := store.Query{PK: "B"}
	for {
		p, err := db.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(p.Items))
		if p.Next == nil {
			break
		}
		q.Start = p.Next
	}
	if !reflect.DeepEqual(sizes, []int{11, 11, 8}) {
		t.Fatalf("page sizes %v; want [11 11 8]", sizes)
	}
}

// TestKeyEncoding covers keys the encoding must keep apart and in order: NUL bytes, partition
// keys that extend each other, index sort keys that are prefixes of each other.
func TestKeyEncoding(t *testing.T) {
	ctx := context.Background()
	db := openMemory(t)
	items := []store.Item{
		item("a", "\x00b"),
		item("a\x00b", "c"),
		item("a", "b"),
		item("a", "b\x00"),
		item("ab", "x"),
		item("I", "1", store.AttrGSI1PK, "g", store.AttrGSI1SK, "k\x00"),
		item("I", "2", store.AttrGSI1PK, "g", store.AttrGSI1SK, "k"),
		item("I", "3", store.AttrGSI1PK, "g", store.AttrGSI1SK, "k\x01"),
		item("I", "4", store.AttrGSI1PK, "g", store.AttrGSI1SK, "ka"),
		item("I", "0", store.AttrGSI1PK, "g", store.AttrGSI1SK, "k"),
	}
	for _, it := range items {
		if err := db.Put(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	check := func(q store.Query, attr string, want ...string) {
		t.Helper()
		var sks []string
		for {
			p, err := db.Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range p.Items {
				sks = append(sks, it[attr].(string))
			}
			if p.Next == nil {
				break
			}
			q.Start = p.Next
		}
		if !reflect.DeepEqual(sks, want) {
			t.Fatalf("%+v: %q; want %q", q, sks, want)
		}
	}
	check(store.Query{PK: "a"}, store.AttrSK, "\x00b", "b", "b\x00")
	check(store.Query{PK: "a", SKOp: store.SKPrefix, From: "b"}, store.AttrSK, "b", "b\x00")
	check(store.Query{PK: "a\x00b"}, store.AttrSK, "c")
	check(store.Query{Index: store.IndexGSI1, PK: "g"}, store.AttrSK, "0", "2", "1", "3", "4")
	check(store.Query{Index: store.IndexGSI1, PK: "g", SKOp: store.SKLessEq, From: "k\x00"}, store.AttrSK, "0", "2", "1")
	check(store.Query{Index: store.IndexGSI1, PK: "g", SKOp: store.SKEqual, From: "k"}, store.AttrSK, "0", "2")
	check(store.Query{Index: store.IndexGSI1, PK: "g", SKOp: store.SKPrefix, From: "k\x00", Descending: true}, store.AttrSK, "1")
	check(store.Query{Index: store.IndexGSI1, PK: "g", Limit: 1, Descending: true}, store.AttrSK, "4", "3", "1", "2", "0")
}

// TestRefusals covers what embedded refuses as DynamoDB does, beyond the suite.
func TestRefusals(t *testing.T) {
	ctx := context.Background()
	db := openMemory(t)
	if err := db.Put(ctx, item("P", "s", "v", "text")); err != nil {
		t.Fatal(err)
	}
	_, addToString := db.Update(ctx, store.Update{Key: store.Key{PK: "P", SK: "s"}, Add: map[string]int64{"v": 1}})
	_, twice := db.Update(ctx, store.Update{Key: store.Key{PK: "P", SK: "s"}, Set: map[string]any{"v": "x"}, Remove: []string{"v"}})
	bigOp := store.PutOp(item("P", "big", "blob", strings.Repeat("x", store.MaxItemBytes)))
	for name, c := range map[string]struct {
		err, want error
	}{
		"add to a string":             {addToString, store.ErrInvalid},
		"attribute named twice":       {twice, store.ErrInvalid},
		"GSI key not a string":        {db.Put(ctx, item("P", "g", store.AttrGSI1PK, int64(1))), store.ErrInvalid},
		"GSI key empty":               {db.Put(ctx, item("P", "g", store.AttrGSI2SK, "")), store.ErrInvalid},
		"NaN":                         {db.Put(ctx, item("P", "n", "v", nanValue())), store.ErrInvalid},
		"number out of range":         {db.Put(ctx, item("P", "n", "v", 1e300)), store.ErrInvalid},
		"sort key too long":           {db.Put(ctx, item("P", strings.Repeat("s", 1025))), store.ErrInvalid},
		"invalid UTF-8":               {db.Put(ctx, item("P", "u", "v", "\xff")), store.ErrInvalid},
		"empty transaction":           {db.Transact(ctx, nil), store.ErrInvalid},
		"check without condition":     {db.Transact(ctx, []store.Op{store.CheckOp(store.Key{PK: "P", SK: "s"})}), store.ErrInvalid},
		"transact too large item":     {db.Transact(ctx, []store.Op{bigOp}), store.ErrTooLarge},
		"batch duplicate key":         {db.BatchWrite(ctx, []store.Item{item("P", "d")}, []store.Key{{PK: "P", SK: "d"}}), store.ErrInvalid},
		"cursor of another partition": {queryErr(db, store.Query{PK: "P", Start: store.Cursor{"PK": "Q", "SK": "s"}}), store.ErrInvalid},
		"cursor outside range":        {queryErr(db, store.Query{PK: "P", SKOp: store.SKGreaterEq, From: "t", Start: store.Cursor{"PK": "P", "SK": "s"}}), store.ErrInvalid},
		"between reversed":            {queryErr(db, store.Query{PK: "P", SKOp: store.SKBetween, From: "b", To: "a"}), store.ErrInvalid},
		"unknown index":               {queryErr(db, store.Query{Index: "GSI9", PK: "P"}), store.ErrInvalid},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v; want %v", name, c.err, c.want)
		}
	}
	got, err := db.Get(ctx, store.Key{PK: "P", SK: "s"}, true)
	if err != nil || got["v"] != "text" {
		t.Fatalf("item after refused writes = %v, %v", got, err)
	}
}

func queryErr(db *embedded.DB, q store.Query) error {
	_, err := db.Query(context.Background(), q)
	return err
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

// TestTransactReportsEveryFailure: DynamoDB gives a reason for every action, and more than
// one may have failed.
func TestTransactReportsEveryFailure(t *testing.T) {
	ctx := context.Background()
	db := openMemory(t)
	err := db.Transact(ctx, []store.Op{
		store.CheckOp(store.Key{PK: "P", SK: "a"}, store.Exists()),
		store.PutOp(item("P", "b")),
		store.DeleteOp(store.Key{PK: "P", SK: "c"}, store.Exists()),
	})
	var tx *store.TxCanceledError
	if !errors.As(err, &tx) || !reflect.DeepEqual(tx.Reasons, []string{"ConditionalCheckFailed", "None", "ConditionalCheckFailed"}) {
		t.Fatalf("Transact = %v; want reasons [ConditionalCheckFailed None ConditionalCheckFailed]", err)
	}
	if _, err := db.Get(ctx, store.Key{PK: "P", SK: "b"}, true); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("put of a canceled transaction applied: %v", err)
	}
}

// TestCounterReturnsDistinctCounts: as on DynamoDB, each concurrent Add sees its own count
// (the shared suite cannot assert it, because moto does not guarantee it).
func TestCounterReturnsDistinctCounts(t *testing.T) {
	ctx := context.Background()
	db := openMemory(t)
	const n = 50
	counts := make([]bool, n+1)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			it, err := db.Update(ctx, store.Update{Key: store.Key{PK: "P", SK: "c"}, Add: map[string]int64{"n": 1}})
			if err != nil {
				t.Error(err)
				return
			}
			c := it["n"].(int64)
			mu.Lock()
			defer mu.Unlock()
			if c < 1 || c > n || counts[c] {
				t.Errorf("count %d returned twice or out of range", c)
				return
			}
			counts[c] = true
		})
	}
	wg.Wait()
}
