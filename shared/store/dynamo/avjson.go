package dynamo

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/evalobs/evalapi/shared/store"
)

// wireItem is an item in DynamoDB's JSON ({"PK":{"S":"x"},"n":{"N":"1"}}) decoded straight
// into the store's vocabulary, with fromAV's rules (numbers through store.ParseNumber, sets
// as lists), without the SDK's attribute value types in between: a query page's items are
// read in one pass over the answer.
type wireItem store.Item

func (w *wireItem) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*w = nil
		return nil
	}
	d := avDecoder{b: b}
	m, err := d.item()
	if err == nil {
		d.space()
		if d.i != len(d.b) {
			err = d.fail("after the item")
		}
	}
	if err != nil {
		return err
	}
	*w = wireItem(m)
	return nil
}

// avDecoder reads attribute values from JSON text.
type avDecoder struct {
	b []byte
	i int
}

func (d *avDecoder) fail(what string) error {
	return fmt.Errorf("%w: attribute value JSON: unexpected input at byte %d (%s)", store.ErrInvalid, d.i, what)
}

func (d *avDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// consume passes c (after white space), or fails.
func (d *avDecoder) consume(c byte) error {
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != c {
		return d.fail("want " + string(c))
	}
	d.i++
	return nil
}

// more reports whether another member or element follows (passing the comma), at a list's
// or object's end passing its closing byte.
func (d *avDecoder) more(end byte, first bool) (bool, error) {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == end {
		d.i++
		return false, nil
	}
	if !first {
		if err := d.consume(','); err != nil {
			return false, err
		}
	}
	return true, nil
}

// str reads a JSON string. Text without escapes is copied as it is; escapes and invalid
// UTF-8 go through encoding/json, whose rules (surrogate pairs, invalid bytes made U+FFFD)
// the SDK's decoder follows too.
func (d *avDecoder) str() (string, error) {
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", d.fail("want a string")
	}
	start := d.i
	escaped, wide := false, false
	for d.i++; d.i < len(d.b); d.i++ {
		c := d.b[d.i]
		if c == '"' {
			break
		}
		switch {
		case c == '\\':
			escaped = true
			d.i++
		case c < 0x20:
			return "", d.fail("control byte in a string")
		case c >= utf8.RuneSelf:
			wide = true
		}
	}
	if d.i >= len(d.b) {
		return "", d.fail("unterminated string")
	}
	d.i++
	raw := d.b[start:d.i]
	if inner := raw[1 : len(raw)-1]; !escaped && (!wide || utf8.Valid(inner)) {
		return string(inner), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%w: attribute value JSON: %w", store.ErrInvalid, err)
	}
	return s, nil
}

// boolean reads true or false.
func (d *avDecoder) boolean() (bool, error) {
	d.space()
	switch {
	case len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "true":
		d.i += 4
		return true, nil
	case len(d.b)-d.i >= 5 && string(d.b[d.i:d.i+5]) == "false":
		d.i += 5
		return false, nil
	}
	return false, d.fail("want true or false")
}

// item reads an item into the store's vocabulary, through its tokens (stored.go): one
// decoder of attribute values serves both the map and the records read without one.
func (d *avDecoder) item() (map[string]any, error) {
	r, err := d.tokens()
	if err != nil {
		return nil, err
	}
	m, _ := r.Value().(map[string]any)
	return m, nil
}

// member reads the answer b, an object, calling read at its member name and skipping the
// others.
func member(b []byte, name string, read func(d *avDecoder) error) error {
	d := avDecoder{b: b}
	return d.answer(func(n string) error {
		if n != name {
			_, err := d.skip()
			return err
		}
		return read(&d)
	})
}

// skip passes one JSON value of any shape and returns its text.
func (d *avDecoder) skip() ([]byte, error) {
	d.space()
	start := d.i
	if d.i >= len(d.b) {
		return nil, d.fail("want a value")
	}
	switch c := d.b[d.i]; c {
	case '"':
		if _, err := d.str(); err != nil {
			return nil, err
		}
	case '{':
		if err := d.object(func(string) error { _, err := d.skip(); return err }); err != nil {
			return nil, err
		}
	case '[':
		if err := d.array(func() error { _, err := d.skip(); return err }); err != nil {
			return nil, err
		}
	default: // number, true, false, null
		for d.i < len(d.b) && !strings.ContainsRune(",}] \t\n\r", rune(d.b[d.i])) {
			d.i++
		}
		if d.i == start {
			return nil, d.fail("want a value")
		}
	}
	return d.b[start:d.i], nil
}

// object calls member for each member of a JSON object, positioned at its value, which
// member reads whole.
func (d *avDecoder) object(member func(name string) error) error {
	if err := d.consume('{'); err != nil {
		return err
	}
	for first := true; ; first = false {
		ok, err := d.more('}', first)
		if err != nil || !ok {
			return err
		}
		name, err := d.str()
		if err != nil {
			return err
		}
		if err := d.consume(':'); err != nil {
			return err
		}
		if err := member(name); err != nil {
			return err
		}
	}
}

// answer reads a whole answer, an object whose members member reads, and nothing after it.
func (d *avDecoder) answer(member func(name string) error) error {
	if err := d.object(member); err != nil {
		return err
	}
	if d.space(); d.i != len(d.b) {
		return d.fail("after the answer")
	}
	return nil
}

// array calls element for each element of a JSON array, positioned at it; element reads
// it whole.
func (d *avDecoder) array(element func() error) error {
	if err := d.consume('['); err != nil {
		return err
	}
	for first := true; ; first = false {
		ok, err := d.more(']', first)
		if err != nil || !ok {
			return err
		}
		if err := element(); err != nil {
			return err
		}
	}
}
