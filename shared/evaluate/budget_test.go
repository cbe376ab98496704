package evaluate

import (
	"context"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

// slowTable gives every call a round-trip time, so that calls made at once overlap as they
// do against DynamoDB and storecount sees their sequential depth.
type slowTable struct {
	store.Table
	rtt time.Duration
}

func (s slowTable) Get(ctx context.Context, k store.Key, c bool) (store.Item, error) {
	time.Sleep(s.rtt)
	return s.Table.Get(ctx, k, c)
}

func (s slowTable) Transact(ctx context.Context, ops []store.Op) error {
	time.Sleep(s.rtt)
	return s.Table.Transact(ctx, ops)
}

func (s slowTable) Query(ctx context.Context, q store.Query) (store.Page, error) {
	time.Sleep(s.rtt)
	return s.Table.Query(ctx, q)
}

// TestJudgmentRoundTrips: one judgment of a pinned scorer version on a trace without large
// payloads is two sequential waves of store calls: the reads (trace, run, claim) at once,
// then the one transaction of the value, its roll-ups and its claim.
func TestJudgmentRoundTrips(t *testing.T) {
	e := newEnv(t, embeddedTable(t), 3, nil)
	msgs := e.dispatchAll()
	for i, m := range msgs {
		counted := storecount.New(slowTable{Table: e.tbl, rtt: 20 * time.Millisecond})
		if failed := NewEvaluator(counted, nil, newFakeJudge(), EvaluatorOptions{}).Handle(context.Background(), msgs[i:i+1]); len(failed) != 0 {
			t.Fatal("evaluation failed")
		}
		c := counted.Snapshot()
		if c.Depth > 2 || c.Calls["Transact"] != 1 || c.Total > 5 {
			t.Errorf("message %s: %s; want depth 2, one transaction, at most 5 calls", m.ID, c)
		}
	}
}
