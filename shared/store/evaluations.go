package store

import (
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
)

// Evaluation records (shared/evaluate):
//
//	record        PK            SK                                          notes
//	score claim   RUN#<run id>  SCORED#<record id>#<scorer id>#<version>   written in the transaction that writes the value
//
// The claim makes a (record, scorer version) count once: the transaction that writes a
// metric's value on the record and folds it into the roll-ups also creates the claim on the
// condition that it does not exist, so a redelivered message, a second worker or a retry
// after a lost answer fails on it and changes nothing. Claims live in the run's partition so
// that purging the run removes them.

// EntityScoreClaim names the claims.
const EntityScoreClaim = "score_claim"

// Metric states written on records by the evaluation pipeline (MetricValue.State). A value or
// an error needs no state: it is "scored" or "error".
const (
	MetricPending = "pending" // dispatched to the evaluator, not judged yet
	MetricSkipped = "skipped" // not sampled, or not applicable; Explanation says why
)

// ScoreClaimKey is the claim of one (record, scorer version) of a run.
func ScoreClaimKey(runID, recordID, scorerID string, version int64) Key {
	return Key{PK: "RUN#" + runID, SK: "SCORED#" + recordID + "#" + scorerID + "#" + strconv.FormatInt(version, 10)}
}

// ScoreClaimItem is the claim's item.
func ScoreClaimItem(k Key, metric string) Item {
	return Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntityScoreClaim, "metric": metric}
}

// Judge usage per log stream and day (UTC), per scorer: RUN#<run id> | USAGE#<yyyy-mm-dd>,
// folded in by the transaction that writes the judgment's result, so each answer counts
// once. Attributes: n, in, out (judgments, input and output tokens) and usd0..2 (the exact
// USD cost as shared/fixed limbs, judgments with a price only), each also per scorer
// ("in#<scorer id>" ...), and the budget counters bt and bu (budget.go).

// UsageKey is the usage item of a run's day.
func UsageKey(runID string, day time.Time) Key {
	return Key{PK: "RUN#" + runID, SK: "USAGE#" + day.UTC().Format("2006-01-02")}
}

// UsageUpdate folds one judgment's usage into its day's item.
func UsageUpdate(runID string, day time.Time, scorerID string, in, out int64, usd *fixed.Value) Update {
	add := map[string]int64{"n": 1, "in": in, "out": out, "n#" + scorerID: 1, "in#" + scorerID: in, "out#" + scorerID: out,
		"bt": in + out, "bt#" + scorerID: in + out} // the budget counters (budget.go)
	if nano := NanoUSD(usd); nano != 0 {
		add["bu"], add["bu#"+scorerID] = nano, nano
	}
	if usd != nil {
		for i, l := range usd.Limbs() {
			add["usd"+strconv.Itoa(i)] = l
			add["usd"+strconv.Itoa(i)+"#"+scorerID] = l
		}
	}
	return Update{Key: UsageKey(runID, day), Set: map[string]any{AttrEntity: "judge_usage", "run_id": runID}, Add: add}
}
