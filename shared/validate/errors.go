// Package validate reads request input the way the original FastAPI service does and reports
// every problem at once in Pydantic v2's words: the body of a 422 HTTPValidationError. It is
// the only place that words a validation error; handlers describe what they expect and get
// either typed values or an *Errors.
package validate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Error is one item of an HTTPValidationError's detail.
type Error struct {
	Type  string         `json:"type"`
	Loc   []any          `json:"loc"`
	Msg   string         `json:"msg"`
	Input any            `json:"input"`
	Ctx   map[string]any `json:"ctx,omitempty"`
}

// Errors is a failed validation: status 422 with {"detail": [...]}.
type Errors struct {
	Detail []Error `json:"detail"`
}

func (e *Errors) Error() string {
	parts := make([]string, len(e.Detail))
	for i, d := range e.Detail {
		parts[i] = fmt.Sprintf("%v: %s", d.Loc, d.Msg)
	}
	return "validation failed: " + strings.Join(parts, "; ")
}

// Add records one problem. Inputs are redacted here, once, so no path can echo a credential,
// and made encodable: NaN and the infinities, which the JSON reader accepts as Python's does,
// are echoed as the strings "NaN", "Infinity" and "-Infinity" (FastAPI cannot encode them at
// all and answers 500).
func (e *Errors) Add(d Error) {
	if d.Type == "missing" {
		// The input of a missing field is the object it is missing from (FastAPI echoes the
		// whole body): its own credentials are redacted, the object is not.
		d.Input = finite(redact(d.Input))
	} else {
		d.Input = finite(redactAt(d.Loc, d.Input))
	}
	if d.Loc == nil {
		d.Loc = []any{}
	}
	e.Detail = append(e.Detail, d)
}

// Len is the number of problems recorded.
func (e *Errors) Len() int { return len(e.Detail) }

// Err returns e when it holds a problem, else nil.
func (e *Errors) Err() error {
	if e == nil || len(e.Detail) == 0 {
		return nil
	}
	return e
}

// New returns an empty collector.
func New() *Errors { return &Errors{} }

// Single returns an *Errors holding one problem.
func Single(d Error) *Errors {
	e := New()
	e.Add(d)
	return e
}

// Redacted replaces credential values wherever an input would echo them.
const Redacted = "[redacted]"

// secretFields hold credentials: their values never leave in an error's input.
var secretFields = map[string]bool{
	"token": true, "password": true, "api_key": true, "client_secret": true,
	"default_headers": true, "refresh_token": true, "api_key_value": true, "headers": true,
	"webhook_secret": true, "webhook_url": true,
}

func redactAt(loc []any, input any) any {
	// A body handed on unparsed (sent with a Content-Type that is not JSON) is echoed as its
	// raw text at ["body"]: redacted whole when it names any credential field.
	if s, ok := input.(string); ok && len(loc) == 1 && loc[0] == "body" && mentionsSecret(s) {
		return Redacted
	}
	if len(loc) > 0 {
		for _, seg := range loc {
			if s, ok := seg.(string); ok && secretFields[s] {
				return Redacted
			}
		}
	}
	return redact(input)
}

func redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if secretFields[k] {
				out[k] = Redacted
			} else {
				out[k] = redact(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redact(e)
		}
		return out
	}
	return v
}

// Loc helpers.

