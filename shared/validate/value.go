package validate

import (
	"encoding/json"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Value is one input at a location. Accessors check its type and rules the way Pydantic's
// lax mode does, record any problem in the collector, and report whether a usable value came
// out. An absent value is no problem unless Required was called.
type Value struct {
	errs     *Errors
	loc      []any
	raw      any
	present  bool
	parent   any // the containing input: what a `missing` error echoes
	nullable bool
}

// Body starts reading a decoded JSON body (from DecodeBody) at loc ["body"].
func (e *Errors) Body(raw any, present bool) Value {
	return Value{errs: e, loc: []any{"body"}, raw: raw, present: present && raw != nil}
}

// Query reads the query parameter name (the last one when repeated, as Starlette does).
func (e *Errors) Query(q url.Values, name string) Value {
	vs, ok := q[name]
	v := Value{errs: e, loc: []any{"query", name}, present: ok && len(vs) > 0}
	if v.present {
		v.raw = vs[len(vs)-1]
	}
	return v
}

// Path reads a path parameter.
func (e *Errors) Path(name, raw string) Value {
	return Value{errs: e, loc: []any{"path", name}, raw: raw, present: true}
}

// Loc is where the value stands.
func (v Value) Loc() []any { return v.loc }

// Raw is the value as decoded.
func (v Value) Raw() any { return v.raw }

// Present reports whether the input holds the value (JSON null counts as present).
func (v Value) Present() bool { return v.present }

// IsNull reports whether the value is present and JSON null.
func (v Value) IsNull() bool { return v.present && v.raw == nil }

// Required records `missing` when the value is absent.
func (v Value) Required() Value {
	if !v.present {
		v.errs.Add(Missing(v.loc, v.parent))
	}
	return v
}

// Nullable lets JSON null through every accessor as "no value" without a problem.
func (v Value) Nullable() Value {
	v.nullable = true
	return v
}

// Fail records a rule of the model (value_error) at this value.
func (v Value) Fail(message string) { v.errs.Add(ValueError(v.loc, v.raw, message)) }

// Add records a prepared error (built with this value's Loc and Raw).
func (v Value) Add(e Error) { v.errs.Add(e) }

// skip reports whether the accessor has nothing to check: absent, or null where allowed.
func (v Value) skip() bool { return !v.present || (v.raw == nil && v.nullable) }

// Rule is a constraint on a string's length, a list's size or a number's range.
type Rule struct {
	kind  string
	bound any
}

// MinLen and MaxLen bound lengths in characters (strings) or items (lists).
func MinLen(n int) Rule { return Rule{"min", n} }
func MaxLen(n int) Rule { return Rule{"max", n} }

// Ge, Gt, Le and Lt bound numbers; the bound is echoed as given (int or float64).
func Ge(b any) Rule { return Rule{"ge", b} }
func Gt(b any) Rule { return Rule{"gt", b} }
func Le(b any) Rule { return Rule{"le", b} }
func Lt(b any) Rule { return Rule{"lt", b} }

// String reads a string (numbers are not strings, as in Pydantic).
func (v Value) String(rules ...Rule) (string, bool) {
	if v.skip() {
		return "", false
	}
	s, ok := v.raw.(string)
	if !ok {
		v.errs.Add(StringType(v.loc, v.raw))
		return "", false
	}
	n := utf8.RuneCountInString(s)
	for _, r := range rules {
		switch r.kind {
		case "min":
			if n < r.bound.(int) {
				v.errs.Add(StringTooShort(v.loc, s, r.bound.(int)))
				return "", false
			}
		case "max":
			if n > r.bound.(int) {
				v.errs.Add(StringTooLong(v.loc, s, r.bound.(int)))
				return "", false
			}
		}
	}
	return s, true
}

// Enum reads a string that must be one of values (a Python Enum).
func (v Value) Enum(values ...string) (string, bool) { return v.oneOf(values, Enum) }

// Literal reads a string that must be one of values (a typing.Literal).
func (v Value) Literal(values ...string) (string, bool) { return v.oneOf(values, Literal) }

func (v Value) oneOf(values []string, mk func([]any, any, []string) Error) (string, bool) {
	if v.skip() {
		return "", false
	}
	s, ok := v.raw.(string)
	if ok {
		for _, a := range values {
			if s == a {
				return s, true
			}
		}
	}
	v.errs.Add(mk(v.loc, v.raw, values))
	return "", false
}

// Int reads an integer: JSON integers, floats without a fractional part, booleans and
// numeric strings, as Pydantic's lax mode accepts them.
func (v Value) Int(rules ...Rule) (int64, bool) {
	if v.skip() {
		return 0, false
	}
	var n int64
	switch x := v.raw.(type) {
	case json.Number:
		i, ok := intFromNumber(string(x))
		if !ok {
			if f, err := strconv.ParseFloat(string(x), 64); err == nil && f != math.Trunc(f) {
				v.errs.Add(IntFromFloat(v.loc, v.raw))
			} else {
				v.errs.Add(IntParsing(v.loc, v.raw))
			}
			return 0, false
		}
		n = i
	case float64: // NaN or infinity from the JSON parser
		v.errs.Add(FiniteNumber(v.loc, v.raw))
		return 0, false
	case bool:
		if x {
			n = 1
		}
	case string:
		i, ok := intFromNumber(strings.TrimSpace(x))
		if !ok {
			v.errs.Add(IntParsing(v.loc, v.raw))
			return 0, false
		}
		n = i
	default:
		v.errs.Add(IntType(v.loc, v.raw))
		return 0, false
	}
	if !v.inRange(float64(n), rules) {
		return 0, false
	}
	return n, true
}

func intFromNumber(s string) (int64, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return 0, false
	}
	return int64(f), true
}

