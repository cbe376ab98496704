package traces

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Limits of a metrics search.
const (
	defaultInterval = 5
	maxBuckets      = 10_000
	// maxIntervalMinutes caps the bucket length used in time arithmetic.
	maxIntervalMinutes = 10_000_000
	// maxRange is the longest range a search may cover.
	maxRange = 200 * 365 * 24 * time.Hour
)

// searchRequest is a validated body of operation 10.
type searchRequest struct {
	start, end time.Time
	run        runRef
	interval   time.Duration
	filters    []*filter
	groupBy    string
	raw        any // the body, for errors about the whole query
	// runTraces is the run's trace count when the handler read its summary already (while it
	// looked the run up), so that the scan estimate costs no round trip of its own.
	runTraces *int64
	// resolve reads back the contents a scan's trace keeps in the payload store, when the
	// query filters or groups on content (nil: none are resolved, as in tests).
	resolve func(context.Context, *store.RecordContent) error
}

// runFields are the body fields that name the run, of which exactly one is sent.
var runFields = []string{"log_stream_id", "experiment_id", "metrics_testing_id"}

// readRun reads the fields that name the run, each a uuid; one reports whether exactly one
// was sent. (That rule is the model's: callers check it once every field is valid.)
func readRun(o validate.Obj, fields []string) (ref runRef, one bool) {
	sent := 0
	for _, f := range fields {
		v := o.Get(f).Nullable()
		if !v.Present() || v.IsNull() {
			continue
		}
		sent++
		if id, good := v.UUID(4); good && ref.id == "" {
			ref = runRef{field: f, id: id}
		}
	}
	return ref, sent == 1
}

// oneRunError is the model rule's error when not exactly one of fields was sent.
func oneRunError(o validate.Obj, fields []string) validate.Error {
	return validate.ValueError([]any{"body"}, o.Raw(), "exactly one of "+joinOr(fields)+" is required")
}

func joinOr(fields []string) string {
	out := ""
	for i, f := range fields {
		switch {
		case i == 0:
		case i == len(fields)-1:
			out += " and "
		default:
			out += ", "
		}
		out += f
	}
	return out
}

// readSearch reads and checks the body of operation 10 (everything that does not need the run).
func readSearch(errs *validate.Errors, raw any, present bool) searchRequest {
	q := searchRequest{raw: raw}
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return q
	}
	before := errs.Len()
	start, _ := o.Get("start_time").Required().Datetime()
	end, _ := o.Get("end_time").Required().Datetime()
	q.start, q.end = start.UTC(), end.UTC()
	run, oneRun := readRun(o, runFields)
	q.run = run
	minutes := int64(defaultInterval)
	if v := o.Get("interval"); v.Present() {
		minutes, _ = v.Int(validate.Ge(1))
	}
	// An interval past maxIntervalMinutes (19 years) buckets like one of that length and
	// keeps durations from overflowing.
	q.interval = time.Duration(min(minutes, maxIntervalMinutes)) * time.Minute
	if g := o.Get("group_by").Nullable(); g.Present() && !g.IsNull() {
		q.groupBy, _ = g.String(validate.MinLen(1))
	}
	if fv := o.Get("filters").Nullable(); fv.Present() && !fv.IsNull() {
		items, _ := fv.List()
		for _, it := range items {
			if f, ok := readFilter(it); ok {
				q.filters = append(q.filters, f)
			}
		}
	}
	// The rules of the whole query run once every field is valid, as Pydantic's model
	// validators do; the first that fails is the one reported.
	if errs.Len() > before {
		return q
	}
	switch {
	case !oneRun:
		errs.Add(oneRunError(o, runFields))
	case !q.start.Before(q.end):
		errs.Add(validate.ValueError([]any{"body"}, o.Raw(), "start_time must be before end_time"))
	case q.end.Sub(q.start) > maxRange:
		// Durations saturate at 292 years; a longer range could not be bucketed.
		errs.Add(validate.ValueError([]any{"body"}, o.Raw(), "the range from start_time to end_time must be at most 200 years"))
	default:
		if n := bucketCount(q.start, q.end, q.interval); n > maxBuckets {
			errs.Add(validate.ValueError([]any{"body"}, o.Raw(), fmt.Sprintf(
				"the range holds %d buckets of %s, more than %d: widen interval or narrow start_time and end_time",
				n, plural(minutes, "minute"), maxBuckets)))
		}
	}
	return q
}