// At returns loc extended by more segments (a new slice: locs are shared by values).
func At(loc []any, more ...any) []any {
	out := make([]any, 0, len(loc)+len(more))
	return append(append(out, loc...), more...)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Quoted joins values as Pydantic lists expected literals: 'a', 'b' or 'c'.
func Quoted(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "'" + v + "'"
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// The constructors below give each Pydantic error type its exact type, msg and ctx.

func Missing(loc []any, input any) Error {
	return Error{Type: "missing", Loc: loc, Msg: "Field required", Input: input}
}

func StringType(loc []any, input any) Error {
	return Error{Type: "string_type", Loc: loc, Msg: "Input should be a valid string", Input: input}
}

func StringTooShort(loc []any, input any, min int) Error {
	return Error{Type: "string_too_short", Loc: loc, Input: input,
		Msg: fmt.Sprintf("String should have at least %d character%s", min, plural(min)),
		Ctx: map[string]any{"min_length": min}}
}

func StringTooLong(loc []any, input any, max int) Error {
	return Error{Type: "string_too_long", Loc: loc, Input: input,
		Msg: fmt.Sprintf("String should have at most %d character%s", max, plural(max)),
		Ctx: map[string]any{"max_length": max}}
}

func StringPattern(loc []any, input any, pattern string) Error {
	return Error{Type: "string_pattern_mismatch", Loc: loc, Input: input,
		Msg: fmt.Sprintf("String should match pattern '%s'", pattern),
		Ctx: map[string]any{"pattern": pattern}}
}

func IntType(loc []any, input any) Error {
	return Error{Type: "int_type", Loc: loc, Msg: "Input should be a valid integer", Input: input}
}

func IntParsing(loc []any, input any) Error {
	return Error{Type: "int_parsing", Loc: loc, Input: input,
		Msg: "Input should be a valid integer, unable to parse string as an integer"}
}

func IntFromFloat(loc []any, input any) Error {
	return Error{Type: "int_from_float", Loc: loc, Input: input,
		Msg: "Input should be a valid integer, got a number with a fractional part"}
}

func FloatType(loc []any, input any) Error {
	return Error{Type: "float_type", Loc: loc, Msg: "Input should be a valid number", Input: input}
}

func FloatParsing(loc []any, input any) Error {
	return Error{Type: "float_parsing", Loc: loc, Input: input,
		Msg: "Input should be a valid number, unable to parse string as a number"}
}

func FiniteNumber(loc []any, input any) Error {
	return Error{Type: "finite_number", Loc: loc, Msg: "Input should be a finite number", Input: input}
}

// NotStorable is a finite number outside the range the table can store (Storable).
func NotStorable(loc []any, input any) Error {
	return ValueError(loc, input, "the number is outside the range that can be stored: 0, or 1e-130 to 9.9999999999999999999999999999999999999e+125 in magnitude")
}

func BoolType(loc []any, input any) Error {
	return Error{Type: "bool_type", Loc: loc, Msg: "Input should be a valid boolean", Input: input}
}

func BoolParsing(loc []any, input any) Error {
	return Error{Type: "bool_parsing", Loc: loc, Input: input,
		Msg: "Input should be a valid boolean, unable to interpret input"}
}

// TooShort and TooLong are the item-count errors of lists ("List"), sets and dicts.
func TooShort(loc []any, input any, fieldType string, min, actual int) Error {
	return Error{Type: "too_short", Loc: loc, Input: input,
		Msg: fmt.Sprintf("%s should have at least %d item%s after validation, not %d", fieldType, min, plural(min), actual),
		Ctx: map[string]any{"field_type": fieldType, "min_length": min, "actual_length": actual}}
}

func TooLong(loc []any, input any, fieldType string, max, actual int) Error {
	return Error{Type: "too_long", Loc: loc, Input: input,
		Msg: fmt.Sprintf("%s should have at most %d item%s after validation, not %d", fieldType, max, plural(max), actual),
		Ctx: map[string]any{"field_type": fieldType, "max_length": max, "actual_length": actual}}
}

// Bound errors echo the bound as declared (an int stays an int, a float a float).
func GreaterThanEqual(loc []any, input any, ge any) Error {
	return Error{Type: "greater_than_equal", Loc: loc, Input: input,
		Msg: fmt.Sprintf("Input should be greater than or equal to %s", num(ge)), Ctx: map[string]any{"ge": ge}}
}

func GreaterThan(loc []any, input any, gt any) Error {
	return Error{Type: "greater_than", Loc: loc, Input: input,
		Msg: fmt.Sprintf("Input should be greater than %s", num(gt)), Ctx: map[string]any{"gt": gt}}
}

func LessThanEqual(loc []any, input any, le any) Error {
	return Error{Type: "less_than_equal", Loc: loc, Input: input,
		Msg: fmt.Sprintf("Input should be less than or equal to %s", num(le)), Ctx: map[string]any{"le": le}}
}

func LessThan(loc []any, input any, lt any) Error {
	return Error{Type: "less_than", Loc: loc, Input: input,
		Msg: fmt.Sprintf("Input should be less than %s", num(lt)), Ctx: map[string]any{"lt": lt}}
}

// num prints a bound as Python would: 1.0 for a float, 1 for an int.
func num(v any) string {
	if f, ok := v.(float64); ok {
		if f == float64(int64(f)) {
			return fmt.Sprintf("%.1f", f)
		}
		return fmt.Sprint(f)
	}
	return fmt.Sprint(v)
}

func Enum(loc []any, input any, expected []string) Error {
	e := Quoted(expected)
	return Error{Type: "enum", Loc: loc, Input: input, Msg: "Input should be " + e, Ctx: map[string]any{"expected": e}}
}

func Literal(loc []any, input any, expected []string) Error {
	e := Quoted(expected)
	return Error{Type: "literal_error", Loc: loc, Input: input, Msg: "Input should be " + e, Ctx: map[string]any{"expected": e}}
}

func UUIDType(loc []any, input any) Error {
	return Error{Type: "uuid_type", Loc: loc, Input: input, Msg: "UUID input should be a string, bytes or UUID object"}
}

func UUIDParsing(loc []any, input any, detail string) Error {
	return Error{Type: "uuid_parsing", Loc: loc, Input: input,
		Msg: "Input should be a valid UUID, " + detail, Ctx: map[string]any{"error": detail}}
}

func UUIDVersion(loc []any, input any, version int) Error {
	return Error{Type: "uuid_version", Loc: loc, Input: input,
		Msg: fmt.Sprintf("UUID version %d expected", version), Ctx: map[string]any{"expected_version": version}}
}

func DatetimeType(loc []any, input any) Error {
	return Error{Type: "datetime_type", Loc: loc, Input: input, Msg: "Input should be a valid datetime"}
}

func DatetimeFromDateParsing(loc []any, input any, detail string) Error {
	return Error{Type: "datetime_from_date_parsing", Loc: loc, Input: input,
		Msg: "Input should be a valid datetime or date, " + detail, Ctx: map[string]any{"error": detail}}
}

func DateType(loc []any, input any) Error {
	return Error{Type: "date_type", Loc: loc, Input: input, Msg: "Input should be a valid date"}
}

func DateFromDatetimeParsing(loc []any, input any, detail string) Error {
	return Error{Type: "date_from_datetime_parsing", Loc: loc, Input: input,
		Msg: "Input should be a valid date or datetime, " + detail, Ctx: map[string]any{"error": detail}}
}

func DateFromDatetimeInexact(loc []any, input any) Error {
	return Error{Type: "date_from_datetime_inexact", Loc: loc, Input: input,
		Msg: "Datetimes provided to dates should have zero time - e.g. be exact dates"}
}

// ValueError is a rule of the model itself (a Pydantic validator raising ValueError).
// FastAPI renders its ctx as {"error": {}}.
func ValueError(loc []any, input any, message string) Error {
	return Error{Type: "value_error", Loc: loc, Input: input, Msg: "Value error, " + message,
		Ctx: map[string]any{"error": map[string]any{}}}
}

func ModelAttributesType(loc []any, input any) Error {
	return Error{Type: "model_attributes_type", Loc: loc, Input: input,
		Msg: "Input should be a valid dictionary or object to extract fields from"}
}

func DictType(loc []any, input any) Error {
	return Error{Type: "dict_type", Loc: loc, Msg: "Input should be a valid dictionary", Input: input}
}

func ListType(loc []any, input any) Error {
	return Error{Type: "list_type", Loc: loc, Msg: "Input should be a valid list", Input: input}
}

// JSONInvalid is FastAPI's own error for a body that is not JSON.
func JSONInvalid(pos int, detail string) Error {
	return Error{Type: "json_invalid", Loc: []any{"body", pos}, Msg: "JSON decode error",
		Input: map[string]any{}, Ctx: map[string]any{"error": detail}}
}

func UnionTagInvalid(loc []any, input any, discriminator, tag string, expected []string) Error {
	d, e := "'"+discriminator+"'", quotedList(expected)
	return Error{Type: "union_tag_invalid", Loc: loc, Input: input,
		Msg: fmt.Sprintf("Input tag '%s' found using %s does not match any of the expected tags: %s", tag, d, e),
		Ctx: map[string]any{"discriminator": d, "tag": tag, "expected_tags": e}}
}

func UnionTagNotFound(loc []any, input any, discriminator string) Error {
	d := "'" + discriminator + "'"
	return Error{Type: "union_tag_not_found", Loc: loc, Input: input,
		Msg: "Unable to extract tag using discriminator " + d, Ctx: map[string]any{"discriminator": d}}
}

func quotedList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q, ", ")
}

// finite returns v with every NaN or infinite number replaced by its Python spelling, copying
// only the containers that hold one.
func finite(v any) any {
	out, _ := finiteValue(v)
	return out
}

// finiteValue is finite, and reports whether it replaced anything.
func finiteValue(v any) (any, bool) {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN", true
		case math.IsInf(x, 1):
			return "Infinity", true
		case math.IsInf(x, -1):
			return "-Infinity", true
		}
	case []any:
		var out []any
		for i, e := range x {
			f, changed := finiteValue(e)
			if changed && out == nil {
				out = slices.Clone(x)
			}
			if out != nil {
				out[i] = f
			}
		}
		if out != nil {
			return out, true
		}
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			f, changed := finiteValue(e)
			if changed && out == nil {
				out = maps.Clone(x)
			}
			if changed {
				out[k] = f
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// mentionsSecret reports whether raw text names a credential field (in any case), so may
// carry its value.
func mentionsSecret(s string) bool {
	lower := strings.ToLower(s)
	for name := range secretFields {
		if strings.Contains(lower, name) {
			return true
		}
	}
	return false
}
