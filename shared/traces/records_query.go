package traces

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The record query engine: searches, counts, exports and deletes of one kind of record of a
// run. Records are read in creation order from their sort-key range (the range the created_at
// filters allow), headers first; content is decoded only for filters that read it and for
// the records answered. Sorted by created_at, a page stops reading once it is full and a
// continuation (previous_last_row_id) starts right after its row: O(limit) items when the
// filters pass most records. Sorted by another column, every matching record's header is
// read and sorted. Reading more than the bound of records answers 422.

// DefaultRecordScanBound is the most records one record query may read.
const DefaultRecordScanBound = 200_000

// errRecordBound stops a scan that passed the bound.
var errRecordBound = errors.New("record scan bound")

// errStopScan ends a scan early without error.
var errStopScan = errors.New("stop")

// engine runs one query.
type engine struct {
	t      store.Table
	ps     payload.Store
	bound  int64
	entity string
	runID  string
	q      recordQuery
	// content: some filter reads a content column.
	content bool
	read    int64
	// pageItems bounds the items of each store page read; 0 is the store's page.
	pageItems int
}

func newEngine(t store.Table, ps payload.Store, bound int64, entity, runID string, q recordQuery) *engine {
	e := &engine{t: t, ps: ps, bound: bound, entity: entity, runID: runID, q: q}
	q.allFilters(func(f *filter) {
		if f.kind == "text" && (f.column == "input" || f.column == "output" || f.column == "tools") {
			e.content = true
		}
	})
	return e
}

