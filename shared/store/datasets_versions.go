package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The versions of a dataset: their records, the content of any of them, their names, and
// new versions made of an earlier one (a rollback) or of another dataset's content.

// ListDatasetVersions reads the records of every version of dataset id, oldest first.
func ListDatasetVersions(ctx context.Context, t Table, id string) ([]DatasetVersion, error) {
	items, err := queryAllStored(ctx, t, Query{PK: datasetPartition(id), SKOp: SKPrefix, From: "VER#", Consistent: true})
	if err != nil {
		return nil, fmt.Errorf("versions of dataset %s: %w", id, err)
	}
	out := make([]DatasetVersion, len(items))
	for i, it := range items {
		if err := it.Decode(&out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// GetDatasetVersion reads version v of dataset d: its record and its content state (one
// batch read of the record and the manifest). ErrNotFound when d has no such version.
func GetDatasetVersion(ctx context.Context, t Table, d Dataset, v int64) (DatasetVersion, ContentState, error) {
	if v < 1 || v > d.Version {
		return DatasetVersion{}, ContentState{}, fmt.Errorf("version %d of dataset %s: %w", v, d.ID, ErrNotFound)
	}
	items, err := t.BatchGet(ctx, []Key{datasetVersionKey(d.ID, v), datasetManifestKey(d.ID, v)}, true)
	if err != nil {
		return DatasetVersion{}, ContentState{}, fmt.Errorf("version %d of dataset %s: %w", v, d.ID, err)
	}
	var rec DatasetVersion
	st := ContentState{DatasetID: d.ID, OrgID: d.OrgID, Version: v}
	found := 0
	for _, it := range items {
		switch it.Key() {
		case datasetVersionKey(d.ID, v):
			if err := Unmarshal(it, &rec); err != nil {
				return DatasetVersion{}, ContentState{}, err
			}
			found++
		case datasetManifestKey(d.ID, v):
			if st.Manifest, err = manifestFrom(it); err != nil {
				return DatasetVersion{}, ContentState{}, err
			}
			found++
		}
	}
	if found != 2 {
		return DatasetVersion{}, ContentState{}, fmt.Errorf("version %d of dataset %s: %w", v, d.ID, ErrNotFound)
	}
	st.Columns = rec.Columns
	return rec, st, nil
}

// NameDatasetVersion gives version v of dataset d a name (nil: none) and returns its record;
// ErrNotFound when d has no such version.
func NameDatasetVersion(ctx context.Context, t Table, d Dataset, v int64, name *string) (DatasetVersion, error) {
	var value any
	if name != nil {
		value = *name
	}
	it, err := t.Update(ctx, Update{Key: datasetVersionKey(d.ID, v), Set: map[string]any{"name": value}, Conds: []Cond{Exists()}})
	if errors.Is(err, ErrConditionFailed) {
		err = ErrNotFound
	}
	if err != nil {
		return DatasetVersion{}, fmt.Errorf("name version %d of dataset %s: %w", v, d.ID, err)
	}
	var rec DatasetVersion
	return rec, Unmarshal(it, &rec)
}

// ReplaceDatasetContent makes src (a version of this dataset or of another) the content of
// dataset id of organization orgID, as its next version, if its version is ifVersion (any
// when 0). A version of the same dataset shares its segments (a rollback costs a new
// manifest and the locators of its rows); another dataset's rows are copied, keeping their
// row ids, as created by `by` in the new version. The version's record counts the rows
// added, removed and edited against the version it replaces.
func ReplaceDatasetContent(ctx context.Context, t Table, orgID, id string, ifVersion int64, src ContentState, by string, at time.Time) (Dataset, error) {
	for range datasetAttempts {
		d, err := GetDataset(ctx, t, orgID, id)
		if err != nil {
			return Dataset{}, err
		}
		if ifVersion != 0 && d.Version != ifVersion {
			return Dataset{}, fmt.Errorf("replace content of dataset %s: %w", id, ErrDatasetVersion)
		}
		cur, err := CurrentState(ctx, t, d)
		if err != nil {
			return Dataset{}, err
		}
		w := versionWrite{by: by, at: at}
		if src.DatasetID == id {
			w.columns, w.nextSlot, w.manifest = src.Columns, d.NextSlot, src.Manifest
			if w.locators, w.stats, err = rollbackWrite(ctx, t, cur, src); err != nil {
				return Dataset{}, err
			}
		} else if w, err = copyWrite(ctx, t, d, src, d.Version+1, by, at); err != nil {
			return Dataset{}, err
		}
		next, err := commitVersion(ctx, t, d, w)
		if errors.Is(err, ErrConditionFailed) {
			continue
		}
		return next, err
	}
	return Dataset{}, fmt.Errorf("replace content of dataset %s: %w", id, ErrDatasetBusy)
}

// rollbackWrite compares the current version cur with the earlier version src of the same
// dataset: the segments they share hold the same rows; the others are read to count what
// the rollback adds, removes and edits and to point the locators of src's rows back at
// their slots.
func rollbackWrite(ctx context.Context, t Table, cur, src ContentState) ([]Item, versionStats, error) {
	shared := map[string]bool{}
	for _, e := range cur.Manifest {
		shared[e.Seg] = true
	}
	var curOnly, srcOnly []SegmentRef
	inSrc := map[string]bool{}
	for _, e := range src.Manifest {
		inSrc[e.Seg] = true
		if !shared[e.Seg] {
			srcOnly = append(srcOnly, e)
		}
	}
	for _, e := range cur.Manifest {
		if !inSrc[e.Seg] {
			curOnly = append(curOnly, e)
		}
	}
	segs, err := readSegments(ctx, t, cur.DatasetID, append(append([]SegmentRef(nil), curOnly...), srcOnly...))
	if err != nil {
		return nil, versionStats{}, err
	}
	before := map[string]int64{} // row id -> updated_in_version
	for _, e := range curOnly {
		for _, r := range segs[e.Seg] {
			before[r.RowID] = r.UpdatedInVersion
		}
	}
	var st versionStats
	var locators []Item
	// Every row of src gets its locator back: rows of shared segments may have moved since.
	all, err := readSegments(ctx, t, cur.DatasetID, src.Manifest)
	if err != nil {
		return nil, versionStats{}, err
	}
	for _, e := range src.Manifest {
		for _, r := range all[e.Seg] {
			locators = append(locators, locatorItem(cur.DatasetID, cur.OrgID, r.RowID, e.Slot))
		}
	}
	for _, e := range srcOnly {
		for _, r := range segs[e.Seg] {
			v, ok := before[r.RowID]
			switch {
			case !ok:
				st.RowsAdded++
			case v != r.UpdatedInVersion:
				st.RowsEdited++
			}
			delete(before, r.RowID)
		}
	}
	st.RowsRemoved = int64(len(before))
	names := map[int64]string{}
	for _, c := range cur.Columns {
		names[c.Slot] = c.Name
	}
	kept := map[int64]bool{}
	for _, c := range src.Columns {
		name, ok := names[c.Slot]
		switch {
		case !ok:
			st.ColumnsAdded++
		case name != c.Name:
			st.ColumnsRenamed++
		}
		kept[c.Slot] = true
	}
	for slot := range names {
		if !kept[slot] {
			st.ColumnsRemoved++
		}
	}
	return locators, st, nil
}

// copyWrite copies the content src of another dataset into dataset d as version v.
func copyWrite(ctx context.Context, t Table, d Dataset, src ContentState, v int64, by string, at time.Time) (versionWrite, error) {
	cols := make([]DatasetColumn, len(src.Columns))
	for i, c := range src.Columns {
		cols[i] = DatasetColumn{Name: c.Name, Slot: d.NextSlot + int64(i)}
	}
	r := newRope(ContentState{DatasetID: d.ID, OrgID: d.OrgID, Columns: cols}, d.NextSlot+int64(len(cols)))
	cur, err := CurrentState(ctx, t, d)
	if err != nil {
		return versionWrite{}, err
	}
	i := 0
	for row, err := range ContentRows(ctx, t, src, 0, src.RowCount()) {
		if err != nil {
			return versionWrite{}, err
		}
		if err := r.insert(i, DatasetEdit{Kind: EditAppendRow, RowID: row.RowID, Values: namedValues(src.ColumnNames(), row.Values)}, v, by, at); err != nil {
			return versionWrite{}, err
		}
		i++
	}
	r.stats = versionStats{RowsAdded: int64(i), RowsRemoved: cur.RowCount(), ColumnsAdded: int64(len(cols)), ColumnsRemoved: int64(len(cur.Columns))}
	manifest, segments, locators := r.seal()
	return versionWrite{columns: cols, nextSlot: r.nextSlot, manifest: manifest, segments: segments, locators: locators,
		stats: r.stats, by: by, at: at}, nil
}
