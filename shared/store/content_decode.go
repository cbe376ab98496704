package store

import (
	"encoding/json"
	"strings"
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
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			return s
		}
	}
	return v
}
