package storetest

import (
	"fmt"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// testBatch writes and reads more than one DynamoDB request holds (25 writes, 100 reads).
// BatchGet reads eventually consistently on DynamoDB, hence the polling.
func testBatch(t *testing.T, s *suite) {
	var puts []store.Item
	var keys []store.Key
	for i := range 130 {
		k := s.key(fmt.Sprintf("p%d", i%4), fmt.Sprintf("item%03d", i))
		keys = append(keys, k)
		if i%13 < 6 { // 60 of the 130
			puts = append(puts, store.Item{store.AttrPK: k.PK, store.AttrSK: k.SK, "i": int64(i), "list": []any{"x"}})
		}
	}
	if len(puts) != 60 {
		t.Fatalf("test setup: %d puts", len(puts))
	}
	if err := s.tb.BatchWrite(s.ctx, puts, nil); err != nil {
		t.Fatalf("BatchWrite of 60 puts: %v", err)
	}
	s.eventuallyBatchGet(t, keys, puts)
	for _, it := range puts[:3] {
		wantItem(t, "Get after BatchWrite", s.get(t, it.Key()), it)
	}

	// Deletes and puts together: 20 of the items go, 5 new ones come.
	var deletes []store.Key
	for _, it := range puts[:20] {
		deletes = append(deletes, it.Key())
	}
	var more []store.Item
	for i := range 5 {
		more = append(more, s.item("new", fmt.Sprint(i), "v", "new"))
		keys = append(keys, more[i].Key())
	}
	if err := s.tb.BatchWrite(s.ctx, more, deletes); err != nil {
		t.Fatalf("BatchWrite of puts and deletes: %v", err)
	}
	s.eventuallyBatchGet(t, keys, append(puts[20:], more...))
	s.absent(t, deletes[0])

	if err := s.tb.BatchWrite(s.ctx, nil, nil); err != nil {
		t.Fatalf("empty BatchWrite: %v", err)
	}
	if got, err := s.tb.BatchGet(s.ctx, nil, false); err != nil || len(got) != 0 {
		t.Fatalf("empty BatchGet = %v, %v; want nothing", got, err)
	}
}

// eventuallyBatchGet polls BatchGet(keys) until it returns exactly want, in any order.
func (s *suite) eventuallyBatchGet(t *testing.T, keys []store.Key, want []store.Item) {
	t.Helper()
	eventually(t, func() string {
		got, err := s.tb.BatchGet(s.ctx, keys, true)
		if err != nil {
			t.Fatalf("BatchGet of %d keys: %v", len(keys), err)
		}
		if msg := sameItems(got, want); msg != "" {
			return "BatchGet: " + msg
		}
		return ""
	})
}