// Float reads a number (integers, floats, booleans and numeric strings).
func (v Value) Float(rules ...Rule) (float64, bool) {
	if v.skip() {
		return 0, false
	}
	var f float64
	switch x := v.raw.(type) {
	case json.Number:
		g, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			v.errs.Add(FloatParsing(v.loc, v.raw))
			return 0, false
		}
		f = g
	case float64:
		f = x
	case bool:
		if x {
			f = 1
		}
	case string:
		g, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			v.errs.Add(FloatParsing(v.loc, v.raw))
			return 0, false
		}
		f = g
	default:
		v.errs.Add(FloatType(v.loc, v.raw))
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		v.errs.Add(FiniteNumber(v.loc, v.raw))
		return 0, false
	}
	if !Storable(f) {
		if math.Abs(f) < MinStorable && hasRule(rules, "tiny0") {
			f = 0
		} else {
			v.errs.Add(NotStorable(v.loc, v.raw))
			return 0, false
		}
	}
	if !v.inRange(f, rules) {
		return 0, false
	}
	return f, true
}

// The magnitudes a number may have to be stored: DynamoDB's number type holds 0 and
// magnitudes from 1e-130 to 9.9999999999999999999999999999999999999e125. Every number a
// request carries to the table is checked against them, so that it is a 422 at its location
// rather than a refused write.
const (
	MinStorable = 1e-130
	MaxStorable = 9.9999999999999999999999999999999999999e125
)

// Storable reports whether f can be stored.
func Storable(f float64) bool {
	a := math.Abs(f)
	return f == 0 || (a >= MinStorable && a <= MaxStorable)
}

// StoreTinyAsZero is the rule of a number where a magnitude too small to store means 0 (a
// sampling rate of 1e-300 is a rate of 0, as SPEC-DECISIONS.md says).
func StoreTinyAsZero() Rule { return Rule{kind: "tiny0"} }

func hasRule(rules []Rule, kind string) bool {
	for _, r := range rules {
		if r.kind == kind {
			return true
		}
	}
	return false
}

func (v Value) inRange(f float64, rules []Rule) bool {
	for _, r := range rules {
		b := toFloat(r.bound)
		var bad bool
		var e Error
		switch r.kind {
		case "ge":
			bad, e = f < b, GreaterThanEqual(v.loc, v.raw, r.bound)
		case "gt":
			bad, e = f <= b, GreaterThan(v.loc, v.raw, r.bound)
		case "le":
			bad, e = f > b, LessThanEqual(v.loc, v.raw, r.bound)
		case "lt":
			bad, e = f >= b, LessThan(v.loc, v.raw, r.bound)
		}
		if bad {
			v.errs.Add(e)
			return false
		}
	}
	return true
}

