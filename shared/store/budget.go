package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
)

// Daily judge budgets (beyond the specification, issue 16 point 7; docs/EVALUATION-PIPELINE.md
// "Budgets"). A log stream's metric settings may hold a daily budget in tokens and/or USD for
// the whole stream and per scorer. The day is UTC; its usage item (UsageKey) counts, besides
// the spend, the budget counters:
//
//	bt, bt#<scorer>   tokens spent (input + output) + tokens reserved by calls in flight
//	bu, bu#<scorer>   nano-USD spent + reserved
//
// A reservation is made before each judge call (ReserveOps) on the condition that every
// budget's counter stays ≤ its budget, and released by the transaction that writes the
// judgment (UsageOps), which adds the actual usage instead: overshoot is bounded by the
// difference between the estimates of the calls in flight and their actual usage.
//
//	record        PK            SK                                          notes
//	reservation   RUN#<run id>  RESERVE#<record id>#<scorer id>#<version>   the estimate of one judgment's call, until it is written

// BudgetLimit is a daily limit; a nil field is unlimited.
type BudgetLimit struct {
	DailyTokens *int64   `json:"daily_tokens"`
	DailyUSD    *float64 `json:"daily_usd"`
}

// JudgeBudget is a log stream's daily judge budget: one for the stream (all its scorers
// together) and one per scorer id, each optional.
type JudgeBudget struct {
	BudgetLimit
	Scorers map[string]BudgetLimit `json:"scorers,omitempty"`
}

// SkipBudget is the not_applicable_reason of a judgment held back by the budget.
const SkipBudget = "budget"

// EntityReservation names the reservations.
const EntityReservation = "judge_reservation"

// NanoOfUSD converts USD to the counters' integer unit.
func NanoOfUSD(usd float64) int64 { return int64(math.Round(usd * 1e9)) }

func nanoUSD(usd float64) int64 { return NanoOfUSD(usd) }

// NanoUSD is the counters' unit of a fixed USD amount.
func NanoUSD(v *fixed.Value) int64 {
	if v == nil {
		return 0
	}
	return nanoUSD(v.Float64())
}

// DayUsage is a run's usage item of one day, as read.
type DayUsage struct {
	item Item
}

// GetDayUsage reads the run's usage of day (strongly consistent); empty when none.
func GetDayUsage(ctx context.Context, t Table, runID string, day time.Time) (DayUsage, error) {
	it, err := t.Get(ctx, UsageKey(runID, day), true)
	if errors.Is(err, ErrNotFound) {
		return DayUsage{}, nil
	}
	if err != nil {
		return DayUsage{}, fmt.Errorf("read usage of run %s: %w", runID, err)
	}
	return DayUsage{item: it}, nil
}

func scope(attr, scorerID string) string {
	if scorerID == "" {
		return attr
	}
	return attr + "#" + scorerID
}

func (u DayUsage) num(attr string) int64 {
	switch v := u.item[attr].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// Judgments is the count of the day's judgments of scorerID ("" for the stream).
func (u DayUsage) Judgments(scorerID string) int64 { return u.num(scope("n", scorerID)) }

// Tokens is the day's tokens spent (input + output).
func (u DayUsage) Tokens(scorerID string) int64 {
	return u.num(scope("in", scorerID)) + u.num(scope("out", scorerID))
}

// USD is the day's exact USD spent (of the judgments with a price).
func (u DayUsage) USD(scorerID string) fixed.Value {
	var l [3]int64
	for i := range l {
		l[i] = u.num(scope("usd"+strconv.Itoa(i), scorerID))
	}
	v, err := fixed.FromLimbs(l)
	if err != nil {
		return fixed.Value{}
	}
	return v
}

// Committed is the day's budget counters: tokens and nano-USD spent or reserved.
func (u DayUsage) Committed(scorerID string) (tokens, nano int64) {
	return u.num(scope("bt", scorerID)), u.num(scope("bu", scorerID))
}

// Reservation is the estimate reserved for one judgment's call.
type Reservation struct {
	Key     Key
	Day     time.Time // the day whose counters hold it
	Tokens  int64
	NanoUSD int64
}

// ReservationKey is the reservation of one (record, scorer version) of a run.
func ReservationKey(runID, recordID, scorerID string, version int64) Key {
	return Key{PK: "RUN#" + runID, SK: "RESERVE#" + recordID + "#" + scorerID + "#" + strconv.FormatInt(version, 10)}
}

// GetReservation reads a reservation; nil when there is none.
func GetReservation(ctx context.Context, t Table, k Key) (*Reservation, error) {
	it, err := t.Get(ctx, k, true)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read reservation: %w", err)
	}
	ds, _ := it["day"].(string)
	day, _ := time.Parse("2006-01-02", ds)
	u := DayUsage{item: it}
	return &Reservation{Key: k, Day: day, Tokens: u.num("t"), NanoUSD: u.num("u")}, nil
}

