package store

import (
	"fmt"
	"time"
)

// Conversions between dataset records and items. Rows are converted by hand rather than
// through JSON: a page may hold a hundred thousand of them, and their values must keep the
// numbers exactly as stored (JSON would turn every integer into a float64).

func datasetItem(d Dataset) (Item, error) {
	if d.Columns == nil {
		d.Columns = []DatasetColumn{}
	}
	d.ColumnNames = columnNames(d.Columns)
	it, err := Marshal(d)
	if err != nil {
		return nil, err
	}
	return itemAt(DatasetKey(d.ID), it, AttrEntity, EntityDataset,
		AttrGSI2PK, orgPartition(d.OrgID), AttrGSI2SK, "DATASET#"+stamp(d.CreatedAt)+"#"+d.ID), nil
}

func datasetFrom(it Item) (Dataset, error) { return datasetOf(StoredOf(it)) }

// datasetOf is datasetFrom of a stored item.
func datasetOf(s StoredItem) (Dataset, error) {
	var d Dataset
	if err := s.Decode(&d); err != nil {
		return Dataset{}, err
	}
	if d.ColumnNames == nil {
		d.ColumnNames = []string{}
	}
	return d, nil
}

func columnNames(cols []DatasetColumn) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// segmentItem is the item of a segment holding rows.
func segmentItem(datasetID, orgID, seg string, rows []DatasetRow) Item {
	list := make([]any, len(rows))
	for i, r := range rows {
		values := r.Values
		if values == nil {
			values = []any{}
		}
		list[i] = map[string]any{"id": r.RowID, "v": values,
			"cv": r.CreatedInVersion, "ca": timeAttr(r.CreatedAt), "cb": r.CreatedBy,
			"uv": r.UpdatedInVersion, "ua": timeAttr(r.UpdatedAt), "ub": r.UpdatedBy}
	}
	k := datasetSegmentKey(datasetID, seg)
	return Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntityDatasetSegment, "org_id": orgID, "rows": list}
}

// rowsOfSegment reads the rows of a segment item; their Values are by slot, Index unset.
func rowsOfSegment(it Item) ([]DatasetRow, error) {
	list, _ := it["rows"].([]any)
	out := make([]DatasetRow, len(list))
	var times timeAttrs
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("store: malformed dataset segment %s", it.Key())
		}
		r := DatasetRow{}
		var good [5]bool
		r.RowID, good[0] = m["id"].(string)
		r.Values, good[1] = m["v"].([]any)
		r.CreatedInVersion, good[2] = m["cv"].(int64)
		r.UpdatedInVersion, good[3] = m["uv"].(int64)
		r.CreatedBy, _ = m["cb"].(string)
		r.UpdatedBy, _ = m["ub"].(string)
		var err1, err2 error
		r.CreatedAt, err1 = times.parse(m["ca"])
		r.UpdatedAt, err2 = times.parse(m["ua"])
		good[4] = err1 == nil && err2 == nil
		for _, g := range good {
			if !g {
				return nil, fmt.Errorf("store: malformed row in dataset segment %s", it.Key())
			}
		}
		out[i] = r
	}
	return out, nil
}

func parseTimeAttr(v any) (time.Time, error) {
	s, _ := v.(string)
	return time.Parse(time.RFC3339Nano, s)
}

// timeAttrs parses the time attributes of a segment's rows, which mostly repeat (rows added
// together are stamped once): the last text parsed is not parsed again.
type timeAttrs struct {
	last string
	t    time.Time
}

func (c *timeAttrs) parse(v any) (time.Time, error) {
	s, _ := v.(string)
	if s != "" && s == c.last {
		return c.t, nil
	}
	t, err := parseTimeAttr(v)
	if err == nil {
		c.last, c.t = s, t
	}
	return t, err
}

// segmentRowOverhead is what a row takes in a segment item besides its values.
const segmentRowOverhead = 160

func locatorItem(datasetID, orgID, rowID, slot string) Item {
	k := datasetLocatorKey(datasetID, rowID)
	return Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntityDatasetLocator, "org_id": orgID, "s": slot}
}

func datasetCollaboratorItem(c DatasetCollaborator, k Key) (Item, error) {
	it, err := Marshal(c)
	if err != nil {
		return nil, err
	}
	return itemAt(k, it, AttrEntity, EntityDatasetCollaborator), nil
}

func datasetCollaboratorFrom(it Item) (DatasetCollaborator, error) {
	var c DatasetCollaborator
	if err := Unmarshal(it, &c); err != nil {
		return DatasetCollaborator{}, err
	}
	return c, nil
}

// DatasetRowSize is the size a row's values take in its segment, to be checked against
// MaxDatasetRowBytes before writing.
func DatasetRowSize(values []any) int { return valueSize(values) }
