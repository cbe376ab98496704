package store

import (
	"encoding/json"
)

// Content is a content field of a logged record (input, output, redacted forms, tools,
// events): a JSON value stored and returned exactly as the client sent it — a string, a
// chat message or a list of them (with text, image, audio or file parts, tool calls), a list
// of retriever documents, a control result. The zero Content is absent.
type Content json.RawMessage

// StringContent is the content of a plain string.
func StringContent(s string) Content {
	b, _ := json.Marshal(s)
	return Content(b)
}

// MarshalJSON writes c as it was received; absent content is null.
func (c Content) MarshalJSON() ([]byte, error) {
	if len(c) == 0 {
		return []byte("null"), nil
	}
	return c, nil
}

// UnmarshalJSON keeps the JSON value as it is.
func (c *Content) UnmarshalJSON(b []byte) error {
	*c = append((*c)[:0], b...)
	return nil
}

// IsNull reports whether c holds no value (absent or JSON null).
func (c Content) IsNull() bool { return len(c) == 0 || string(c) == "null" }

// Text is what the catalog's text columns (input, output) filter on: a string's text, and
// for any other value its JSON text, in which every string it holds appears.
func (c Content) Text() string {
	if c.IsNull() {
		return ""
	}
	return rawText(string(c))
}
