package store

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/evalobs/evalapi/shared/fixed"
)

// The typed decoder: Unmarshal fills a record's struct from an item's values directly, by a
// plan built once per type (the fields json tags name, as encoding/json finds them), instead
// of writing the item as JSON text for encoding/json to read back. Each number goes straight
// into its field. It answers as encoding/json would on that text (TestCodecMatchesJSON holds
// the two equal on every record type of this package): what the plan does not know — a type
// with its own UnmarshalJSON or UnmarshalText (AnswerOptions, ScorerFilter, ...; fixed.Value and
// Content have cases of their own that answer as their UnmarshalJSON), a ",string" field,
// an array, []byte, a non-string map key — is decoded by encoding/json from that one value's
// JSON, and a struct whose fields conflict the way encoding/json resolves by its dominance
// rules is decoded by encoding/json whole.

// decodeFunc fills v (addressable) from x, a value of the vocabulary.
type decodeFunc func(x any, v reflect.Value) error

var (
	decoders     sync.Map // reflect.Type -> decodeFunc
	timeType     = reflect.TypeFor[time.Time]()
	rawType      = reflect.TypeFor[json.RawMessage]()
	jsonUnmType  = reflect.TypeFor[json.Unmarshaler]()
	textUnmType  = reflect.TypeFor[encoding.TextUnmarshaler]()
	anyType      = reflect.TypeFor[any]()
	fixedType    = reflect.TypeFor[fixed.Value]()
	contentType  = reflect.TypeFor[Content]()
	errUnplanned = fmt.Errorf("no plan")
)

// decodeInto fills the struct v points to from it.
func decodeInto(it Item, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &json.InvalidUnmarshalError{Type: reflect.TypeOf(v)}
	}
	return decoderOf(rv.Type().Elem())(map[string]any(it), rv.Elem())
}

// decoderOf returns the decoder of t, building it once. Recursive types get an indirection
// that finds the finished decoder when first called.
func decoderOf(t reflect.Type) decodeFunc {
	if f, ok := decoders.Load(t); ok {
		return f.(decodeFunc)
	}
	var (
		wg sync.WaitGroup
		fn decodeFunc
	)
	wg.Add(1)
	f, loaded := decoders.LoadOrStore(t, decodeFunc(func(x any, v reflect.Value) error {
		wg.Wait()
		return fn(x, v)
	}))
	if loaded {
		return f.(decodeFunc)
	}
	fn = newDecoder(t)
	wg.Done()
	decoders.Store(t, fn)
	return fn
}

func newDecoder(t reflect.Type) decodeFunc {
	switch t {
	case timeType:
		return decodeTime
	case rawType:
		return decodeRaw
	case fixedType:
		return decodeFixed
	case contentType:
		return decodeContentValue
	}
	if t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(jsonUnmType) || reflect.PointerTo(t).Implements(textUnmType)) {
		return decodeViaJSON
	}
	switch t.Kind() {
	case reflect.String:
		return decodeString
	case reflect.Bool:
		return decodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeUint
	case reflect.Float64:
		return decodeFloat
	case reflect.Interface:
		if t == anyType {
			return decodeAny
		}
	case reflect.Pointer:
		// encoding/json sets a pointer to nil on null and otherwise decodes into its element,
		// allocated when nil: a pointer to a type with a case of its own is one like any other.
		if e := t.Elem(); e == fixedType || e == contentType || !t.Implements(jsonUnmType) && !t.Implements(textUnmType) {
			return pointerDecoder(t)
		}
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			return sliceDecoder(t)
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String && !reflect.PointerTo(t.Key()).Implements(textUnmType) {
			return mapDecoder(t)
		}
	case reflect.Struct:
		if d, err := structDecoder(t); err == nil {
			return d
		}
	}
	return decodeViaJSON
}

// decodeViaJSON is encoding/json on x's JSON: for what the plans do not cover.
func decodeViaJSON(x any, v reflect.Value) error {
	b, err := appendJSON(nil, x)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v.Addr().Interface())
}

func typeError(what string, x any, t reflect.Type) error {
	return &json.UnmarshalTypeError{Value: what, Type: t, Field: fmt.Sprintf("(%T)", x)}
}

func decodeString(x any, v reflect.Value) error {
	switch s := x.(type) {
	case nil:
		return nil
	case string:
		v.SetString(validUTF8(s))
		return nil
	}
	return typeError("non-string", x, v.Type())
}

// validUTF8 is s as encoding/json's round trip leaves it: each byte of invalid UTF-8 becomes
// U+FFFD (appendJSON writes it so).
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var out string
	_ = json.Unmarshal(AppendJSONString(nil, s), &out)
	return out
}

