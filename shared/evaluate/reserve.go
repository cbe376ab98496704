package evaluate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// Reservations (docs/EVALUATION-PIPELINE.md "Budgets"): before asking the judge, a message of
// a log stream with a daily budget reserves an estimate of the call's cost in the day's
// counters, on the condition that every budget's spent + reserved stays within it. The
// transaction that writes the judgment releases the reservation and adds the actual usage
// (exactly once: the score's claim). So at any time spent + reserved ≤ budget, and the
// overshoot is the calls in flight's actual usage beyond their estimates.
//
// The reservation is an item per (record, scorer version): a redelivery, or a second worker
// on the same message, finds it and reuses it instead of reserving again; a delivery that
// will not write the judgment (the claim was written by another, the record is gone)
// releases it once (conditional delete). One whose judgment is never written (a message
// dead-lettered, a scorer removed meanwhile) holds only the counters of its day.

var (
	// errBudgetSpent: a budget of the day cannot pay the call's estimate.
	errBudgetSpent = errors.New("daily judge budget spent")
	// errBudgetBusy: the budget is reserved by calls in flight; the message comes back.
	errBudgetBusy = errors.New("daily judge budget reserved by calls in flight")
)

// reserve holds the message's reservation: the one a previous delivery made, else a new one.
func (e *Evaluator) reserve(ctx context.Context, m Message, l *loaded) (*store.Reservation, error) {
	b := *l.run.JudgeBudget
	key := store.ReservationKey(m.RunID, m.RecordID, m.ScorerID, l.version)
	now := e.now()
	var (
		held       *store.Reservation
		u          store.DayUsage
		errH, errU error
		wg         sync.WaitGroup
	)
	wg.Go(func() { held, errH = store.GetReservation(ctx, e.table, key) })
	wg.Go(func() { u, errU = store.GetDayUsage(ctx, e.table, m.RunID, now) })
	wg.Wait()
	if err := errors.Join(errH, errU); err != nil {
		return nil, fmt.Errorf("evaluate: reserve: %w", err)
	}
	if held != nil {
		return held, nil
	}
	est := estimate(b, u, m.ScorerID)
	if spent(b, u, m.ScorerID, est) {
		return nil, errBudgetSpent
	}
	if est.held {
		return nil, errBudgetBusy
	}
	r := store.Reservation{Key: key, Day: now, Tokens: est.reserveTokens, NanoUSD: est.reserveNano}
	err := e.table.Transact(ctx, store.ReserveOps(m.RunID, m.ScorerID, b, r))
	var tx *store.TxCanceledError
	switch {
	case err == nil:
		return &r, nil
	case errors.As(err, &tx) && tx.Failed() == 0: // another worker on this message reserved
		if held, err = store.GetReservation(ctx, e.table, key); err == nil && held != nil {
			return held, nil
		}
		return nil, errBudgetBusy
	case errors.As(err, &tx) && tx.Failed() == 1:
		if u, err = store.GetDayUsage(ctx, e.table, m.RunID, now); err == nil && spent(b, u, m.ScorerID, estimate(b, u, m.ScorerID)) {
			return nil, errBudgetSpent
		}
		return nil, errBudgetBusy
	}
	return nil, fmt.Errorf("evaluate: reserve: %w", err)
}

// release gives back a reservation this delivery will not use, once. The item under its
// key may not be the one this delivery read: after the judgment's write deleted it, a
// delivery that loaded the record before that write may have reserved again under the same
// key, at another estimate. Deleting that one while giving back this one's estimate would
// unbalance the counters (below the spend: the budget overspent), so the release holds only
// while the item is a reservation equal to this one.
func (e *Evaluator) release(ctx context.Context, m Message, r *store.Reservation) {
	if r == nil {
		return
	}
	err := e.table.Transact(ctx, store.ReleaseOps(m.RunID, m.ScorerID, *r, r.Same()...))
	if err != nil && !errors.Is(err, store.ErrConditionFailed) {
		e.log.Warn("evaluate: reservation not released (it holds its day's counters only)", "message_run", m.RunID, "error", err)
	}
}

