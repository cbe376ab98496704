package store

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeRecordContent reads a record's content attribute (the JSON object json.Marshal wrote
// of a RecordContent) without encoding/json: each field is a JSON value kept as its text, so
// the object only needs splitting. False for anything else (a key it does not know, text not
// in encoding/json's compact form), which encoding/json then reads.
func decodeRecordContent(s string, into *RecordContent) bool {
	*into = RecordContent{}
	l := lexer{s: s}
	ok := l.object(func(key string) bool {
		var dst *Content
		switch key {
		case "input":
			dst = &into.Input
		case "output":
			dst = &into.Output
		case "redacted_input":
			dst = &into.RedactedInput
		case "redacted_output":
			dst = &into.RedactedOutput
		case "tools":
			dst = &into.Tools
		case "events":
			dst = &into.Events
		default:
			return false
		}
		v := l.raw()
		if l.bad {
			return false
		}
		*dst = Content(v)
		return true
	})
	return ok && l.end()
}

// raw reads one value and returns its text: strings skipped by their escapes, objects and
// arrays by their depth (not matched by kind: the text is what json.Marshal wrote, valid),
// literals up to the next delimiter.
func (l *lexer) raw() string {
	start, depth := l.i, 0
	for l.i < len(l.s) {
		switch c := l.s[l.i]; c {
		case '"':
			j := l.stringEnd(l.i)
			if j < 0 {
				l.fail()
				return ""
			}
			l.i = j + 1
			if depth == 0 {
				return l.s[start:l.i]
			}
		case '{', '[':
			depth++
			l.i++
		case '}', ']':
			if depth == 0 {
				return l.value(start)
			}
			depth--
			l.i++
			if depth == 0 {
				return l.s[start:l.i]
			}
		case ',':
			if depth == 0 {
				return l.value(start)
			}
			l.i++
		default:
			l.i++
		}
	}
	if depth != 0 {
		l.fail()
		return ""
	}
	return l.value(start)
}

// value is the literal from start to the lexer's position; an empty one is an error.
func (l *lexer) value(start int) string {
	if l.i == start {
		l.fail()
		return ""
	}
	return l.s[start:l.i]
}

// ContentText is Content.Text of one field (input, output...) of a record's content as the
// store holds it (RawContent), read from the raw JSON: a string without escapes is a slice
// of raw, not a copy. An absent field (or content) has the empty text, as absent content
// does. ok is false when raw is not what the store writes; the caller then decodes in full.
func ContentText(raw, field string) (text string, ok bool) {
	if raw == "" {
		return "", true
	}
	l := lexer{s: raw}
	var v string
	found := false
	ok = l.object(func(key string) bool {
		r := l.raw()
		if key == field {
			v, found = r, true
		}
		return !l.bad
	})
	if !ok || !l.end() {
		return "", false
	}
	if !found {
		return "", true
	}
	return rawText(v), true
}

// rawText is Content.Text of the JSON value v.
func rawText(v string) string {
	switch {
	case v == "null":
		return ""
	case len(v) >= 2 && v[0] == '"' && !strings.ContainsRune(v, '\\'):
		return v[1 : len(v)-1]
	case v[0] == '"':
		// unquote refuses only what encoding/json refuses (FuzzUnquote): such text is shown
		// as it is, as Content.Text always did.
		if s, ok := unquote(v); ok {
			return s
		}
	}
	return v
}

// unquote is the text of the JSON string q (quotes included) as encoding/json reads it,
// without its reflection: escapes decoded, a lone or reversed surrogate and invalid UTF-8
// each read as U+FFFD. ok is false for what is not a JSON string. Prompts are full of quotes and newlines: their escapes were a tenth of a
// filtered scan.
func unquote(q string) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	s := q[1 : len(q)-1]
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(s, i+2)
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2, ok = hex4(s, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						b, i = utf8.AppendRune(b, dec), i+6
						continue
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c == '"' || c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return string(b), true
}

// hex4 reads the four hex digits at s[i:].
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
