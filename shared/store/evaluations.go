package store

import "strconv"

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