// cost is an estimate of one call: the average of the scorer's judgments today (else of the
// stream's), and what is reserved. With no judgment yet today nothing is known of the cost,
// so the first call reserves the whole remaining budget: it runs alone, and the next ones
// reserve its actual cost.
//
// held: the cost is unknown and calls in flight hold all the room, so there is nothing to
// reserve; the message waits for them (errBudgetBusy). Reserving a placeholder instead (it
// was 1 token) is a check on a stale read: the usage was read while the first call held the
// whole budget, and its condition (counter ≤ budget − 1) holds as soon as that call has
// written its judgment, so every call so reserved ran on 1 token and overspent the budget by
// its whole cost.
type cost struct {
	avgTokens, avgNano         int64 // 0: unknown
	reserveTokens, reserveNano int64
	held                       bool
}

func estimate(b store.JudgeBudget, u store.DayUsage, scorerID string) cost {
	var c cost
	for _, sc := range []string{scorerID, ""} {
		if n := u.Judgments(sc); n > 0 && c.avgTokens == 0 && c.avgNano == 0 {
			usd := u.USD(sc)
			c.avgTokens = ceilDiv(u.Tokens(sc), n)
			c.avgNano = ceilDiv(store.NanoUSD(&usd), n)
		}
	}
	c.reserveTokens, c.reserveNano = c.avgTokens, c.avgNano
	remT, remU, hasT, hasU := remaining(b, u, scorerID)
	if c.avgTokens == 0 && hasT {
		c.reserveTokens, c.held = remT, remT <= 0
	}
	if c.avgNano == 0 && hasU {
		c.reserveNano, c.held = remU, c.held || remU <= 0
	}
	return c
}

// remaining is the least room (budget − spent − reserved) of the token and USD budgets that
// apply to scorerID.
func remaining(b store.JudgeBudget, u store.DayUsage, scorerID string) (tokens, nano int64, hasT, hasU bool) {
	each := func(sc string, l store.BudgetLimit) {
		bt, bu := u.Committed(sc)
		if l.DailyTokens != nil {
			tokens, hasT = minOr(tokens, *l.DailyTokens-bt, hasT), true
		}
		if l.DailyUSD != nil {
			nano, hasU = minOr(nano, store.NanoOfUSD(*l.DailyUSD)-bu, hasU), true
		}
	}
	each("", b.BudgetLimit)
	if l, ok := b.Scorers[scorerID]; ok {
		each(scorerID, l)
	}
	return tokens, nano, hasT, hasU
}

// spent: a budget's actual spend (reservations aside) leaves no room for one more call.
func spent(b store.JudgeBudget, u store.DayUsage, scorerID string, c cost) bool {
	over := func(sc string, l store.BudgetLimit) bool {
		usd := u.USD(sc)
		return l.DailyTokens != nil && u.Tokens(sc)+max(c.avgTokens, 1) > *l.DailyTokens ||
			l.DailyUSD != nil && store.NanoUSD(&usd)+max(c.avgNano, 1) > store.NanoOfUSD(*l.DailyUSD)
	}
	if over("", b.BudgetLimit) {
		return true
	}
	l, ok := b.Scorers[scorerID]
	return ok && over(scorerID, l)
}

// skipForBudget marks the record's metric skipped for the budget (no claim: an evaluate job
// may judge it later).
func (e *Evaluator) skipForBudget(ctx context.Context, m Message, l *loaded, sc store.ScorerConfig) error {
	w := records.ScoreWrite{Key: l.traceIt.Key(), Now: e.now(), Values: map[string]store.MetricValue{sc.MetricKey(): {
		State: store.MetricSkipped, Reason: store.SkipBudget, Explanation: "not judged: daily judge budget spent"}}}
	var err error
	if m.Kind == KindSpan {
		_, err = records.WriteSpanScore(ctx, e.table, w)
	} else {
		_, err = records.WriteScore(ctx, e.table, w)
	}
	if err != nil && !errors.Is(err, records.ErrScoreRecordGone) {
		return fmt.Errorf("evaluate: mark budget skip: %w", err)
	}
	return nil
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

func minOr(cur, v int64, has bool) int64 {
	if !has {
		return v
	}
	return min(cur, v)
}