// ReserveOps are the transaction that reserves r for scorerID under budget b: the
// reservation item (created, or the transaction fails on it: index 0) and the day's
// counters, each on the condition that it stays within its budget (index 1).
func ReserveOps(runID, scorerID string, b JudgeBudget, r Reservation) []Op {
	var conds []Cond
	limit := func(attr string, l BudgetLimit) {
		if l.DailyTokens != nil {
			conds = append(conds, AtMost(scope("bt", attr), *l.DailyTokens-r.Tokens))
		}
		if l.DailyUSD != nil {
			conds = append(conds, AtMost(scope("bu", attr), nanoUSD(*l.DailyUSD)-r.NanoUSD))
		}
	}
	limit("", b.BudgetLimit)
	if l, ok := b.Scorers[scorerID]; ok {
		limit(scorerID, l)
	}
	item := Item{AttrPK: r.Key.PK, AttrSK: r.Key.SK, AttrEntity: EntityReservation,
		"day": r.Day.UTC().Format("2006-01-02"), "t": r.Tokens, "u": r.NanoUSD,
		// A reservation whose judgment is never written (a dropped or dead-lettered message)
		// holds its day's counters only, and its item expires two days later.
		AttrExpiresAt: r.Day.UTC().Truncate(24 * time.Hour).Add(72 * time.Hour).Unix()}
	add := map[string]int64{"bt": r.Tokens, "bu": r.NanoUSD, scope("bt", scorerID): r.Tokens, scope("bu", scorerID): r.NanoUSD}
	return []Op{PutOp(item, NotExists()), UpdateOp(Update{Key: UsageKey(runID, r.Day),
		Set: map[string]any{AttrEntity: "judge_usage", "run_id": runID}, Add: add, Conds: conds})}
}

// Same are the conditions that the reservation under r's key is equal to r: of its day, of
// its estimate. Releasing such a one gives its counters back exactly what it added, whoever
// reserved it; releasing another (reserved again under the key, at another estimate, after r
// was deleted) would not.
func (r Reservation) Same() []Cond {
	return []Cond{Equals("day", r.Day.UTC().Format("2006-01-02")), Equals("t", r.Tokens), Equals("u", r.NanoUSD)}
}

// ReleaseOps give a reservation back: the reservation's deletion (with conds: r.Same() when
// alone, so that it is released once, and only its own estimate is given back) and its
// counters'.
func ReleaseOps(runID, scorerID string, r Reservation, conds ...Cond) []Op {
	return []Op{DeleteOp(r.Key, conds...), UpdateOp(Update{Key: UsageKey(runID, r.Day),
		Add: map[string]int64{"bt": -r.Tokens, "bu": -r.NanoUSD, scope("bt", scorerID): -r.Tokens, scope("bu", scorerID): -r.NanoUSD}})}
}

// UsageOps fold one judgment's usage into the day's item of now and release its
// reservation (nil: none), for the transaction that writes the judgment (whose claim makes
// them happen once).
func UsageOps(runID string, now time.Time, scorerID string, in, out int64, usd *fixed.Value, r *Reservation) []Op {
	u := UsageUpdate(runID, now, scorerID, in, out, usd)
	if r == nil {
		return []Op{UpdateOp(u)}
	}
	ops := []Op{DeleteOp(r.Key)}
	if UsageKey(runID, r.Day) == u.Key {
		for _, a := range []string{"bt", scope("bt", scorerID)} {
			u.Add[a] -= r.Tokens
		}
		for _, a := range []string{"bu", scope("bu", scorerID)} {
			u.Add[a] -= r.NanoUSD
		}
		return append(ops, UpdateOp(u))
	}
	return append(ops, UpdateOp(u), UpdateOp(Update{Key: UsageKey(runID, r.Day),
		Add: map[string]int64{"bt": -r.Tokens, "bu": -r.NanoUSD, scope("bt", scorerID): -r.Tokens, scope("bu", scorerID): -r.NanoUSD}}))
}
