package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

func testTransactAllOrNothing(t *testing.T, s *suite) {
	taken := s.item("p", "c", "v", "old")
	s.put(t, taken)
	err := s.tb.Transact(s.ctx, []store.Op{
		store.PutOp(s.item("p", "a", "v", "new"), store.NotExists()),
		store.UpdateOp(store.Update{Key: s.key("p", "b"), Add: map[string]int64{"n": 1}}),
		store.PutOp(s.item("p", "c", "v", "new"), store.NotExists()), // fails: c exists
	})
	wantErr(t, "Transact", err, store.ErrConditionFailed)
	var tx *store.TxCanceledError
	if !errors.As(err, &tx) {
		t.Fatalf("Transact error %v (%T) is not a *store.TxCanceledError", err, err)
	}
	if want := []string{"None", "None", "ConditionalCheckFailed"}; !slices.Equal(tx.Reasons, want) {
		t.Fatalf("Reasons = %q; want %q", tx.Reasons, want)
	}
	if tx.Failed() != 2 {
		t.Fatalf("Failed() = %d; want 2", tx.Failed())
	}
	s.absent(t, s.key("p", "a"))
	s.absent(t, s.key("p", "b"))
	wantItem(t, "item of the failed op", s.get(t, taken.Key()), taken)
}

func testTransactApplies(t *testing.T, s *suite) {
	s.put(t, s.item("p", "gone", "v", "x"))
	s.put(t, s.item("p", "counter", "n", int64(4), "version", int64(1)))
	s.put(t, s.item("p", "guard", "open", true))
	err := s.tb.Transact(s.ctx, []store.Op{
		store.PutOp(s.item("p", "new", "v", "x"), store.NotExists()),
		store.DeleteOp(s.key("p", "gone"), store.Exists()),
		store.UpdateOp(store.Update{
			Key:   s.key("p", "counter"),
			Add:   map[string]int64{"n": 1},
			Set:   map[string]any{"version": int64(2)},
			Conds: []store.Cond{store.Equals("version", int64(1))},
		}),
		store.CheckOp(s.key("p", "guard"), store.Equals("open", true)),
		store.UpdateOp(store.Update{Key: s.key("p", "created"), Set: map[string]any{"v": "y"}}),
	})
	if err != nil {
		t.Fatalf("Transact: %v", err)
	}
	wantItem(t, "put", s.get(t, s.key("p", "new")), s.item("p", "new", "v", "x"))
	s.absent(t, s.key("p", "gone"))
	wantItem(t, "updated", s.get(t, s.key("p", "counter")), s.item("p", "counter", "n", int64(5), "version", int64(2)))
	wantItem(t, "checked", s.get(t, s.key("p", "guard")), s.item("p", "guard", "open", true))
	wantItem(t, "created by update", s.get(t, s.key("p", "created")), s.item("p", "created", "v", "y"))
}

func testTransactLimits(t *testing.T, s *suite) {
	ops := func(n int) []store.Op {
		var out []store.Op
		for i := range n {
			out = append(out, store.PutOp(s.item("p", fmt.Sprintf("%03d", i))))
		}
		return out
	}
	wantErr(t, "Transact of 101 ops", s.tb.Transact(s.ctx, ops(101)), store.ErrInvalid)
	s.absent(t, s.key("p", "000"))

	if err := s.tb.Transact(s.ctx, ops(100)); err != nil {
		t.Fatalf("Transact of 100 ops: %v", err)
	}
	if got := s.queryAll(t, store.Query{PK: s.pk("p"), Consistent: true}); len(got) != 100 {
		t.Fatalf("after a transaction of 100 puts the partition holds %d items", len(got))
	}

	err := s.tb.Transact(s.ctx, []store.Op{
		store.PutOp(s.item("q", "other")),
		store.PutOp(s.item("q", "same")),
		store.UpdateOp(store.Update{Key: s.key("q", "same"), Add: map[string]int64{"n": 1}}),
	})
	wantErr(t, "Transact with two ops on one key", err, store.ErrInvalid)
	s.absent(t, s.key("q", "other"))
	s.absent(t, s.key("q", "same"))
}
