package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// testConditions runs every condition kind, true and false, on each conditional write. A
// false condition must fail with ErrConditionFailed and leave the item as it was.
func testConditions(t *testing.T, s *suite) {
	cases := []struct {
		name    string
		present bool
		conds   []store.Cond
		holds   bool
	}{
		{"NotExists/absent", false, []store.Cond{store.NotExists()}, true},
		{"NotExists/present", true, []store.Cond{store.NotExists()}, false},
		{"Exists/present", true, []store.Cond{store.Exists()}, true},
		{"Exists/absent", false, []store.Cond{store.Exists()}, false},
		{"Equals/string", true, []store.Cond{store.Equals("v", "a")}, true},
		{"Equals/other string", true, []store.Cond{store.Equals("v", "b")}, false},
		{"Equals/number", true, []store.Cond{store.Equals("n", int64(5))}, true},
		{"Equals/number as float", true, []store.Cond{store.Equals("n", float64(5))}, true},
		{"Equals/other number", true, []store.Cond{store.Equals("n", int64(6))}, false},
		{"Equals/other type", true, []store.Cond{store.Equals("n", "5")}, false},
		{"Equals/bool", true, []store.Cond{store.Equals("b", true)}, true},
		{"Equals/missing attribute", true, []store.Cond{store.Equals("missing", "a")}, false},
		{"Equals/absent item", false, []store.Cond{store.Equals("v", "a")}, false},
		{"AttrAbsent/missing attribute", true, []store.Cond{store.AttrAbsent("missing")}, true},
		{"AttrAbsent/present attribute", true, []store.Cond{store.AttrAbsent("v")}, false},
		{"AttrAbsent/absent item", false, []store.Cond{store.AttrAbsent("v")}, true},
		{"AtMost/below", true, []store.Cond{store.AtMost("n", 6)}, true},
		{"AtMost/equal", true, []store.Cond{store.AtMost("n", 5)}, true},
		{"AtMost/above", true, []store.Cond{store.AtMost("n", 4)}, false},
		{"AtMost/negative limit", true, []store.Cond{store.AtMost("n", -1)}, false},
		{"AtMost/missing attribute", true, []store.Cond{store.AtMost("missing", -1)}, true},
		{"AtMost/absent item", false, []store.Cond{store.AtMost("n", -1)}, true},
		{"And/all hold", true, []store.Cond{store.Exists(), store.Equals("v", "a"), store.AttrAbsent("missing")}, true},
		{"And/one fails", true, []store.Cond{store.Exists(), store.Equals("v", "a"), store.Equals("n", int64(6))}, false},
	}
	writes := []struct {
		name  string
		write func(k store.Key, conds []store.Cond) error
		// after is the item the write leaves when its conditions hold (nil: none).
		after func(k store.Key) store.Item
	}{
		{
			"Put",
			func(k store.Key, conds []store.Cond) error {
				return s.tb.Put(s.ctx, store.Item{store.AttrPK: k.PK, store.AttrSK: k.SK, "w": "new"}, conds...)
			},
			func(k store.Key) store.Item { return store.Item{store.AttrPK: k.PK, store.AttrSK: k.SK, "w": "new"} },
		},
		{
			"Update",
			func(k store.Key, conds []store.Cond) error {
				_, err := s.tb.Update(s.ctx, store.Update{Key: k, Set: map[string]any{"w": "new"}, Conds: conds})
				return err
			},
			nil, // checked below: the old item with w set
		},
		{
			"Delete",
			func(k store.Key, conds []store.Cond) error { return s.tb.Delete(s.ctx, k, conds...) },
			func(store.Key) store.Item { return nil },
		},
	}
	for _, w := range writes {
		for _, c := range cases {
			t.Run(w.name+"/"+c.name, func(t *testing.T) {
				k := s.key("cond", w.name+"/"+c.name)
				var before store.Item
				if c.present {
					before = store.Item{store.AttrPK: k.PK, store.AttrSK: k.SK, "v": "a", "n": int64(5), "b": true}
					s.put(t, before)
				}
				err := w.write(k, c.conds)
				if !c.holds {
					wantErr(t, "write", err, store.ErrConditionFailed)
					s.wantState(t, k, before)
					return
				}
				if err != nil {
					t.Fatalf("write: %v; want the condition to hold", err)
				}
				var want store.Item
				switch {
				case w.after != nil:
					want = w.after(k)
				case before != nil:
					want = before.With("w", "new")
				default:
					want = store.Item{store.AttrPK: k.PK, store.AttrSK: k.SK, "w": "new"}
				}
				s.wantState(t, k, want)
			})
		}
	}
}

// wantState fails the test unless k holds want (nil: no item).
func (s *suite) wantState(t *testing.T, k store.Key, want store.Item) {
	t.Helper()
	got, err := s.tb.Get(s.ctx, k, true)
	switch {
	case want == nil && errors.Is(err, store.ErrNotFound):
	case want == nil:
		t.Fatalf("Get(%s) = %v, %v; want no item", k, got, err)
	case err != nil:
		t.Fatalf("Get(%s): %v", k, err)
	default:
		wantItem(t, fmt.Sprintf("item %s", k), got, want)
	}
}
