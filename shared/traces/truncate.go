package traces

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/evalobs/evalapi/shared/store"
)

// truncateLimit is the characters a text keeps in a search answered with truncate_fields:
// every string of the content fields (a text, each message's content, each document) is cut
// to it, so that the shapes stay as logged while the page stays small.
const truncateLimit = 1000

// truncateRecord cuts the long texts of a record's content fields.
func truncateRecord(r *recordOut) {
	for _, c := range []*store.Content{&r.Input, &r.Output, &r.RedactedInput, &r.RedactedOutput, &r.Tools, &r.Events} {
		*c = truncateContent(*c)
	}
}

// truncateContent cuts every string of c longer than truncateLimit characters.
func truncateContent(c store.Content) store.Content {
	if len(c) <= truncateLimit || c.IsNull() {
		return c
	}
	var v any
	if json.Unmarshal(c, &v) != nil {
		return c
	}
	b, err := json.Marshal(truncateValue(v))
	if err != nil {
		return c
	}
	return store.Content(b)
}

func truncateValue(v any) any {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) <= truncateLimit {
			return x
		}
		n := 0
		for i := range x {
			if n == truncateLimit {
				return x[:i]
			}
			n++
		}
		return x
	case []any:
		for i := range x {
			x[i] = truncateValue(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = truncateValue(x[k])
		}
	}
	return v
}