// scan calls fn with each record that passes the query's filters, in creation order (newest
// first when desc), resuming after the item after (nil: from the start of the range).
func (e *engine) scan(ctx context.Context, desc bool, after store.Item, fn func(*row) error) error {
	from, to := e.q.timeRange()
	if !from.Before(to) {
		return nil
	}
	sq := store.RecordsQuery(e.entity, e.runID, from, to, desc, after)
	sq.Limit = e.pageItems
	skip := store.RecordPosition(e.entity, after)
	for {
		p, err := e.t.Query(ctx, sq)
		if err != nil {
			return fmt.Errorf("query %s records: %w", e.entity, err)
		}
		for _, it := range p.Items {
			if skip != "" && store.RecordPosition(e.entity, it) == skip {
				continue
			}
			if e.read++; e.read > e.bound {
				return errRecordBound
			}
			r, err := decodeRow(e.entity, it)
			if err != nil {
				return err
			}
			ok, err := e.matches(ctx, r)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		if p.Next == nil {
			return nil
		}
		sq.Start = p.Next
	}
}

// matches applies the filters and the tree to a record.
func (e *engine) matches(ctx context.Context, r *row) (bool, error) {
	if e.content {
		if err := r.loadContent(ctx, e.ps); err != nil {
			return false, err
		}
	}
	f := r.fields()
	for _, flt := range e.q.filters {
		if !flt.matches(f) {
			return false, nil
		}
	}
	if e.q.tree != nil && !e.q.tree.matches(f) {
		return false, nil
	}
	return true, nil
}

// page is a page of a search.
type page struct {
	rows      []*row
	paginated bool
}

// search answers the query's page.
func (e *engine) search(ctx context.Context, cat *columns.Catalog, after store.Item) (page, error) {
	if e.q.sortCol == "" || e.q.sortCol == "created_at" {
		return e.timePage(ctx, after)
	}
	col, _ := recordColumn(cat, e.q.sortCol)
	return e.sortedPage(ctx, col)
}

// timePage reads a page in creation order: reading stops at the row after the page.
func (e *engine) timePage(ctx context.Context, after store.Item) (page, error) {
	var p page
	desc := !(e.q.sortCol == "created_at" && e.q.asc)
	offset := e.q.offset
	if after != nil {
		offset = 0 // a keyset continuation starts at its row
	}
	if e.q.unfiltered() {
		// Every record read is answered: read the page, its continuation's own row and the
		// row that says more follow, not a store page's worth.
		e.pageItems = offset + e.q.limit + 2
	}
	err := e.scan(ctx, desc, after, func(r *row) error {
		if offset > 0 {
			offset--
			return nil
		}
		if len(p.rows) == e.q.limit {
			p.paginated = true
			return errStopScan
		}
		p.rows = append(p.rows, r)
		return nil
	})
	if errors.Is(err, errStopScan) {
		err = nil
	}
	return p, err
}

// sortedPage reads every matching record and sorts them by col, records without a value
// last, ties in creation order then by id.
func (e *engine) sortedPage(ctx context.Context, col columns.Column) (page, error) {
	var all []*row
	if err := e.scan(ctx, false, nil, func(r *row) error { all = append(all, r); return nil }); err != nil {
		return page{}, err
	}
	keys := make(map[*row]sortKey, len(all))
	for _, r := range all {
		keys[r] = sortKeyOf(r, col)
	}
	slices.SortStableFunc(all, func(a, b *row) int {
		ka, kb := keys[a], keys[b]
		if ka.null != kb.null {
			if ka.null {
				return 1
			}
			return -1
		}
		c := ka.compare(kb)
		if c == 0 {
			c = cmp.Or(a.created().Compare(b.created()), cmp.Compare(a.id(), b.id()))
		}
		if !e.q.asc {
			c = -c
		}
		return c
	})
	start := min(e.q.offset, len(all))
	if e.q.after != "" {
		i := slices.IndexFunc(all, func(r *row) bool { return r.id() == e.q.after })
		if i < 0 {
			return page{}, errNotInQuery
		}
		start = i + 1
	}
	end := min(start+e.q.limit, len(all))
	return page{rows: all[start:end], paginated: end < len(all)}, nil
}

// errNotInQuery: previous_last_row_id names no record of the query.
var errNotInQuery = validate.Single(validate.ValueError([]any{"body", "previous_last_row_id"}, nil,
	"previous_last_row_id is not a record the query answers"))

// sortKey is a record's value in the sort column.
type sortKey struct {
	null bool
	num  float64
	str  string
}

func (k sortKey) compare(o sortKey) int {
	if c := cmp.Compare(k.num, o.num); c != 0 {
		return c
	}
	return cmp.Compare(k.str, o.str)
}

func sortKeyOf(r *row, col columns.Column) sortKey {
	f := r.fields()
	switch col.DataType {
	case columns.DataInteger, columns.DataFloatingPoint:
		v, ok := f.number(col.ID)
		return sortKey{null: !ok, num: v}
	case columns.DataTimestamp:
		v, ok := f.date(col.ID)
		return sortKey{null: !ok, num: float64(v.UnixNano())}
	case columns.DataBoolean:
		v, ok := f.boolean(col.ID)
		n := 0.0
		if v {
			n = 1
		}
		return sortKey{null: !ok, num: n}
	case columns.DataUUID:
		v, ok := f.ident(col.ID)
		return sortKey{null: !ok, str: v}
	}
	v, ok := f.text(col.ID)
	return sortKey{null: !ok, str: v}
}

// count counts the matching records.
func (e *engine) count(ctx context.Context) (int64, error) {
	var n int64
	err := e.scan(ctx, false, nil, func(*row) error { n++; return nil })
	return n, err
}

// errRecordsTooWide is the 422 of a query that would read more records than the bound.
func errRecordsTooWide(body any, bound int64) error {
	return validate.Single(validate.ValueError([]any{"body", "filters"}, body, fmt.Sprintf(
		"the query reads more than %d records: narrow it with a date filter on created_at (gte and lt) "+
			"or sort by created_at, whose pages read only what they answer", bound)))
}

// unfiltered reports whether the query has no filter at all.
func (q *recordQuery) unfiltered() bool { return len(q.filters) == 0 && q.tree == nil }
