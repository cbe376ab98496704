package evaluate

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
)

// afterGet runs fn once, right after the first read of key returns: a write of another
// worker landing between this one's read and its transaction.
type afterGet struct {
	store.Table
	key  store.Key
	once *sync.Once
	fn   func()
}

func (a afterGet) Get(ctx context.Context, k store.Key, consistent bool) (store.Item, error) {
	it, err := a.Table.Get(ctx, k, consistent)
	if k == a.key {
		a.once.Do(a.fn)
	}
	return it, err
}

// loadMessage decodes and loads a message's body for reserve and release.
func loadMessage(t *testing.T, ev *Evaluator, body []byte) (Message, *loaded) {
	t.Helper()
	m, err := decodeMessage(body)
	if err != nil {
		t.Fatal(err)
	}
	l, skip, err := ev.load(context.Background(), m)
	if err != nil || skip {
		t.Fatalf("load: skip %v, %v", skip, err)
	}
	return m, &l
}

// checkLedger: the day's budget counter equals the spend, and no reservation is left.
func checkLedger(t *testing.T, tbl store.Table, wantSpent int64) {
	t.Helper()
	ctx := context.Background()
	u, err := store.GetDayUsage(ctx, tbl, runID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if bt, _ := u.Committed(""); bt != wantSpent || u.Tokens("") != wantSpent {
		t.Errorf("budget counter %d, spent %d; want %d both", bt, u.Tokens(""), wantSpent)
	}
	left, err := store.QueryAll(ctx, tbl, store.Query{PK: "RUN#" + runID, SKOp: store.SKPrefix, From: "RESERVE#", Consistent: true})
	if err != nil || len(left) != 0 {
		t.Errorf("%d reservations left (%v)", len(left), err)
	}
}

// TestReserveWhileFirstCallSettles: a worker reads the day's usage while the first call of
// the day (cost unknown) holds the whole budget, and that call writes its judgment before
// the worker's reservation. The worker must not reserve less than a call's cost on that
// stale read (it once reserved 1 token, and ran a 12-token call on it): it waits, and its
// redelivery reserves the first call's actual cost.
func TestReserveWhileFirstCallSettles(t *testing.T) {
	testenv.EachTable(t, reserveWhileFirstCallSettles)
}

func reserveWhileFirstCallSettles(t *testing.T, tbl store.Table) {
	ctx := context.Background()
	e := newEnv(t, tbl, 2, nil)
	msgs := e.dispatchAll()
	setBudget(t, tbl, tokens(100))
	ev := NewEvaluator(tbl, nil, nil, EvaluatorOptions{})
	m0, l0 := loadMessage(t, ev, msgs[0].Body)
	first, err := ev.reserve(ctx, m0, l0)
	if err != nil || first.Tokens != 100 {
		t.Fatalf("first call reserved %+v (%v), want the whole budget", first, err)
	}

	settle := func() {
		if err := tbl.Transact(ctx, store.UsageOps(runID, time.Now(), scorerID, 10, 2, nil, first)); err != nil {
			t.Error(err)
		}
	}
	racing := NewEvaluator(afterGet{Table: tbl, key: store.UsageKey(runID, time.Now()), once: &sync.Once{}, fn: settle}, nil, nil, EvaluatorOptions{})
	m1, l1 := loadMessage(t, racing, msgs[1].Body)
	if r, err := racing.reserve(ctx, m1, l1); !errors.Is(err, errBudgetBusy) {
		t.Fatalf("reserved %+v (%v) on a read of the whole budget held; want %v", r, err, errBudgetBusy)
	}
	again, err := ev.reserve(ctx, m1, l1)
	if err != nil || again.Tokens != 12 {
		t.Fatalf("the redelivery reserved %+v (%v), want the first call's 12 tokens", again, err)
	}
	if err := tbl.Transact(ctx, store.UsageOps(runID, time.Now(), scorerID, 10, 2, nil, again)); err != nil {
		t.Fatal(err)
	}
	checkLedger(t, tbl, 24)
}

// TestReleaseOfReplacedReservation: workers A and B hold a message's reservation; A writes
// the judgment (deleting it); C, which loaded the record before that write, reserves again
// under the same key; B and C, losers of the claim, release. Whatever the two estimates,
// the counters end equal to the spend: B gives back nothing of C's reservation unless it is
// equal to its own (it once gave back its 100 tokens for C's 12, leaving the counter 88
// below the spend and the budget open to overspending).
func TestReleaseOfReplacedReservation(t *testing.T) {
	cases := []struct {
		name    string
		budget  int64
		before  int   // judgments of 120 tokens earlier today
		in, out int64 // A's call
	}{
		{"first call's whole budget, then its cost", 100, 0, 10, 2},
		{"the same average twice", 1000, 1, 100, 20},
		{"another average", 1000, 1, 10, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
				ctx := context.Background()
				e := newEnv(t, tbl, 1, nil)
				msgs := e.dispatchAll()
				setBudget(t, tbl, tokens(c.budget))
				spendDay(t, tbl, time.Now(), c.before, 0)
				ev := NewEvaluator(tbl, nil, nil, EvaluatorOptions{})
				m, l := loadMessage(t, ev, msgs[0].Body)
				a, err := ev.reserve(ctx, m, l)
				if err != nil {
					t.Fatal(err)
				}
				b, err := ev.reserve(ctx, m, l)
				if err != nil || b.Key != a.Key || b.Tokens != a.Tokens {
					t.Fatalf("B holds %+v (%v), want A's %+v", b, err, a)
				}
				if err := tbl.Transact(ctx, store.UsageOps(runID, time.Now(), scorerID, c.in, c.out, nil, a)); err != nil {
					t.Fatal(err)
				}
				cr, err := ev.reserve(ctx, m, l)
				if err != nil {
					t.Fatal(err)
				}
				ev.release(ctx, m, b)
				ev.release(ctx, m, cr)
				checkLedger(t, tbl, int64(c.before)*120+c.in+c.out)
			})
		})
	}
}
