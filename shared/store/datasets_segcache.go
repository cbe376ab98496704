package store

import (
	"context"
	"iter"

	"github.com/evalobs/evalapi/shared/bounded"
)

// Segments are never rewritten (datasets.go: an edit writes new segments under new ids), so
// the rows that one strongly consistent read of a segment returned are the rows every later
// read of it returns. ContentRows keeps the rows of the segments it read in a process-wide
// cache, bounded in bytes, so that reading a page of a version again costs neither the
// segments' read nor their decoding (which was half of a 100-row page's CPU): on Lambda an
// instance answers later reads of the same version from memory. The cache is built by the
// process (groups.Datasets, once per function instance) and handed to the readers that
// serve pages; other readers (copies, experiment runs) read through ContentRows, uncached. What is read is still
// decided afresh by each request: the dataset's META (its version and manifest) is read
// strongly consistently before its content, so a deleted dataset's segments are never
// reached, and a new version names new segments. Writers never read through the cache
// (an edit reads its segments with readSegments).

// DefaultSegmentCacheBytes bounds a cache: the sizes of the rows it holds, as
// DatasetRowSize counts them plus segmentRowOverhead per row (about the items' sizes).
const DefaultSegmentCacheBytes = 32 << 20

// SegmentCache holds decoded segments by dataset and segment id. A full cache starts over,
// as the credential caches do: simpler than an LRU, and a miss costs one read. Safe for
// concurrent use; a nil *SegmentCache caches nothing.
type SegmentCache struct {
	c *bounded.Cache[[]DatasetRow] // rows read only: shared by every reader
}

func segmentCacheKey(datasetID, seg string) string { return datasetID + "/" + seg }

// NewSegmentCache returns an empty cache of at most maxBytes of rows.
func NewSegmentCache(maxBytes int) *SegmentCache {
	return &SegmentCache{c: bounded.New[[]DatasetRow](maxBytes)}
}

func (c *SegmentCache) get(key string) ([]DatasetRow, bool) { return c.c.Get(key) }

func (c *SegmentCache) put(key string, rows []DatasetRow) {
	size := 0
	for _, r := range rows {
		size += DatasetRowSize(r.Values) + segmentRowOverhead
	}
	c.c.Put(key, rows, size)
}

// ContentRows is store.ContentRows through the cache.
func (c *SegmentCache) ContentRows(ctx context.Context, t Table, st ContentState, start, end int64) iter.Seq2[DatasetRow, error] {
	return contentRows(ctx, t, st, start, end, c.segments)
}

// segments is readSegments through the cache: the segments of entries it lacks are read in
// one batch read and kept. The rows returned are shared: read only.
func (c *SegmentCache) segments(ctx context.Context, t Table, id string, entries []SegmentRef) (map[string][]DatasetRow, error) {
	if c == nil {
		return readSegments(ctx, t, id, entries)
	}
	out := make(map[string][]DatasetRow, len(entries))
	var missing []SegmentRef
	for _, e := range entries {
		if _, done := out[e.Seg]; done {
			continue
		}
		if rows, ok := c.get(segmentCacheKey(id, e.Seg)); ok {
			out[e.Seg] = rows
		} else {
			missing = append(missing, e)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	read, err := readSegments(ctx, t, id, missing)
	if err != nil {
		return nil, err
	}
	for seg, rows := range read {
		c.put(segmentCacheKey(id, seg), rows)
		out[seg] = rows
	}
	return out, nil
}
