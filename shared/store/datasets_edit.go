package store

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Editing a dataset's content: the edits of the original's clients, applied to the rope of
// the current version (datasets_rope.go) and committed as the next version
// (datasets_commit.go).

// Kinds of content edit (the original's edit_type values; copy_record_data arrives as
// appended or prepended rows).
const (
	EditAppendRow    = "append_row"
	EditPrependRow   = "prepend_row"
	EditUpdateRow    = "update_row"
	EditDeleteRow    = "delete_row"
	EditFilterRows   = "filter_rows"
	EditRenameColumn = "rename_column"
	EditRemoveColumn = "remove_column"
)

// DatasetEdit is one edit of a dataset's content.
type DatasetEdit struct {
	Kind      string
	RowID     string         // update, delete: the row; append, prepend: the new row's id
	Values    map[string]any // update: new values by column; append, prepend: the row's (absent columns are null)
	RowIDs    []string       // filter_rows: the rows to keep, every other row goes
	Column    string         // rename, remove: the column
	NewColumn string         // rename: its new name
}

// ropeEntry is one entry of a manifest being edited: rows is filled when loaded.
type ropeEntry struct {
	slot, seg string
	n         int64
	rows      []DatasetRow
	loaded    bool
	dirty     bool
}

// rope is a version's content being edited into the next.
type rope struct {
	id, orgID string
	entries   []*ropeEntry
	cols      []DatasetColumn
	nextSlot  int64
	where     map[string]*ropeEntry // row id -> its entry, for loaded entries
	added     map[string]bool       // rows this write adds
	edited    map[string]bool       // rows of the version this write changes
	repair    map[string]bool       // rows whose locator names another slot
	gone      []string              // rows this write removes
	stats     versionStats
}

// versionStats is what a version changed, as its record shows it.
type versionStats struct {
	RowsAdded      int64 `json:"rows_added"`
	RowsRemoved    int64 `json:"rows_removed"`
	RowsEdited     int64 `json:"rows_edited"`
	ColumnsAdded   int64 `json:"columns_added"`
	ColumnsRemoved int64 `json:"columns_removed"`
	ColumnsRenamed int64 `json:"columns_renamed"`
}

func newRope(st ContentState, nextSlot int64) *rope {
	r := &rope{id: st.DatasetID, orgID: st.OrgID, cols: slices.Clone(st.Columns), nextSlot: nextSlot,
		where: map[string]*ropeEntry{}, added: map[string]bool{}, edited: map[string]bool{}, repair: map[string]bool{}}
	for _, e := range st.Manifest {
		r.entries = append(r.entries, &ropeEntry{slot: e.Slot, seg: e.Seg, n: e.N})
	}
	return r
}