func toFloat(b any) float64 {
	switch x := b.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// Bool reads a boolean: true/false, 0/1 and the strings Pydantic accepts.
func (v Value) Bool() (bool, bool) {
	if v.skip() {
		return false, false
	}
	switch x := v.raw.(type) {
	case bool:
		return x, true
	case json.Number:
		switch string(x) {
		case "0", "0.0":
			return false, true
		case "1", "1.0":
			return true, true
		}
		v.errs.Add(BoolParsing(v.loc, v.raw))
		return false, false
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "0", "off", "f", "false", "n", "no":
			return false, true
		case "1", "on", "t", "true", "y", "yes":
			return true, true
		}
		v.errs.Add(BoolParsing(v.loc, v.raw))
		return false, false
	}
	v.errs.Add(BoolType(v.loc, v.raw))
	return false, false
}

// Object reads a JSON object (a nested model).
func (v Value) Object() (Obj, bool) {
	if v.skip() {
		return Obj{}, false
	}
	m, ok := v.raw.(map[string]any)
	if !ok {
		v.errs.Add(ModelAttributesType(v.loc, v.raw))
		return Obj{}, false
	}
	return Obj{errs: v.errs, loc: v.loc, m: m}, true
}

// List reads a JSON array; rules bound its length (MinLen, MaxLen).
func (v Value) List(rules ...Rule) ([]Value, bool) {
	if v.skip() {
		return nil, false
	}
	xs, ok := v.raw.([]any)
	if !ok {
		v.errs.Add(ListType(v.loc, v.raw))
		return nil, false
	}
	for _, r := range rules {
		switch r.kind {
		case "min":
			if len(xs) < r.bound.(int) {
				v.errs.Add(TooShort(v.loc, v.raw, "List", r.bound.(int), len(xs)))
				return nil, false
			}
		case "max":
			if len(xs) > r.bound.(int) {
				v.errs.Add(TooLong(v.loc, v.raw, "List", r.bound.(int), len(xs)))
				return nil, false
			}
		}
	}
	out := make([]Value, len(xs))
	for i, x := range xs {
		out[i] = Value{errs: v.errs, loc: At(v.loc, i), raw: x, present: true, parent: xs}
	}
	return out, true
}

// StringMap reads an object of string values (dict[str, str]).
func (v Value) StringMap() (map[string]string, bool) {
	o, ok := v.dict()
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(o.m))
	good := true
	for _, k := range o.Keys() {
		s, ok := o.Get(k).String()
		good = good && ok
		out[k] = s
	}
	return out, good
}

func (v Value) dict() (Obj, bool) {
	if v.skip() {
		return Obj{}, false
	}
	m, ok := v.raw.(map[string]any)
	if !ok {
		v.errs.Add(DictType(v.loc, v.raw))
		return Obj{}, false
	}
	return Obj{errs: v.errs, loc: v.loc, m: m}, true
}

// Dict reads any JSON object as a dictionary (dict[str, Any]).
func (v Value) Dict() (Obj, bool) { return v.dict() }

// Obj is a JSON object being read field by field.
type Obj struct {
	errs *Errors
	loc  []any
	m    map[string]any
}

// Get returns the field name (exact case, as Pydantic matches aliases).
func (o Obj) Get(name string) Value {
	raw, ok := o.m[name]
	return Value{errs: o.errs, loc: At(o.loc, name), raw: raw, present: ok, parent: o.m}
}

// Has reports whether the object holds the field.
func (o Obj) Has(name string) bool { _, ok := o.m[name]; return ok }

// Keys returns the object's field names in sorted order (stable error order).
func (o Obj) Keys() []string {
	ks := make([]string, 0, len(o.m))
	for k := range o.m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Raw is the object as decoded.
func (o Obj) Raw() map[string]any { return o.m }

// Loc is where the object stands.
func (o Obj) Loc() []any { return o.loc }