func decodeBool(x any, v reflect.Value) error {
	switch b := x.(type) {
	case nil:
		return nil
	case bool:
		v.SetBool(b)
		return nil
	}
	return typeError("non-bool", x, v.Type())
}

// integral returns x as an integer when it is one (appendJSON writes an integral float as
// an integer, which encoding/json reads into an integer field).
func integral(x any) (int64, bool, bool) {
	switch n := x.(type) {
	case int64:
		return n, true, true
	case float64:
		if n == math.Trunc(n) && n >= -(1<<63) && n < 1<<63 {
			return int64(n), true, true
		}
		return 0, false, true
	}
	return 0, false, false
}

func decodeInt(x any, v reflect.Value) error {
	if x == nil {
		return nil
	}
	n, ok, num := integral(x)
	if !num {
		return typeError("non-number", x, v.Type())
	}
	if !ok || v.OverflowInt(n) {
		return typeError("number", x, v.Type())
	}
	v.SetInt(n)
	return nil
}

func decodeUint(x any, v reflect.Value) error {
	if x == nil {
		return nil
	}
	n, ok, num := integral(x)
	if !num {
		return typeError("non-number", x, v.Type())
	}
	if !ok || n < 0 || v.OverflowUint(uint64(n)) {
		return typeError("number", x, v.Type())
	}
	v.SetUint(uint64(n))
	return nil
}

func decodeFloat(x any, v reflect.Value) error {
	switch n := x.(type) {
	case nil:
		return nil
	case int64:
		v.SetFloat(float64(n))
		return nil
	case float64:
		v.SetFloat(n)
		return nil
	}
	return typeError("non-number", x, v.Type())
}

// decodeAny sets v to x as encoding/json decodes into an interface: numbers as float64.
func decodeAny(x any, v reflect.Value) error {
	if x == nil {
		v.SetZero()
		return nil
	}
	v.Set(reflect.ValueOf(asJSONValue(x)))
	return nil
}

// asJSONValue is x as encoding/json returns it in an interface: float64 numbers, valid
// UTF-8, fresh maps and slices.
func asJSONValue(x any) any {
	switch y := x.(type) {
	case int64:
		return float64(y)
	case string:
		return validUTF8(y)
	case []any:
		out := make([]any, len(y))
		for i, e := range y {
			out[i] = asJSONValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(y))
		for k, e := range y {
			out[validUTF8(k)] = asJSONValue(e)
		}
		return out
	case Item:
		return asJSONValue(map[string]any(y))
	}
	return x
}

func decodeTime(x any, v reflect.Value) error {
	switch s := x.(type) {
	case nil:
		return nil
	case string:
		if !utf8.ValidString(s) || strings.ContainsAny(s, "\"\\") {
			return decodeViaJSON(x, v)
		}
		return v.Addr().Interface().(*time.Time).UnmarshalText([]byte(s))
	}
	return decodeViaJSON(x, v)
}

func decodeRaw(x any, v reflect.Value) error {
	b, err := appendJSON(nil, x)
	if err != nil {
		return err
	}
	v.SetBytes(b)
	return nil
}

func pointerDecoder(t reflect.Type) decodeFunc {
	elem := t.Elem()
	return func(x any, v reflect.Value) error {
		if x == nil {
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(elem))
		}
		return decoderOf(elem)(x, v.Elem())
	}
}

func sliceDecoder(t reflect.Type) decodeFunc {
	return func(x any, v reflect.Value) error {
		switch list := x.(type) {
		case nil:
			v.SetZero()
			return nil
		case []any:
			dec := decoderOf(t.Elem())
			out := reflect.MakeSlice(t, len(list), len(list))
			for i, e := range list {
				if err := dec(e, out.Index(i)); err != nil {
					return err
				}
			}
			v.Set(out)
			return nil
		}
		return typeError("non-array", x, t)
	}
}

func mapDecoder(t reflect.Type) decodeFunc {
	return func(x any, v reflect.Value) error {
		if x == nil {
			v.SetZero()
			return nil
		}
		m, ok := asObject(x)
		if !ok {
			return typeError("non-object", x, t)
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(t, len(m)))
		}
		dec := decoderOf(t.Elem())
		for k, e := range m {
			ev := reflect.New(t.Elem()).Elem()
			if err := dec(e, ev); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(validUTF8(k)).Convert(t.Key()), ev)
		}
		return nil
	}
}

// asObject is x as an object of the vocabulary.
func asObject(x any) (map[string]any, bool) {
	switch y := x.(type) {
	case map[string]any:
		return y, true
	case Item:
		return y, true
	}
	return nil, false
}
