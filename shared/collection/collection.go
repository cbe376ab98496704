// Package collection reads and applies the filters, sorts and pages of the original
// service's list operations (projects, log streams, datasets, dataset versions, scorers):
// a filter is a union discriminated by its `name`, of a few kinds (an id, a text, a date, a
// number, a boolean, a reference); a sort names a field and a direction. Lists are small
// enough to be read whole and filtered, sorted and paged in memory; each operation says
// which filters and sorts it takes and how a record shows each field.
package collection

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/validate"
)

// Kind is the kind of value a filter tests.
type Kind int

const (
	ID     Kind = iota // a uuid, or a list of them; contains matches substrings
	Text               // a string or a list; case_sensitive (default true)
	Strs               // a string or a list, compared as given
	Date               // a date-time
	Number             // a number, or [low, high] for between
	Bool               // a boolean (eq by default)
	Ref                // a uuid the record must (or must not) refer to
	List               // a string or a list, tested against a list field (its members)
	Flag               // no value: the record's field (a bool) says whether it passes
	Scope              // project_ids and include_global, tested against a Scoped field
)

// Scoped is the field a Scope filter tests: whether the record is global to the
// organization, else the projects it is scoped to.
type Scoped struct {
	Global   bool
	Projects []string
}

// Operator enumerations of the kinds, in the original's order.
var (
	IDOps     = []string{"eq", "ne", "one_of", "not_in", "contains"}
	TextOps   = []string{"eq", "ne", "contains", "one_of", "not_in"}
	EnumOps   = []string{"eq", "ne", "one_of", "not_in"}
	DateOps   = []string{"eq", "ne", "gt", "gte", "lt", "lte"}
	NumberOps = []string{"eq", "ne", "gt", "gte", "lt", "lte", "between"}
	BoolOps   = []string{"eq", "ne"}
	ListOps   = []string{"eq", "contains", "one_of", "not_in"}
)

// FilterSpec is one kind of filter of an operation, named by its `name` tag.
type FilterSpec struct {
	Name       string   // the tag
	Kind       Kind     //
	Ops        []string // nil: the filter takes no operator (a boolean without one, a reference)
	DefaultOp  string   // "" when the operator is required
	Negate     bool     // Ref: the record must not refer to the value
	CaseFolded bool     // Text, List: case_sensitive defaults to false
}

// Filter is one validated filter.
type Filter struct {
	Spec          FilterSpec
	Op            string
	Strings       []string // ID, Text, Strs, Ref
	Numbers       []float64
	Time          time.Time
	Bool          bool
	CaseSensitive bool
}

// Record shows the field a filter or a sort names, of one item: a string, a []string (a
// reference field: the ids it refers to), a time.Time, a float64, or a bool.
type Record func(field string) any

// ReadFilters reads v, a list of filters of the given kinds (absent or null: none).
func ReadFilters(v validate.Value, specs []FilterSpec) []Filter {
	items, ok := v.Nullable().List()
	if !ok {
		return nil
	}
	tags := make([]string, len(specs))
	for i, s := range specs {
		tags[i] = s.Name
	}
	var out []Filter
	for _, it := range items {
		o, ok := it.Object()
		if !ok {
			continue
		}
		if !o.Has("name") {
			it.Add(validate.UnionTagNotFound(it.Loc(), it.Raw(), "name"))
			continue
		}
		tag := validate.PyStr(o.Get("name").Raw())
		i := slices.Index(tags, tag)
		if _, isString := o.Get("name").Raw().(string); !isString || i < 0 {
			it.Add(validate.UnionTagInvalid(it.Loc(), it.Raw(), "name", tag, tags))
			continue
		}
		if f, ok := validate.Tagged(it, tag, func(v validate.Value) (Filter, bool) { return readFilter(v, specs[i]) }); ok {
			out = append(out, f)
		}
	}
	return out
}

