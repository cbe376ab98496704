package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ItemSize is the size DynamoDB bills and limits an item by: the UTF-8 length of every
// attribute name plus the size of its value (strings by UTF-8 length, numbers by about one
// byte per two significant digits plus one, booleans and null one byte, lists and maps three
// bytes plus one per element plus their contents).
func ItemSize(it Item) int {
	n := 0
	for name, v := range it {
		n += len(name) + valueSize(v)
	}
	return n
}

// IntSize and FloatSize are the sizes ItemSize counts for a number.
func IntSize(n int64) int     { return valueSize(n) }
func FloatSize(f float64) int { return valueSize(f) }

func valueSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case int64:
		var buf [24]byte
		return numberSize(strconv.AppendInt(buf[:0], x, 10))
	case float64:
		var buf [32]byte
		return numberSize(strconv.AppendFloat(buf[:0], x, 'e', -1, 64))
	case bool, nil:
		return 1
	case []any:
		n := 3
		for _, e := range x {
			n += 1 + valueSize(e)
		}
		return n
	case map[string]any:
		n := 3
		for k, e := range x {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

// numberSize counts the significant digits of the mantissa of a number's text (any of
// the shortest forms: they share their digits).
func numberSize(s []byte) int {
	if i := bytes.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	first, last, n := -1, -1, 0
	for _, c := range s {
		if c < '0' || c > '9' {
			continue
		}
		if c != '0' {
			if first < 0 {
				first = n
			}
			last = n
		}
		n++
	}
	digits := 0
	if first >= 0 {
		digits = last - first + 1
	}
	return (digits+1)/2 + 1
}

// Normalize returns v with every number in the vocabulary's form: integral numbers (also
// json.Number and the other Go integer and float types) become int64, others float64.
// Adapters call it on what they read; Marshal calls it on what repositories write.
func Normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool, int64:
		return x, nil
	case float64:
		return normFloat(x)
	case float32:
		return normFloat(float64(x))
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case json.Number:
		return ParseNumber(string(x))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: unsupported value type %T", ErrInvalid, v)
}

func normFloat(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: number %v cannot be stored", ErrInvalid, f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), nil
	}
	return f, nil
}

// ParseNumber turns the text of a number (DynamoDB's N, JSON) into int64 or float64.
// The fast paths (strconv on a canonical integer or a JSON number) answer what the general
// path below answers, once per number: adapters call it for every number they read.
func ParseNumber(s string) (any, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		var buf [24]byte
		if string(strconv.AppendInt(buf[:0], i, 10)) == strings.TrimPrefix(s, "+") {
			return i, nil
		}
	}
	if isJSONNumber(s) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: bad number %q", ErrInvalid, s)
		}
		return normFloat(f)
	}
	return parseNumberSlow(s)
}

// isJSONNumber reports whether s is a number as JSON writes one (RFC 8259).
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	return i == len(s)
}

// parseNumberSlow is the general path (texts that are neither canonical integers nor JSON
// numbers: the fast paths are checked against it).
func parseNumberSlow(s string) (any, error) {
	var i int64
	if _, err := fmt.Sscan(s, &i); err == nil && fmt.Sprint(i) == strings.TrimPrefix(s, "+") {
		return i, nil
	}
	var f float64
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		return nil, fmt.Errorf("%w: bad number %q", ErrInvalid, s)
	}
	return normFloat(f)
}

// Marshal turns a record struct (with json tags) into the attributes of an item. Fields
// tagged omitempty that are empty are left out, as they are in the JSON.
func Marshal(v any) (Item, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("store: marshal %T: %w", v, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("store: marshal %T: %w", v, err)
	}
	n, err := Normalize(m)
	if err != nil {
		return nil, err
	}
	return Item(n.(map[string]any)), nil
}

// Unmarshal fills a record struct (with json tags) from an item, as encoding/json would from
// the item's JSON, without the JSON (codec.go).
func Unmarshal(it Item, v any) error {
	if err := decodeInto(it, v); err != nil {
		return fmt.Errorf("store: unmarshal into %T: %w", v, err)
	}
	return nil
}

// With returns a copy of it with the given attributes set (key attributes, entity, GSI keys).
func (it Item) With(kv ...any) Item {
	out := make(Item, len(it)+len(kv)/2)
	for k, v := range it {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// Pad returns n zero-padded to width digits, so that string order equals numeric order.
func Pad(n int64, width int) string {
	s := fmt.Sprint(n)
	if len(s) >= width {
		return s
	}
	return strings.Repeat("0", width-len(s)) + s
}
