package store

import (
	"time"

	"github.com/google/uuid"
)

// Keys of signals runs and findings. Their ids are UUID4 (random), so order rides on the
// sort key. Each record is two items with the same attributes: one keyed by time for the
// lists (SRUN#<created_at>#<id>, SFIND#<created_at>#<id>) and one keyed by id for the reads
// by id (SRUNID#<id>, SFINDID#<id>), written and updated together in one transaction, so a
// read by id stays one round trip.
//
// Records stored before this layout have UUIDv7 ids and one item each, SRUN#<id> or
// SFIND#<id>, which serves both: a v7 id names it. A v7 id starts with a hex "0" for any
// time before 2527 while a created_at starts with its year, so under one prefix the old
// keys sort before every new one and a descending query still lists all of them newest
// first, with no migration.

const (
	signalsRunPrefix     = "SRUN#"
	signalsFindingPrefix = "SFIND#"
	signalsRunByID       = "SRUNID#"
	signalsFindingByID   = "SFINDID#"
)

// legacySignalsID reports whether id is a UUIDv7 of the former layout, keyed by id alone.
func legacySignalsID(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && u.Version() == 7
}

// signalsIDKey is the key of the item of record id that reads by id find.
func signalsIDKey(runID, prefix, byID, id string) Key {
	if legacySignalsID(id) {
		return Key{PK: signalsRunsPK(runID), SK: prefix + id}
	}
	return Key{PK: signalsRunsPK(runID), SK: byID + id}
}

// signalsKeys are the keys of the items of a record: by time and by id, or the one item of
// a legacy record.
func signalsKeys(runID, prefix, byID, id string, createdAt time.Time) []Key {
	if legacySignalsID(id) {
		return []Key{{PK: signalsRunsPK(runID), SK: prefix + id}}
	}
	return []Key{{PK: signalsRunsPK(runID), SK: prefix + createdAt.UTC().Format(recordTimeLayout) + "#" + id},
		{PK: signalsRunsPK(runID), SK: byID + id}}
}

// SignalsRunKey is the key of signals run r in its list (the one item of a legacy run).
func SignalsRunKey(r SignalsRun) Key { return signalsRunKeys(r)[0] }

func signalsRunKeys(r SignalsRun) []Key {
	return signalsKeys(r.RunID, signalsRunPrefix, signalsRunByID, r.ID, r.CreatedAt)
}

func signalsFindingKeys(f SignalsFinding) []Key {
	return signalsKeys(f.RunID, signalsFindingPrefix, signalsFindingByID, f.ID, f.CreatedAt)
}

// signalsPuts are the puts of every item of a record (it holds the attributes), each under
// conds.
func signalsPuts(it Item, keys []Key, conds ...Cond) []Op {
	ops := make([]Op, len(keys))
	for i, k := range keys {
		ops[i] = PutOp(it.With(AttrPK, k.PK, AttrSK, k.SK), conds...)
	}
	return ops
}

// signalsUpdates are the updates of every item of a record, each under conds.
func signalsUpdates(keys []Key, set map[string]any, conds ...Cond) []Op {
	ops := make([]Op, len(keys))
	for i, k := range keys {
		ops[i] = UpdateOp(Update{Key: k, Set: set, Conds: conds})
	}
	return ops
}
