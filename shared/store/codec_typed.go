package store

import (
	"math"
	"reflect"

	"github.com/evalobs/evalapi/shared/fixed"
)

// Cases of the typed decoder for types with their own UnmarshalJSON that the store's records
// hold often enough to skip the JSON route (decodeViaJSON): each answers as that
// UnmarshalJSON on the value's JSON (TestDecodeFixedMatchesJSON, TestCodecMatchesJSON).

// decodeFixed is fixed.Value's UnmarshalJSON (Parse of the JSON text, quotes trimmed) without
// the text, for an integer, a float of a magnitude FromFloat and Parse agree on (the text of
// a float is its shortest decimal, which both round alike), and a string that is a number's
// characters only (its JSON is itself in quotes); anything else takes the JSON route.
func decodeFixed(x any, v reflect.Value) error {
	p := v.Addr().Interface().(*fixed.Value)
	switch n := x.(type) {
	case int64:
		*p = fixed.FromInt(n)
		return nil
	case float64:
		if math.Abs(n) < 1e15 {
			if f, err := fixed.FromFloat(n); err == nil {
				*p = f
				return nil
			}
		}
	case string:
		if numberText(n) {
			f, err := fixed.Parse(n)
			if err != nil {
				return err
			}
			*p = f
			return nil
		}
	}
	return decodeViaJSON(x, v)
}

// numberText reports whether s holds only characters of a JSON number (none of which JSON
// escapes).
func numberText(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
		default:
			return false
		}
	}
	return true
}

// decodeContentValue is Content's UnmarshalJSON (a copy of the value's JSON text) without
// encoding/json: the text is x's JSON as appendJSON writes it, which is what encoding/json
// handed UnmarshalJSON on the decodeViaJSON route.
func decodeContentValue(x any, v reflect.Value) error {
	p := v.Addr().Interface().(*Content)
	b, err := appendJSON((*p)[:0], x)
	if err != nil {
		return err
	}
	*p = b
	return nil
}
