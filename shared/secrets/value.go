package secrets

import (
	"bytes"
	"fmt"
	"log/slog"
)

const redacted = "[redacted]"

// Value holds secret bytes and prints as "[redacted]" through every route a value takes to
// a log or a response by accident: fmt (all verbs, %v %+v %#v %s %q %x %d ...), log/slog,
// encoding/json, encoding/xml and anything else that honours encoding.TextMarshaler.
// The content comes out only through Reveal and RevealString, which are easy to grep for.
//
// A Value decodes from a JSON string (through UnmarshalText), so request structs can hold
// credentials in Value fields and stay safe to log. The zero Value is empty. Copies of a
// Value share its bytes, which nothing changes.
type Value struct {
	// A pointer, because fmt cannot call Format on an unexported struct field: it prints such
	// a field by reflection, and a pointer below the top level only as its address.
	p *[]byte
}

// NewValue returns a Value holding a copy of b.
func NewValue(b []byte) Value {
	c := bytes.Clone(b)
	return Value{p: &c}
}

// NewValueString returns a Value holding s.
func NewValueString(s string) Value {
	b := []byte(s)
	return Value{p: &b}
}

// Reveal returns a copy of the secret bytes, which the caller may overwrite when done.
func (v Value) Reveal() []byte { return bytes.Clone(v.bytes()) }

// RevealString returns the secret as a string.
func (v Value) RevealString() string { return string(v.bytes()) }

// IsZero reports whether v holds no bytes.
func (v Value) IsZero() bool { return len(v.bytes()) == 0 }

// Len returns the number of secret bytes.
func (v Value) Len() int { return len(v.bytes()) }

func (v Value) bytes() []byte {
	if v.p == nil {
		return nil
	}
	return *v.p
}

// String implements fmt.Stringer.
func (Value) String() string { return redacted }

// GoString implements fmt.GoStringer.
func (Value) GoString() string { return redacted }

// Format implements fmt.Formatter. Without it, verbs that bypass String (%d, %o, %b, %c, %U
// ...) would print the struct's bytes as numbers.
func (Value) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// LogValue implements slog.LogValuer.
func (Value) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalJSON implements json.Marshaler.
func (Value) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText implements encoding.TextMarshaler.
func (Value) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *Value) UnmarshalText(b []byte) error {
	*v = NewValue(b)
	return nil
}