// readFilter reads one filter, a union discriminated by `type`. Problems inside a variant are
// reported under the tag, as Pydantic does.
func readFilter(v validate.Value) (*filter, bool) {
	o, ok := v.Object()
	if !ok {
		return nil, false
	}
	if !o.Has("type") {
		v.Add(validate.UnionTagNotFound(v.Loc(), v.Raw(), "type"))
		return nil, false
	}
	tag, isString := o.Get("type").Raw().(string)
	if !isString || !slices.Contains(filterKinds, tag) {
		v.Add(validate.UnionTagInvalid(v.Loc(), v.Raw(), "type", fmt.Sprint(o.Get("type").Raw()), filterKinds))
		return nil, false
	}
	return within(v, tag, func(v validate.Value) (*filter, bool) { return readVariant(v, tag) })
}

// readVariant reads the fields of the filter kind tag.
func readVariant(v validate.Value, tag string) (*filter, bool) {
	o, ok := v.Object()
	if !ok {
		return nil, false
	}
	f := &filter{kind: tag, caseSensitive: true}
	if tag == filterFullyAnnotated {
		f.column = filterFullyAnnotated
		if c := o.Get("column_id"); c.Present() {
			f.column, _ = c.Literal(filterFullyAnnotated)
		}
		if u := o.Get("user_ids").Nullable(); u.Present() && !u.IsNull() {
			ids, _ := u.List(validate.MinLen(1))
			for _, id := range ids {
				if s, ok := id.UUID(4); ok {
					f.userIDs = append(f.userIDs, s)
				}
			}
		}
		return f, true
	}
	name := o.Get("name")
	if !name.Present() {
		name = o.Get("column_id")
	}
	if !name.Present() {
		name = o.Get("name")
	}
	f.column, _ = name.Required().String()
	op := o.Get("operator")
	if tag == "id" || tag == "boolean" {
		f.op = "eq"
		if op.Present() {
			f.op, _ = op.Enum(operators[tag]...)
		}
	} else {
		f.op, _ = op.Required().Enum(operators[tag]...)
	}
	val := o.Get("value").Required()
	switch tag {
	case "id", "text", "collection":
		f.strs, _ = readStrings(val)
		if cs := o.Get("case_sensitive"); tag != "id" && cs.Present() {
			f.caseSensitive, _ = cs.Bool()
		}
	case "number":
		f.nums, _ = readNumbers(val, f.op)
	case "date":
		f.when, _ = val.Datetime()
	case "boolean":
		f.b, _ = val.Bool()
	}
	return f, true
}

// readStrings reads a string or a list of strings.
func readStrings(v validate.Value) ([]string, bool) {
	if !v.Present() {
		return nil, false
	}
	if _, isList := v.Raw().([]any); !isList {
		s, ok := v.String()
		return []string{s}, ok
	}
	items, ok := v.List()
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, good := it.String()
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

// readNumbers reads a number filter's value: one number, or [low, high] for between.
func readNumbers(v validate.Value, op string) ([]float64, bool) {
	if !v.Present() {
		return nil, false
	}
	if op == "between" {
		items, ok := v.List(validate.MinLen(2), validate.MaxLen(2))
		if !ok {
			return nil, false
		}
		lo, ok1 := items[0].Float()
		hi, ok2 := items[1].Float()
		if ok1 && ok2 && lo > hi {
			v.Fail("between needs [low, high] with low <= high")
			return nil, false
		}
		return []float64{lo, hi}, ok1 && ok2
	}
	if _, isList := v.Raw().([]any); isList && op != "" {
		v.Fail("operator " + op + " takes one number")
		return nil, false
	}
	n, ok := v.Float()
	return []float64{n}, ok
}

// within reads v with read on a collector of its own and re-roots its problems at v's loc
// plus seg (the union tag), as Pydantic reports errors inside a discriminated union.
func within[T any](v validate.Value, seg string, read func(v validate.Value) (T, bool)) (T, bool) {
	sub := validate.New()
	root, _ := sub.Body(map[string]any{"v": v.Raw()}, true).Object()
	out, ok := read(root.Get("v"))
	for _, e := range sub.Detail {
		e.Loc = validate.At(validate.At(v.Loc(), seg), e.Loc[2:]...)
		v.Add(e)
	}
	return out, ok && sub.Len() == 0
}

// plural spells n units: "1 minute", "5 minutes".
func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