// load reads the segments the edits need: those holding the rows they name (found by their
// locators), the first for a prepend, the last for an append, every one for a filter.
func (r *rope) load(ctx context.Context, t Table, edits []DatasetEdit) error {
	all := false
	var ids []string
	for _, e := range edits {
		switch e.Kind {
		case EditFilterRows:
			all = true
		case EditUpdateRow, EditDeleteRow, EditAppendRow, EditPrependRow:
			ids = append(ids, e.RowID)
		}
	}
	if all || len(r.entries) == 0 {
		return r.loadEntries(ctx, t, r.entries)
	}
	// A row named by an edit whose locator sends nowhere useful is looked for everywhere,
	// and its locator rewritten with the commit.
	scan := func() error {
		if err := r.loadEntries(ctx, t, r.entries); err != nil {
			return err
		}
		for _, id := range ids {
			if r.where[id] != nil {
				r.repair[id] = true
			}
		}
		return nil
	}
	var want []*ropeEntry
	// New rows go into the first or last segment while it has room, else into a new one.
	for _, e := range edits {
		switch end := r.entries[len(r.entries)-1]; {
		case e.Kind == EditAppendRow && end.n < int64(segmentRows):
			want = append(want, end)
		case e.Kind == EditPrependRow && r.entries[0].n < int64(segmentRows):
			want = append(want, r.entries[0])
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	keys := make([]Key, len(ids))
	for i, id := range ids {
		keys[i] = datasetLocatorKey(r.id, id)
	}
	locs, err := datasetGetAll(ctx, t, keys, true)
	if err != nil {
		return err
	}
	bySlot := map[string]*ropeEntry{}
	for _, e := range r.entries {
		bySlot[e.slot] = e
	}
	located := map[string]string{} // row id -> slot
	for _, it := range locs {
		rowID := it.Key().SK[len("LOC#"):]
		slot, _ := it["s"].(string)
		e, ok := bySlot[slot]
		if !ok { // a locator of a failed write, or of an older version: look everywhere
			return scan()
		}
		located[rowID] = slot
		want = append(want, e)
	}
	if err := r.loadEntries(ctx, t, want); err != nil {
		return err
	}
	for rowID, slot := range located {
		if r.where[rowID] == nil || r.where[rowID].slot != slot {
			return scan()
		}
	}
	return nil
}

// loadEntries reads the segments of the entries not loaded yet.
func (r *rope) loadEntries(ctx context.Context, t Table, entries []*ropeEntry) error {
	var refs []SegmentRef
	for _, e := range entries {
		if !e.loaded {
			refs = append(refs, SegmentRef{Slot: e.slot, Seg: e.seg, N: e.n})
		}
	}
	if len(refs) == 0 {
		return nil
	}
	segs, err := readSegments(ctx, t, r.id, refs)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.loaded {
			continue
		}
		e.rows, e.loaded = slices.Clone(segs[e.seg]), true
		for _, row := range e.rows {
			r.where[row.RowID] = e
		}
	}
	return nil
}

// apply applies the edits in order, as version `version` written by `by` at `at`.
func (r *rope) apply(edits []DatasetEdit, version int64, by string, at time.Time) error {
	var missing []string
	for i, e := range edits {
		switch e.Kind {
		case EditAppendRow, EditPrependRow:
			if err := r.insert(i, e, version, by, at); err != nil {
				return err
			}
		case EditUpdateRow:
			ent := r.where[e.RowID]
			if ent == nil {
				missing = append(missing, e.RowID)
				continue
			}
			if err := r.update(i, ent, e, version, by, at); err != nil {
				return err
			}
		case EditDeleteRow:
			ent := r.where[e.RowID]
			if ent == nil {
				missing = append(missing, e.RowID)
				continue
			}
			r.remove(ent, e.RowID)
		case EditFilterRows:
			keep := map[string]bool{}
			for _, id := range e.RowIDs {
				keep[id] = true
				if r.where[id] == nil {
					missing = append(missing, id)
				}
			}
			for id, ent := range r.where {
				if !keep[id] {
					r.remove(ent, id)
				}
			}
		case EditRenameColumn:
			j := r.column(e.Column)
			switch {
			case j < 0:
				return &DatasetEditError{Edit: i, Field: "column_name", Msg: fmt.Sprintf("the dataset has no column '%s'", e.Column)}
			case r.column(e.NewColumn) >= 0 && e.NewColumn != e.Column:
				return &DatasetEditError{Edit: i, Field: "new_column_name", Msg: fmt.Sprintf("the dataset has a column '%s' already", e.NewColumn)}
			}
			r.cols[j].Name = e.NewColumn
			r.stats.ColumnsRenamed++
		case EditRemoveColumn:
			j := r.column(e.Column)
			if j < 0 {
				return &DatasetEditError{Edit: i, Field: "column_name", Msg: fmt.Sprintf("the dataset has no column '%s'", e.Column)}
			}
			r.cols = slices.Delete(r.cols, j, j+1)
			r.stats.ColumnsRemoved++
		default:
			return fmt.Errorf("%w: edit %d: unknown kind %q", ErrInvalid, i, e.Kind)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return &DatasetRowsNotFoundError{RowIDs: slices.Compact(missing)}
	}
	if n := r.rowCount(); n > MaxDatasetRows {
		return fmt.Errorf("%w: %d rows, a dataset holds at most %d", ErrInvalid, n, MaxDatasetRows)
	}
	r.stats.RowsEdited = int64(len(r.edited))
	return nil
}

func (r *rope) column(name string) int {
	return slices.IndexFunc(r.cols, func(c DatasetColumn) bool { return c.Name == name })
}

// slotValues places values named by column into a row of the rope's slots.
func (r *rope) slotValues(i int, row []any, values map[string]any) ([]any, error) {
	out := make([]any, r.nextSlot)
	copy(out, row)
	for name, v := range values {
		j := r.column(name)
		if j < 0 {
			return nil, &DatasetEditError{Edit: i, Field: "values", Key: name, Msg: fmt.Sprintf("the dataset has no column '%s'", name)}
		}
		out[r.cols[j].Slot] = v
	}
	norm, err := Normalize(out)
	if err != nil {
		return nil, &DatasetEditError{Edit: i, Field: "values", Msg: err.Error()}
	}
	vals := norm.([]any)
	if DatasetRowSize(vals) > MaxDatasetRowBytes {
		return nil, fmt.Errorf("%w: %w", ErrTooLarge, &DatasetEditError{Edit: i, Field: "values",
			Msg: fmt.Sprintf("the row's values take %d bytes, more than a row may (%d)", DatasetRowSize(vals), MaxDatasetRowBytes)})
	}
	return vals, nil
}

func (r *rope) insert(i int, e DatasetEdit, version int64, by string, at time.Time) error {
	if r.where[e.RowID] != nil || r.added[e.RowID] {
		return &DatasetEditError{Edit: i, Field: "row_id", Msg: "the dataset has a row with this row_id already"}
	}
	vals, err := r.slotValues(i, nil, e.Values)
	if err != nil {
		return err
	}
	row := DatasetRow{RowID: e.RowID, Values: vals, CreatedInVersion: version, CreatedAt: at, CreatedBy: by,
		UpdatedInVersion: version, UpdatedAt: at, UpdatedBy: by}
	fresh := func() *ropeEntry { return &ropeEntry{slot: newID(), loaded: true} }
	if len(r.entries) == 0 {
		r.entries = []*ropeEntry{fresh()}
	}
	var ent *ropeEntry
	if e.Kind == EditPrependRow {
		if ent = r.entries[0]; !ent.loaded || len(ent.rows) >= segmentRows && !ent.dirty {
			ent = fresh()
			r.entries = slices.Insert(r.entries, 0, ent)
		}
		ent.rows = slices.Insert(ent.rows, 0, row)
	} else {
		if ent = r.entries[len(r.entries)-1]; !ent.loaded || len(ent.rows) >= segmentRows && !ent.dirty {
			ent = fresh()
			r.entries = append(r.entries, ent)
		}
		ent.rows = append(ent.rows, row)
	}
	ent.dirty = true
	r.where[row.RowID], r.added[row.RowID] = ent, true
	r.stats.RowsAdded++
	return nil
}

func (r *rope) update(i int, ent *ropeEntry, e DatasetEdit, version int64, by string, at time.Time) error {
	k := slices.IndexFunc(ent.rows, func(row DatasetRow) bool { return row.RowID == e.RowID })
	row := ent.rows[k]
	vals, err := r.slotValues(i, row.Values, e.Values)
	if err != nil {
		return err
	}
	row.Values, row.UpdatedInVersion, row.UpdatedAt, row.UpdatedBy = vals, version, at, by
	ent.rows[k], ent.dirty = row, true
	if !r.added[e.RowID] {
		r.edited[e.RowID] = true
	}
	return nil
}

func (r *rope) remove(ent *ropeEntry, rowID string) {
	ent.rows = slices.DeleteFunc(ent.rows, func(row DatasetRow) bool { return row.RowID == rowID })
	ent.dirty = true
	delete(r.where, rowID)
	delete(r.edited, rowID)
	if r.added[rowID] {
		delete(r.added, rowID)
		r.stats.RowsAdded--
		return
	}
	r.gone = append(r.gone, rowID)
	r.stats.RowsRemoved++
}

func (r *rope) rowCount() int64 {
	var n int64
	for _, e := range r.entries {
		if e.loaded {
			n += int64(len(e.rows))
		} else {
			n += e.n
		}
	}
	return n
}

// seal cuts every changed entry into segments of at most segmentRows rows and segmentBytes
// bytes (the first keeps the entry's slot, the others take new ones; an emptied entry
// goes) and returns the new segment items and the locators to write: those of new rows,
// of rows that moved to another slot, and of rows whose locator was stale.
func (r *rope) seal() (manifest []SegmentRef, segments, locators []Item) {
	for _, e := range r.entries {
		if !e.dirty {
			manifest = append(manifest, SegmentRef{Slot: e.slot, Seg: e.seg, N: e.n})
			if e.loaded {
				for _, row := range e.rows {
					if r.repair[row.RowID] {
						locators = append(locators, locatorItem(r.id, r.orgID, row.RowID, e.slot))
					}
				}
			}
			continue
		}
		for ci, chunk := range chunkRows(e.rows) {
			slot := e.slot
			if ci > 0 {
				slot = newID()
			}
			seg := newID()
			manifest = append(manifest, SegmentRef{Slot: slot, Seg: seg, N: int64(len(chunk))})
			segments = append(segments, segmentItem(r.id, r.orgID, seg, chunk))
			for _, row := range chunk {
				if ci > 0 || r.added[row.RowID] || r.repair[row.RowID] {
					locators = append(locators, locatorItem(r.id, r.orgID, row.RowID, slot))
				}
			}
		}
	}
	if manifest == nil {
		manifest = []SegmentRef{}
	}
	return manifest, segments, locators
}

// chunkRows cuts rows into segments' worth.
func chunkRows(rows []DatasetRow) [][]DatasetRow {
	var out [][]DatasetRow
	start, size := 0, 0
	for i, row := range rows {
		s := DatasetRowSize(row.Values) + segmentRowOverhead
		if i > start && (i-start >= segmentRows || size+s > segmentBytes) {
			out = append(out, rows[start:i])
			start, size = i, 0
		}
		size += s
	}
	if start < len(rows) {
		out = append(out, rows[start:])
	}
	return out
}

// newID is a short random id of a segment or a slot.
func newID() string { return rand.Text()[:16] }

// EditDataset applies edits, in order, to the current content of dataset id of
// organization orgID, as its next version, if its version is ifVersion (any when 0), and
// returns the dataset as it is afterwards. Errors: ErrNotFound (the dataset),
// *DatasetRowsNotFoundError (rows it lacks), *DatasetEditError (an edit that cannot apply),
// ErrDatasetVersion, ErrDatasetBusy (writers kept committing first), ErrInvalid (too many
// rows).
func EditDataset(ctx context.Context, t Table, orgID, id string, ifVersion int64, edits []DatasetEdit, by string, at time.Time) (Dataset, error) {
	if len(edits) == 0 {
		return Dataset{}, fmt.Errorf("%w: no edits", ErrInvalid)
	}
	for range datasetAttempts {
		d, err := GetDataset(ctx, t, orgID, id)
		if err != nil {
			return Dataset{}, err
		}
		if ifVersion != 0 && d.Version != ifVersion {
			return Dataset{}, fmt.Errorf("edit dataset %s: %w", id, ErrDatasetVersion)
		}
		st, err := CurrentState(ctx, t, d)
		if err != nil {
			return Dataset{}, err
		}
		r := newRope(st, d.NextSlot)
		if err := r.load(ctx, t, edits); err != nil {
			return Dataset{}, err
		}
		if err := r.apply(edits, d.Version+1, by, at); err != nil {
			return Dataset{}, err
		}
		manifest, segments, locators := r.seal()
		next, err := commitVersion(ctx, t, d, versionWrite{columns: r.cols, nextSlot: r.nextSlot, manifest: manifest,
			segments: segments, locators: locators, stats: r.stats, by: by, at: at})
		if errors.Is(err, ErrConditionFailed) {
			continue // another writer committed first: edit its version instead
		}
		if err != nil {
			return Dataset{}, err
		}
		dropLocators(ctx, t, id, r.gone)
		return next, nil
	}
	return Dataset{}, fmt.Errorf("edit dataset %s: %w", id, ErrDatasetBusy)
}

// dropLocators deletes the locators of removed rows, once the version without them is
// committed. It is best effort: a locator left behind only sends a later lookup of that
// row to a full scan, which finds it missing.
func dropLocators(ctx context.Context, t Table, id string, rowIDs []string) {
	if len(rowIDs) == 0 {
		return
	}
	keys := make([]Key, len(rowIDs))
	for i, rowID := range rowIDs {
		keys[i] = datasetLocatorKey(id, rowID)
	}
	_ = datasetDeleteAll(context.WithoutCancel(ctx), t, keys)
}

// AppendDatasetRows adds rows after the last row of a dataset of organization orgID as its
// next version (see EditDataset): values in the order of the dataset's current columns.
func AppendDatasetRows(ctx context.Context, t Table, orgID, id string, ifVersion int64, rows []NewDatasetRow, by string, at time.Time) (Dataset, error) {
	d, err := GetDataset(ctx, t, orgID, id)
	if err != nil {
		return Dataset{}, err
	}
	edits := make([]DatasetEdit, len(rows))
	for i, row := range rows {
		edits[i] = DatasetEdit{Kind: EditAppendRow, RowID: row.RowID, Values: namedValues(d.ColumnNames, row.Values)}
	}
	return EditDataset(ctx, t, orgID, id, ifVersion, edits, by, at)
}

// UpdateDatasetRows changes values of rows of a dataset of organization orgID, found by row
// id, as its next version (see EditDataset): Values by position in the current columns.
func UpdateDatasetRows(ctx context.Context, t Table, orgID, id string, ifVersion int64, edits []DatasetRowEdit, by string, at time.Time) (Dataset, error) {
	d, err := GetDataset(ctx, t, orgID, id)
	if err != nil {
		return Dataset{}, err
	}
	out := make([]DatasetEdit, len(edits))
	seen := make(map[string]bool, len(edits))
	for i, e := range edits {
		if seen[e.RowID] {
			return Dataset{}, fmt.Errorf("%w: row %s edited twice", ErrInvalid, e.RowID)
		}
		seen[e.RowID] = true
		values := make(map[string]any, len(e.Values))
		for col, v := range e.Values {
			if col < 0 || col >= len(d.ColumnNames) {
				return Dataset{}, &DatasetEditError{Edit: i, Field: "values", Msg: fmt.Sprintf("no column %d", col)}
			}
			values[d.ColumnNames[col]] = v
		}
		out[i] = DatasetEdit{Kind: EditUpdateRow, RowID: e.RowID, Values: values}
	}
	return EditDataset(ctx, t, orgID, id, ifVersion, out, by, at)
}

func namedValues(names []string, values []any) map[string]any {
	out := make(map[string]any, len(names))
	for i, name := range names {
		if i < len(values) {
			out[name] = values[i]
		}
	}
	return out
}