func readFilter(v validate.Value, spec FilterSpec) (Filter, bool) {
	o, ok := v.Object()
	if !ok {
		return Filter{}, false
	}
	f := Filter{Spec: spec, Op: spec.DefaultOp, CaseSensitive: !spec.CaseFolded}
	switch spec.Kind {
	case Flag:
		return f, true
	case Scope:
		if items, ok := o.Get("project_ids").Required().List(); ok {
			for _, it := range items {
				id, _ := it.UUID(4)
				f.Strings = append(f.Strings, id)
			}
		}
		f.Bool, _ = o.Get("include_global").Bool()
		return f, true
	}
	if spec.Ops != nil {
		op := o.Get("operator")
		if spec.DefaultOp == "" {
			op = op.Required()
		}
		if s, ok := op.Enum(spec.Ops...); ok {
			f.Op = s
		}
	}
	val := o.Get("value").Required()
	switch spec.Kind {
	case ID, Text, Strs, List:
		f.Strings, _ = readStrings(val)
		if (spec.Kind == Text || spec.Kind == List) && o.Has("case_sensitive") {
			f.CaseSensitive, _ = o.Get("case_sensitive").Bool()
		}
	case Ref:
		s, _ := val.UUID(4)
		f.Strings = []string{s}
	case Date:
		f.Time, _ = val.Datetime()
	case Number:
		f.Numbers, _ = readNumbers(val, f.Op == "between")
	case Bool:
		f.Bool, _ = val.Bool()
	}
	return f, true
}

// readStrings reads a string or a list of strings.
func readStrings(v validate.Value) ([]string, bool) {
	if !v.Present() {
		return nil, false
	}
	return validate.Union(v,
		validate.Member[[]string]{Name: "str", Read: func(v validate.Value) ([]string, bool) {
			s, ok := v.String()
			return []string{s}, ok
		}},
		validate.Member[[]string]{Name: "list[str]", Read: func(v validate.Value) ([]string, bool) {
			items, ok := v.List()
			out := make([]string, 0, len(items))
			for _, it := range items {
				s, _ := it.String()
				out = append(out, s)
			}
			return out, ok
		}},
	)
}

// readNumbers reads a number, or the two bounds of between.
func readNumbers(v validate.Value, between bool) ([]float64, bool) {
	if !between {
		n, ok := v.Float()
		return []float64{n}, ok
	}
	items, ok := v.List(validate.MinLen(2), validate.MaxLen(2))
	if !ok {
		return nil, false
	}
	out := make([]float64, 0, 2)
	for _, it := range items {
		n, _ := it.Float()
		out = append(out, n)
	}
	return out, true
}

// Match reports whether rec passes every filter; a filter names the field of its own name.
func Match(filters []Filter, rec Record) bool {
	for _, f := range filters {
		if !f.matches(rec(f.Spec.Name)) {
			return false
		}
	}
	return true
}

func (f Filter) matches(field any) bool {
	switch f.Spec.Kind {
	case ID, Text, Strs:
		s, _ := field.(string)
		return matchString(f.Op, s, f.Strings, f.Spec.Kind == Text && !f.CaseSensitive)
	case Ref:
		refs, _ := field.([]string)
		return slices.Contains(refs, f.Strings[0]) != f.Spec.Negate
	case Date:
		t, _ := field.(time.Time)
		return compare(f.Op, float64(t.Compare(f.Time)), 0)
	case Number:
		n, _ := field.(float64)
		if f.Op == "between" {
			return len(f.Numbers) == 2 && n >= f.Numbers[0] && n <= f.Numbers[1]
		}
		return len(f.Numbers) == 1 && compare(f.Op, n, f.Numbers[0])
	case Bool:
		b, _ := field.(bool)
		return (b == f.Bool) != (f.Op == "ne")
	case List:
		members, _ := field.([]string)
		return matchList(f.Op, members, f.Strings, !f.CaseSensitive)
	case Flag:
		b, _ := field.(bool)
		return b
	case Scope:
		sc, _ := field.(Scoped)
		return sc.Global && f.Bool || slices.ContainsFunc(f.Strings, func(p string) bool { return slices.Contains(sc.Projects, p) })
	}
	return false
}

// matchList tests a list field: eq holds when it has exactly the values (in any order),
// contains when a member contains one of them, one_of when it has one of them, not_in when
// it has none.
func matchList(op string, members, values []string, fold bool) bool {
	has := func(v string) bool {
		for _, m := range members {
			if m == v || fold && strings.EqualFold(m, v) {
				return true
			}
		}
		return false
	}
	switch op {
	case "eq":
		if len(members) != len(values) {
			return false
		}
		for _, v := range values {
			if !has(v) {
				return false
			}
		}
		return true
	case "contains":
		for _, m := range members {
			if matchString("contains", m, values, fold) {
				return true
			}
		}
		return false
	case "one_of":
		return slices.ContainsFunc(values, has)
	case "not_in":
		return !slices.ContainsFunc(values, has)
	}
	return false
}

