package evaluate

import (
	"context"
	"fmt"
	"testing"

	"github.com/evalobs/evalapi/shared/store/storefault"
)

// TestStoreFaultMatrix fails each store call of one evaluation in turn, before it reaches
// the store and after it applied (a lost answer), then delivers the message again: the
// trace ends with its value, counted once in the roll-ups and the run summary.
func TestStoreFaultMatrix(t *testing.T) {
	count := func() int {
		e := newEnv(t, embeddedTable(t), 1, nil)
		msgs := e.dispatchAll()
		ft := storefault.New(e.tbl)
		if failed := NewEvaluator(ft, nil, newFakeJudge(), EvaluatorOptions{}).Handle(context.Background(), msgs); len(failed) != 0 {
			t.Fatalf("healthy run failed")
		}
		return ft.Count()
	}
	calls := count()
	if calls < 4 {
		t.Fatalf("a healthy evaluation made %d store calls; the matrix needs them", calls)
	}
	for at := 1; at <= calls; at++ {
		for _, applied := range []bool{false, true} {
			t.Run(fmt.Sprintf("call%d/applied=%v", at, applied), func(t *testing.T) {
				e := newEnv(t, embeddedTable(t), 1, nil)
				msgs := e.dispatchAll()
				ft := storefault.New(e.tbl, storefault.Fault{At: at, Err: storefault.ErrInjected, Applied: applied})
				j := newFakeJudge()
				failed := NewEvaluator(ft, nil, j, EvaluatorOptions{}).Handle(context.Background(), msgs)
				for try := 0; len(failed) > 0; try++ {
					if try == 3 {
						t.Fatalf("still failing after redeliveries")
					}
					failed = NewEvaluator(e.tbl, nil, j, EvaluatorOptions{}).Handle(context.Background(), msgs)
				}
				recs, rolls, sum := e.counted()
				if recs != 1 || rolls != 1 || sum != 1 {
					t.Errorf("counted on records %d, roll-ups %d, summary %d; want 1 each", recs, rolls, sum)
				}
				if n, in := e.usage(); n != 1 || in != 10 {
					t.Errorf("usage %d judgments, %d tokens; want 1, 10", n, in)
				}
			})
		}
	}
}
