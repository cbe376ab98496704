package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
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

func valueSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case int64:
		return numberSize(fmt.Sprint(x))
	case float64:
		return numberSize(formatFloat(x))
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

func numberSize(s string) int {
	digits := strings.TrimLeft(strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.SplitN(strings.ToLower(s), "e", 2)[0]), "0")
	digits = strings.TrimRight(digits, "0")
	return (len(digits)+1)/2 + 1
}

func formatFloat(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
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
func ParseNumber(s string) (any, error) {
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

// Unmarshal fills a record struct (with json tags) from an item.
func Unmarshal(it Item, v any) error {
	b, err := json.Marshal(map[string]any(it))
	if err != nil {
		return fmt.Errorf("store: unmarshal into %T: %w", v, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
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