func matchString(op, s string, values []string, fold bool) bool {
	norm := func(x string) string {
		if fold {
			return strings.ToLower(x)
		}
		return x
	}
	s = norm(s)
	any := func(pred func(v string) bool) bool {
		for _, v := range values {
			if pred(norm(v)) {
				return true
			}
		}
		return false
	}
	switch op {
	case "eq", "one_of":
		return any(func(v string) bool { return s == v })
	case "ne", "not_in":
		return !any(func(v string) bool { return s == v })
	case "contains":
		return any(func(v string) bool { return strings.Contains(s, v) })
	}
	return false
}

func compare(op string, a, b float64) bool {
	switch op {
	case "eq":
		return a == b
	case "ne":
		return a != b
	case "gt":
		return a > b
	case "gte":
		return a >= b
	case "lt":
		return a < b
	case "lte":
		return a <= b
	}
	return false
}

// SortSpec is one sort of an operation, named by its `name` tag.
type SortSpec struct {
	Name     string
	SortType string // the const sort_type of the original ("column", "custom", "custom_uuid")
}

// Sort is a validated sort: the field, the direction, and (custom_uuid sorts) the uuid
// the order is relative to.
type Sort struct {
	Name      string
	Ascending bool
	Value     string
}

// ReadSort reads v, one sort of the given kinds (absent or null: def).
func ReadSort(v validate.Value, specs []SortSpec, def Sort) Sort {
	if !v.Present() || v.IsNull() {
		return def
	}
	o, ok := v.Object()
	if !ok {
		return def
	}
	tags := make([]string, len(specs))
	for i, s := range specs {
		tags[i] = s.Name
	}
	if !o.Has("name") {
		v.Add(validate.UnionTagNotFound(v.Loc(), v.Raw(), "name"))
		return def
	}
	tag := validate.PyStr(o.Get("name").Raw())
	i := slices.Index(tags, tag)
	if _, isString := o.Get("name").Raw().(string); !isString || i < 0 {
		v.Add(validate.UnionTagInvalid(v.Loc(), v.Raw(), "name", tag, tags))
		return def
	}
	s, _ := validate.Tagged(v, tag, func(v validate.Value) (Sort, bool) {
		o, _ := v.Object()
		s := Sort{Name: tag, Ascending: true}
		if o.Has("ascending") {
			s.Ascending, _ = o.Get("ascending").Bool()
		}
		if o.Has("sort_type") {
			o.Get("sort_type").Literal(specs[i].SortType)
		}
		if specs[i].SortType == "custom_uuid" {
			s.Value, _ = o.Get("value").Required().UUID(4)
		}
		return s, true
	})
	return s
}

// Less orders two records by the sort's field (strings, times, numbers, booleans; false
// before true), in its direction.
func (s Sort) Less(a, b Record) bool {
	c := compareFields(a(s.Name), b(s.Name))
	if s.Ascending {
		return c < 0
	}
	return c > 0
}

func compareFields(a, b any) int {
	switch x := a.(type) {
	case string:
		y, _ := b.(string)
		return strings.Compare(x, y)
	case time.Time:
		y, _ := b.(time.Time)
		return x.Compare(y)
	case float64:
		y, _ := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case bool:
		y, _ := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	panic(fmt.Sprintf("collection: cannot sort by a %T", a))
}

// Page returns items[start : start+limit] and the next starting token (nil at the end),
// as every paginated answer of the original carries them.
func Page[T any](items []T, start, limit int) ([]T, *int) {
	if start >= len(items) {
		return []T{}, nil
	}
	end := min(start+limit, len(items))
	if end == len(items) {
		return items[start:end], nil
	}
	return items[start:end], &end
}

// Apply keeps the items that pass the filters, in the sort's order (stable: ties keep the
// order items came in).
func Apply[T any](items []T, filters []Filter, s Sort, rec func(T) Record) []T {
	out := make([]T, 0, len(items))
	for _, it := range items {
		if Match(filters, rec(it)) {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b T) int {
		ra, rb := rec(a), rec(b)
		switch {
		case s.Less(ra, rb):
			return -1
		case s.Less(rb, ra):
			return 1
		}
		return 0
	})
	return out
}
