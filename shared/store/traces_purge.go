package store

import (
	"context"
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
