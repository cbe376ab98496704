package store

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// appendJSON writes a value of the vocabulary as JSON for Unmarshal: keys in map order (a
// struct does not care), strings escaped as JSON requires. Numbers are written in a form
// that reads back to the same value; encoding/json then decodes into the record's fields.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return AppendJSONString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case float64:
		n, err := Normalize(x)
		if err != nil {
			return nil, err
		}
		if i, ok := n.(int64); ok {
			return strconv.AppendInt(b, i, 10), nil
		}
		return appendJSONFloat(b, x), nil
	case []any:
		b = append(b, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		return appendJSONObject(b, x)
	case Item:
		return appendJSONObject(b, x)
	}
	// Not of the vocabulary (a caller's own value): encoding/json writes it.
	e, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrInvalid, v, err)
	}
	return append(b, e...), nil
}

func appendJSONObject(b []byte, m map[string]any) ([]byte, error) {
	b = append(b, '{')
	first := true
	var err error
	for k, e := range m {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = AppendJSONString(b, k)
		b = append(b, ':')
		if b, err = appendJSON(b, e); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendJSONFloat writes f as encoding/json does (ES6 formatting), so that a record's own
// number types (fixed.Value) read the very text they read before.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// AppendJSONString writes s as a JSON string as encoding/json does without HTML escaping:
// quotes, backslashes and control characters escaped, U+2028 and U+2029 too, invalid UTF-8
// as U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plain8(s[i:i+8]) { // most text: 8 bytes at a time
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plain8 reports whether the 8 bytes of s are written as they are: ASCII, none below 0x20,
// none a quote or a backslash. (Each term sets a byte's high bit when that byte is one to
// care about: x-0x20 borrows into it for a byte below 0x20, v-1 for a byte v equal to 0
// after the XOR with '"' or '\\'; and x has it for a byte of 0x80 or more. For ASCII
// bytes the first three are exact.)
func plain8(s string) bool {
	_ = s[7]
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(lo*'"'), x^(lo*'\\')
	return ((x-lo*0x20)&^x|(q-lo)&^q|(bs-lo)&^bs|x)&hi == 0
}
