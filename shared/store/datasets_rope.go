package store

import (
	"context"
	"fmt"
	"iter"
)

// Reading a version's content: its columns and manifest (ContentState), and its rows in
// index order, a segment at a time (see the package notes in datasets.go).

// Sizes of segments and manifests.
const (
	// segmentRows and segmentBytes bound a segment: an edit of one row rewrites the
	// segment that holds it, and a page of rows reads the segments it spans.
	segmentRows  = 250
	segmentBytes = 256 << 10
	// inlineManifest is the most segments a manifest may have to also sit in META, so
	// that reading the current version costs no read of MAN#<version>.
	inlineManifest = 40
	// datasetAttempts bounds the re-reads of a writer that lost a race on META.
	datasetAttempts = 5
)

// ContentState is what reading a version's content needs: its columns and its manifest.
type ContentState struct {
	DatasetID string
	OrgID     string
	Version   int64
	Columns   []DatasetColumn
	Manifest  []SegmentRef
}

// RowCount is the number of rows of the version.
func (s ContentState) RowCount() int64 {
	var n int64
	for _, e := range s.Manifest {
		n += e.N
	}
	return n
}

// ColumnNames are the names of the version's columns, in order.
func (s ContentState) ColumnNames() []string { return columnNames(s.Columns) }

// CurrentState is the content state of dataset d's current version (as read): its manifest
// is d's, or, when d does not hold it, read from MAN#<version>.
func CurrentState(ctx context.Context, t Table, d Dataset) (ContentState, error) {
	st := ContentState{DatasetID: d.ID, OrgID: d.OrgID, Version: d.Version, Columns: d.Columns, Manifest: d.Manifest}
	if !d.ManifestStored {
		return st, nil
	}
	m, err := readManifest(ctx, t, d.ID, d.Version)
	st.Manifest = m
	return st, err
}

func readManifest(ctx context.Context, t Table, id string, v int64) ([]SegmentRef, error) {
	s, err := getStored(ctx, t, datasetManifestKey(id, v), true)
	if err != nil {
		return nil, fmt.Errorf("manifest %d of dataset %s: %w", v, id, err)
	}
	return manifestOf(s)
}

func manifestFrom(it Item) ([]SegmentRef, error) { return manifestOf(StoredOf(it)) }

func manifestOf(s StoredItem) ([]SegmentRef, error) {
	var m struct {
		Entries []SegmentRef `json:"entries"`
	}
	if err := s.Decode(&m); err != nil {
		return nil, err
	}
	if m.Entries == nil {
		m.Entries = []SegmentRef{}
	}
	return m.Entries, nil
}

func manifestItem(id, orgID string, v int64, entries []SegmentRef) (Item, error) {
	it, err := Marshal(struct {
		OrgID   string       `json:"org_id"`
		Entries []SegmentRef `json:"entries"`
	}{orgID, entries})
	if err != nil {
		return nil, err
	}
	return itemAt(datasetManifestKey(id, v), it, AttrEntity, EntityDatasetManifest), nil
}

// DatasetRows yields the rows of d's current version with start <= index < end, in index
// order (see ContentRows).
func DatasetRows(ctx context.Context, t Table, d Dataset, start, end int64) iter.Seq2[DatasetRow, error] {
	return func(yield func(DatasetRow, error) bool) {
		st, err := CurrentState(ctx, t, d)
		if err != nil {
			yield(DatasetRow{}, err)
			return
		}
		for r, err := range ContentRows(ctx, t, st, start, end) {
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

// rowsPerRead is how many segments one batch read of content takes (at most 2.5 MB).
const rowsPerRead = 10

// ContentRows yields the rows of the version st with start <= index < end, in index order,
// their values in the version's column order. Segments are read a few at a time, as the
// caller consumes rows; a page costs the segments it spans at any offset, and a caller that
// stops early reads no further. Reads are strongly consistent (SegmentCache.ContentRows
// keeps the segments it read). A row's Values slice is the caller's; values nested in it
// (objects, lists) may be shared with other readers of a cache: read them only.
func ContentRows(ctx context.Context, t Table, st ContentState, start, end int64) iter.Seq2[DatasetRow, error] {
	return contentRows(ctx, t, st, start, end, readSegments)
}

// segmentReader reads the segments of entries of dataset id, by segment id.
type segmentReader func(ctx context.Context, t Table, id string, entries []SegmentRef) (map[string][]DatasetRow, error)

func contentRows(ctx context.Context, t Table, st ContentState, start, end int64, read segmentReader) iter.Seq2[DatasetRow, error] {
	return func(yield func(DatasetRow, error) bool) {
		end = min(end, st.RowCount())
		if start < 0 || start >= end {
			return
		}
		var block []any // the rows' values, carved out of one allocation per 64 rows
		// The first segment of the range and the index of its first row.
		first, at := 0, int64(0)
		for first < len(st.Manifest) && at+st.Manifest[first].N <= start {
			at += st.Manifest[first].N
			first++
		}
		for i := first; i < len(st.Manifest) && at < end; {
			group := st.Manifest[i:min(i+rowsPerRead, len(st.Manifest))]
			segs, err := read(ctx, t, st.DatasetID, group)
			if err != nil {
				yield(DatasetRow{}, err)
				return
			}
			for _, e := range group {
				for _, r := range segs[e.Seg] {
					if at >= start && at < end {
						r.Index = at
						r.Values = bySlotsIn(&block, r.Values, st.Columns)
						if !yield(r, nil) {
							return
						}
					}
					at++
				}
			}
			i += len(group)
		}
	}
}

// readSegments reads the segments of entries (one batch read), by segment id. A segment
// the manifest names and the table lacks is an error: manifests only name written ones.
func readSegments(ctx context.Context, t Table, id string, entries []SegmentRef) (map[string][]DatasetRow, error) {
	keys := make([]Key, 0, len(entries))
	seen := map[string]bool{}
	for _, e := range entries {
		if !seen[e.Seg] {
			seen[e.Seg] = true
			keys = append(keys, datasetSegmentKey(id, e.Seg))
		}
	}
	items, err := datasetGetAll(ctx, t, keys, true)
	if err != nil {
		return nil, fmt.Errorf("segments of dataset %s: %w", id, err)
	}
	out := make(map[string][]DatasetRow, len(items))
	for _, it := range items {
		rows, err := rowsOfSegment(it)
		if err != nil {
			return nil, err
		}
		seg := it.Key().SK[len("SEG#"):]
		out[seg] = rows
	}
	for seg := range seen {
		if _, ok := out[seg]; !ok {
			return nil, fmt.Errorf("dataset %s: segment %s of its manifest is missing", id, seg)
		}
	}
	return out, nil
}

// bySlotsIn turns values stored by slot into the values of cols, in order (nil where a row
// has no value for a column added after it), in a slice taken from *block, refilled 64 rows
// at a time: one allocation per row was half of a content page's. Each result has its own
// capacity, so an append to one cannot reach the next.
func bySlotsIn(block *[]any, stored []any, cols []DatasetColumn) []any {
	n := len(cols)
	if len(*block) < n {
		*block = make([]any, n*64)
	}
	out := (*block)[:n:n]
	*block = (*block)[n:]
	for i, c := range cols {
		if c.Slot < int64(len(stored)) {
			out[i] = stored[c.Slot]
		}
	}
	return out
}
