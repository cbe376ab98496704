// Package storetest is the conformance suite of the store.Table port: the same tests run
// against every adapter (embedded always; DynamoDB Local and moto under `make test`).
//
// The suite asserts only what DynamoDB itself does, so it must pass on AWS too: reads that
// must see a write are strongly consistent, and reads that cannot be (GSI queries, BatchGet)
// poll for a few seconds before they assert.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// Run runs the whole suite against the table that open returns. open may return the same
// table to every call: the suite keeps each test in partitions of its own.
func Run(t *testing.T, open func(t *testing.T) store.Table) {
	t.Helper()
	run := randomID()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &suite{tb: open(t), ctx: t.Context(), ns: "storetest#" + run + "#" + c.name}
			c.fn(t, s)
		})
	}
}

var cases = []struct {
	name string
	fn   func(t *testing.T, s *suite)
}{
	{"RoundTrip", testRoundTrip},
	{"GetAbsent", testGetAbsent},
	{"ConsistentGetAfterPut", testConsistentGetAfterPut},
	{"ReturnedItemsAreCopies", testCopies},
	{"Delete", testDelete},
	{"Invalid", testInvalid},
	{"Conditions", testConditions},
	{"TooLarge", testTooLarge},
	{"UpdateCreates", testUpdateCreates},
	{"UpdateAddRemove", testUpdateAddRemove},
	{"UpdateConditions", testUpdateConditions},
	{"UpdateKeyAttributes", testUpdateKeyAttributes},
	{"ConcurrentCounter", testConcurrentCounter},
	{"TransactAllOrNothing", testTransactAllOrNothing},
	{"TransactApplies", testTransactApplies},
	{"TransactLimits", testTransactLimits},
	{"QuerySortKeyConditions", testQuerySortKeyConditions},
	{"QueryByteOrder", testQueryByteOrder},
	{"QueryPagination", testQueryPagination},
	{"QueryPageSize", testQueryPageSize},
	{"IndexQuery", testIndexQuery},
	{"IndexPagination", testIndexPagination},
	{"IndexFollowsWrites", testIndexFollowsWrites},
	{"IndexConsistentRefused", testIndexConsistentRefused},
	{"Batch", testBatch},
}

// suite is what one test works with: the table and a namespace no other test (and no other
// run against the same table) uses.
type suite struct {
	tb  store.Table
	ctx context.Context
	ns  string
}

// pk returns a partition key of this test.
func (s *suite) pk(name string) string { return s.ns + "#" + name }

func (s *suite) key(pk, sk string) store.Key { return store.Key{PK: s.pk(pk), SK: sk} }

func (s *suite) item(pk, sk string, kv ...any) store.Item {
	return store.Item{store.AttrPK: s.pk(pk), store.AttrSK: sk}.With(kv...)
}

func (s *suite) put(t *testing.T, it store.Item) {
	t.Helper()
	if err := s.tb.Put(s.ctx, it); err != nil {
		t.Fatalf("Put(%s): %v", it.Key(), err)
	}
}

func (s *suite) get(t *testing.T, k store.Key) store.Item {
	t.Helper()
	it, err := s.tb.Get(s.ctx, k, true)
	if err != nil {
		t.Fatalf("Get(%s): %v", k, err)
	}
	return it
}

// absent fails the test unless k has no item.
func (s *suite) absent(t *testing.T, k store.Key) {
	t.Helper()
	it, err := s.tb.Get(s.ctx, k, true)
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(%s) = %v, %v; want ErrNotFound", k, it, err)
	}
}

func (s *suite) queryAll(t *testing.T, q store.Query) []store.Item {
	t.Helper()
	items, err := store.QueryAll(s.ctx, s.tb, q)
	if err != nil {
		t.Fatalf("QueryAll(%+v): %v", q, err)
	}
	return items
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error %v; want %v", what, err, target)
	}
}

func wantItem(t *testing.T, what string, got, want store.Item) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %#v\nwant %#v", what, got, want)
	}
}

// sortKeys returns the SK of each item, or of attr when given.
func sortKeys(items []store.Item, attr ...string) []string {
	a := store.AttrSK
	if len(attr) > 0 {
		a = attr[0]
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it[a].(string)
	}
	return out
}

// eventually retries check until it returns "" or the deadline passes, then fails with its
// last complaint. It is for reads DynamoDB serves eventually consistent (GSIs, BatchGet).
func eventually(t *testing.T, check func() string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		msg := check()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func randomID() string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("storetest: random id: %v", err))
	}
	return hex.EncodeToString(b)
}
