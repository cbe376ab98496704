package store

import (
	"context"
	"errors"
	"fmt"
)

// DeletedTraceID reports whether old, the image of a removed item, is a trace's item, and
// which trace: its spans and large contents are then purged (a deletion request, or the
// purge of its run, removed only the trace's own item).
func DeletedTraceID(old Item) (string, bool) {
	if old[AttrEntity] != EntityTrace {
		return "", false
	}
	id, _ := old["trace_id"].(string)
	return id, id != ""
}

// TraceMoved reports whether old, the image of a removed trace item, was moved rather than
// deleted: a trace whose creation time changed (an OTLP placeholder its root arrived for)
// is deleted and put again at its new key in one transaction that also points the claim
// of its id there. Its spans and contents stay. A deleted trace's claim keeps naming the
// removed key.
func TraceMoved(ctx context.Context, t Table, old Item) (bool, error) {
	runID, _ := old["run_id"].(string)
	id, _ := old["trace_id"].(string)
	claim, err := t.Get(ctx, RecordClaimKey(runID, id), true)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim of trace %s: %w", id, err)
	}
	sk, _ := claim["record_sk"].(string)
	if sk == "" || sk == old.Key().SK {
		return false, nil
	}
	_, err = t.Get(ctx, Key{PK: old.Key().PK, SK: sk}, true)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("trace %s: %w", id, err)
	}
	return true, nil
}

// PurgeTraceSpans deletes every span of a trace, a page at a time, calling each (when not
// nil) with every span's item before it goes; it answers how many it deleted. Running it
// again deletes what is left.
func PurgeTraceSpans(ctx context.Context, t Table, traceID string, each func(Item) error) (int, error) {
	q := Query{PK: tracePartition(traceID), Limit: purgePage, Consistent: true}
	n := 0
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return n, fmt.Errorf("purge spans of %s: %w", traceID, err)
		}
		keys := make([]Key, len(p.Items))
		for i, it := range p.Items {
			if each != nil {
				if err := each(it); err != nil {
					return n, err
				}
			}
			keys[i] = it.Key()
		}
		if err := datasetDeleteAll(ctx, t, keys); err != nil {
			return n, fmt.Errorf("purge spans of %s: %w", traceID, err)
		}
		n += len(keys)
		if p.Next == nil {
			return n, nil
		}
		q.Start = p.Next
	}
}

// RecordContentOf decodes the content of a trace or span item (payload pointers included).
func RecordContentOf(it Item) (RecordContent, error) {
	var c RecordContent
	err := decodeContent(it, &c)
	return c, err
}
