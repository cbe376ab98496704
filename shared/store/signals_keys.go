package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Keys of signals runs and findings. Their ids are UUID4 (random), so order rides on the
// sort key: SRUN#<created_at>#<id> and SFIND#<created_at>#<id>, with a reference item
// (SRUNID#<id>, SFINDID#<id>) naming that key for the reads by id.
//
// Records stored before this layout have UUIDv7 ids and keys SRUN#<id>, SFIND#<id> with no
// reference: they are read where they are (a v7 id names its key). A v7 id starts with a
// hex "0" for any time before 2527 while a created_at starts with its year, so under one
// prefix the old keys sort before every new one and a descending query still lists all of
// them newest first, with no migration.

const (
	signalsRunPrefix     = "SRUN#"
	signalsFindingPrefix = "SFIND#"
	signalsRunRef        = "SRUNID#"
	signalsFindingRef    = "SFINDID#"
	entitySignalsRef     = "signals_ref"
)

// legacySignalsID reports whether id is a UUIDv7 of the former layout, keyed by id alone.
func legacySignalsID(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && u.Version() == 7
}

func signalsSK(prefix, id string, createdAt time.Time) string {
	if legacySignalsID(id) {
		return prefix + id
	}
	return prefix + createdAt.UTC().Format(recordTimeLayout) + "#" + id
}

// SignalsRunKey is the key of signals run r.
func SignalsRunKey(r SignalsRun) Key {
	return Key{PK: signalsRunsPK(r.RunID), SK: signalsSK(signalsRunPrefix, r.ID, r.CreatedAt)}
}

// SignalsFindingKey is the key of finding f.
func SignalsFindingKey(f SignalsFinding) Key {
	return Key{PK: signalsRunsPK(f.RunID), SK: signalsSK(signalsFindingPrefix, f.ID, f.CreatedAt)}
}

// signalsRefOp is the put of the reference of a record keyed k with id id (none for a
// legacy id, whose key is its id).
func signalsRefOp(ref, id string, k Key) (Op, bool) {
	if legacySignalsID(id) {
		return Op{}, false
	}
	return PutOp(Item{AttrPK: k.PK, AttrSK: ref + id, AttrEntity: entitySignalsRef, "record_sk": k.SK}, NotExists()), true
}

// signalsKeys resolves the keys of records ids of run runID through their references (one
// consistent batch read); an id with no reference (none stored) has no key and is left out.
func signalsKeys(ctx context.Context, t Table, runID, prefix, ref string, ids []string) (map[string]Key, error) {
	pk := signalsRunsPK(runID)
	out := make(map[string]Key, len(ids))
	var refs []Key
	for _, id := range ids {
		if legacySignalsID(id) {
			out[id] = Key{PK: pk, SK: prefix + id}
			continue
		}
		refs = append(refs, Key{PK: pk, SK: ref + id})
	}
	for start := 0; start < len(refs); start += MaxBatchGet {
		items, err := t.BatchGet(ctx, refs[start:min(start+MaxBatchGet, len(refs))], true)
		if err != nil {
			return nil, fmt.Errorf("read signals references of run %s: %w", runID, err)
		}
		for _, it := range items {
			sk, _ := it["record_sk"].(string)
			out[it.Key().SK[len(ref):]] = Key{PK: pk, SK: sk}
		}
	}
	return out, nil
}

// signalsKey resolves the key of one record; ErrNotFound when it has none.
func signalsKey(ctx context.Context, t Table, runID, prefix, ref, id string) (Key, error) {
	keys, err := signalsKeys(ctx, t, runID, prefix, ref, []string{id})
	if err != nil {
		return Key{}, err
	}
	k, ok := keys[id]
	if !ok {
		return Key{}, ErrNotFound
	}
	return k, nil
}
