package traces

import (
	"time"

	"github.com/evalobs/evalapi/shared/validate"
)

// The bodies of the record searches, counts, deletes and exports (the client's
// LogRecordsQueryRequest, LogRecordsQueryCountRequest, LogRecordsDeleteRequest and
// LogRecordsExportRequest): a run, filters ANDed with a filter tree, and for searches a sort
// and a page.

// Limits of a record search page.
const (
	defaultRecordLimit = 100
	maxRecordLimit     = 1000
)

// recordQuery is a validated record query.
type recordQuery struct {
	raw     any
	run     runRef
	filters []*filter
	tree    *filterNode
	sortCol string // "" is created_at
	asc     bool
	limit   int
	offset  int
	after   string // previous_last_row_id
	// truncate cuts long texts of the answered records (truncate_fields).
	truncate bool
	// counts answers each session's trace count (include_counts).
	counts bool
}

// queryPart says which fields a body of the family holds.
type queryPart int

const (
	partFilters queryPart = iota // count, delete: run, filters, filter_tree
	partPage                     // search: and sort, page, truncate_fields, include_counts
	partExport                   // export: run, filters, sort (no filter tree, no page)
)

// readRecordQuery reads the body of a record query of the given part.
func readRecordQuery(errs *validate.Errors, raw any, present bool, part queryPart) (recordQuery, validate.Obj, bool) {
	q := recordQuery{raw: raw, limit: defaultRecordLimit}
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return q, o, false
	}
	before := errs.Len()
	run, oneRun := readRun(o, runFields)
	q.run = run
	if fv := o.Get("filters").Nullable(); fv.Present() && !fv.IsNull() {
		items, _ := fv.List()
		for _, it := range items {
			if f, ok := readFilter(it); ok {
				q.filters = append(q.filters, f)
			}
		}
	}
	if part != partExport {
		if tv := o.Get("filter_tree").Nullable(); tv.Present() && !tv.IsNull() {
			leaves := 0
			q.tree, _ = readFilterTree(tv, 1, &leaves)
		}
	}
	if part != partFilters {
		if sv := o.Get("sort").Nullable(); sv.Present() && !sv.IsNull() {
			if so, ok := sv.Object(); ok {
				q.sortCol, _ = so.Get("column_id").Required().String(validate.MinLen(1))
				q.asc = true
				if a := so.Get("ascending"); a.Present() {
					q.asc, _ = a.Bool()
				}
				if st := so.Get("sort_type"); st.Present() {
					st.Literal("column")
				}
			}
		}
	}
	if part == partPage {
		if v := o.Get("limit"); v.Present() {
			n, _ := v.Int(validate.Ge(1), validate.Le(maxRecordLimit))
			q.limit = int(n)
		}
		if v := o.Get("starting_token"); v.Present() {
			n, _ := v.Int(validate.Ge(0), validate.Le(maxOffset))
			q.offset = int(n)
		}
		if id := optUUID(o, "previous_last_row_id"); id != nil {
			q.after = *id
		}
		q.truncate = optBool(o, "truncate_fields")
		q.counts = optBool(o, "include_counts")
		optBool(o, "include_code_metric_metadata")
	}
	if errs.Len() > before {
		return q, o, false
	}
	if !oneRun {
		errs.Add(oneRunError(o, runFields))
		return q, o, false
	}
	return q, o, true
}

// maxOffset bounds starting_token: an offset page reads every record before it.
const maxOffset = 1_000_000

// optBool reads an optional boolean field (null is false).
func optBool(o validate.Obj, name string) bool {
	v := o.Get(name).Nullable()
	if !v.Present() || v.IsNull() {
		return false
	}
	b, _ := v.Bool()
	return b
}

// allFilters calls fn with every filter of the query, flat and in the tree.
func (q *recordQuery) allFilters(fn func(*filter)) {
	for _, f := range q.filters {
		fn(f)
	}
	q.tree.leaves(fn)
}

// timeRange is the created_at range the query's flat filters allow (they are ANDed with
// everything else), so that a search reads only that range of the run.
func (q *recordQuery) timeRange() (from, to time.Time) {
	from, to = time.Time{}, farFuture
	for _, f := range q.filters {
		if f.kind != "date" || f.column != "created_at" {
			continue
		}
		w := f.when.UTC()
		switch f.op {
		case "gt":
			from = maxTime(from, w.Add(time.Nanosecond))
		case "gte":
			from = maxTime(from, w)
		case "lt":
			to = minTime(to, w)
		case "lte":
			to = minTime(to, w.Add(time.Nanosecond))
		case "eq":
			from, to = maxTime(from, w), minTime(to, w.Add(time.Nanosecond))
		}
	}
	return from, to
}

// farFuture is after every record's creation (the sort keys' four-digit year).
var farFuture = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
