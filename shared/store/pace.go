package store

import (
	"time"
)

// Pacing (docs/EVALUATION-PIPELINE.md "Budgets"): the dispatcher multiplies a scorer's
// sample rate by Pace, so that a daily budget lasts to the end of the UTC day instead of
// running out in its first hours. For each budget that applies (the stream's and the
// scorer's, tokens and USD):
//
//	pace = min(1, remaining / (avg × offered × left / elapsed))
//
// remaining = budget − (spent + reserved); avg = spent / judgments (today's average cost of
// a judgment in that budget's scope); offered = the judgments the dispatcher would have sent
// today at the unpaced rate (counter "off", at least the judgments made); elapsed = the time
// since 00:00 UTC (at least PaceWarmup, so the first minutes' few judgments are not
// extrapolated); left = the time to the day's end. avg × offered × left / elapsed is the spend
// the rest of the day would bring at the unpaced rate. The smallest pace of the budgets wins;
// a spent budget paces to 0; with no judgment yet today the pace is 1 (the reservations bound
// the first calls).

// PaceWarmup is the shortest part of the day the observed demand is extrapolated from.
const PaceWarmup = 15 * time.Minute

// Pace is the factor in [0, 1] by which budget b lowers scorerID's sample rates at now, given
// the day's usage u. 1 without a budget.
func Pace(b *JudgeBudget, u DayUsage, scorerID string, now time.Time) float64 {
	if b == nil {
		return 1
	}
	dayStart := now.UTC().Truncate(24 * time.Hour)
	elapsed := max(now.Sub(dayStart), PaceWarmup).Seconds()
	left := dayStart.Add(24 * time.Hour).Sub(now).Seconds()
	p := 1.0
	one := func(sc string, l BudgetLimit) {
		n := u.Judgments(sc)
		offered := max(u.num(scope("off", sc)), n)
		bt, bu := u.Committed(sc)
		if l.DailyTokens != nil {
			p = min(p, pace(float64(*l.DailyTokens-bt), float64(u.Tokens(sc)), n, offered, elapsed, left))
		}
		if l.DailyUSD != nil {
			usd := u.USD(sc)
			p = min(p, pace(float64(nanoUSD(*l.DailyUSD)-bu), float64(NanoUSD(&usd)), n, offered, elapsed, left))
		}
	}
	one("", b.BudgetLimit)
	if l, ok := b.Scorers[scorerID]; ok {
		one(scorerID, l)
	}
	return p
}

func pace(remaining, spent float64, n, offered int64, elapsed, left float64) float64 {
	if remaining <= 0 {
		return 0
	}
	if n == 0 || spent <= 0 || left <= 0 {
		return 1
	}
	need := spent / float64(n) * float64(offered) * left / elapsed
	return min(1, remaining/need)
}

// OfferedUpdate counts judgments the dispatcher offered (sampled at the unpaced rate) per
// scorer in the day's usage item: the demand the pacing extrapolates. An estimate: a
// redelivered stream batch may count twice.
func OfferedUpdate(runID string, day time.Time, perScorer map[string]int64) Update {
	add := map[string]int64{}
	for sc, n := range perScorer {
		add["off"] += n
		add["off#"+sc] = n
	}
	return Update{Key: UsageKey(runID, day), Set: map[string]any{AttrEntity: "judge_usage", "run_id": runID}, Add: add}
}
