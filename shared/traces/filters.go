package traces

import (
	"slices"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/store"
)

// filterFullyAnnotated is the seventh filter kind; it names no catalog column.
const filterFullyAnnotated = "fully_annotated"

// filterKinds are the values of a filter's `type`, in the order of the original service's
// LogRecordsFilterType.
var filterKinds = []string{"id", "date", "number", "boolean", "text", "collection", filterFullyAnnotated}

// operators of each filter kind.
var operators = map[string][]string{
	"id":         {"eq", "ne", "one_of", "not_in", "contains"},
	"date":       {"eq", "ne", "gt", "gte", "lt", "lte"},
	"number":     {"eq", "ne", "gt", "gte", "lt", "lte", "between"},
	"boolean":    {"eq", "ne"},
	"collection": {"eq", "contains", "one_of", "not_in"},
	"text":       {"eq", "ne", "contains", "one_of", "not_in"},
}

// filter is one validated filter of a metrics search.
type filter struct {
	kind          string // a filterKinds entry
	column        string
	op            string
	strs          []string  // id, text, collection
	nums          []float64 // number: one operand, two for between
	when          time.Time // date
	b             bool      // boolean
	caseSensitive bool
	userIDs       []string // fully_annotated
}

// fields is a record a filter tests: a trace, a span or a session (records_fields.go).
type fields interface {
	text(id string) (string, bool)
	ident(id string) (string, bool)
	number(id string) (float64, bool)
	boolean(id string) (bool, bool)
	date(id string) (time.Time, bool)
	tags() []string
}

// match reports whether the trace passes f.
func (f *filter) match(tr *store.Trace) bool { return f.matches(traceFields{tr}) }

// matches reports whether the record passes f. A record holding no value in the column
// passes no filter (as SQL's NULL), except collections: no tags is the empty collection.
func (f *filter) matches(r fields) bool {
	switch f.kind {
	case "text":
		v, ok := r.text(f.column)
		return ok && matchString(f.op, v, f.strs, !f.caseSensitive)
	case "id":
		v, ok := r.ident(f.column)
		return ok && matchString(f.op, v, f.strs, true)
	case "number":
		v, ok := r.number(f.column)
		return ok && matchNumber(f.op, v, f.nums)
	case "boolean":
		v, ok := r.boolean(f.column)
		return ok && (v == f.b) == (f.op == "eq")
	case "date":
		v, ok := r.date(f.column)
		return ok && matchNumber(f.op, float64(v.UnixNano()), []float64{float64(f.when.UnixNano())})
	case "collection":
		return matchCollection(f.op, r.tags(), f.strs, !f.caseSensitive)
	}
	// fully_annotated: the service stores no annotations, so no record is fully annotated.
	return false
}

func fold(s string, ci bool) string {
	if ci {
		return strings.ToLower(s)
	}
	return s
}

// matchString applies a text or id operator. eq and ne with a list of values mean "equals
// one of" and "equals none of".
func matchString(op, v string, values []string, ci bool) bool {
	v = fold(v, ci)
	in := func(test func(v, w string) bool) bool {
		for _, w := range values {
			if test(v, fold(w, ci)) {
				return true
			}
		}
		return false
	}
	eq := func(v, w string) bool { return v == w }
	switch op {
	case "eq", "one_of":
		return in(eq)
	case "ne", "not_in":
		return !in(eq)
	case "contains":
		return in(strings.Contains)
	}
	return false
}

func matchNumber(op string, v float64, ns []float64) bool {
	switch op {
	case "eq":
		return v == ns[0]
	case "ne":
		return v != ns[0]
	case "gt":
		return v > ns[0]
	case "gte":
		return v >= ns[0]
	case "lt":
		return v < ns[0]
	case "lte":
		return v <= ns[0]
	case "between":
		return v >= ns[0] && v <= ns[1]
	}
	return false
}

// matchCollection applies a collection operator: eq — the tags are exactly the values (as
// sets); contains — the tags include every value; one_of — some tag is a value; not_in — no
// tag is a value.
func matchCollection(op string, tags, values []string, ci bool) bool {
	has := func(set []string, w string) bool {
		return slices.ContainsFunc(set, func(t string) bool { return fold(t, ci) == fold(w, ci) })
	}
	all := func(a, b []string) bool {
		for _, w := range a {
			if !has(b, w) {
				return false
			}
		}
		return true
	}
	switch op {
	case "eq":
		return all(values, tags) && all(tags, values)
	case "contains":
		return all(values, tags)
	case "one_of", "not_in":
		some := slices.ContainsFunc(values, func(w string) bool { return has(tags, w) })
		return some == (op == "one_of")
	}
	return false
}

// columnAccepts reports whether f may name col: the column is in the run's catalog, is
// filterable and its filter_type is the filter's kind.
func columnAccepts(cat *columns.Catalog, f *filter) bool {
	if f.kind == filterFullyAnnotated {
		return true
	}
	col, ok := cat.Lookup(f.column)
	return ok && col.Accepts(columns.FilterType(f.kind))
}
