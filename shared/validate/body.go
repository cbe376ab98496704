package validate

import (
	"net/url"
)

// DecodeBody parses a request body as FastAPI does before validating it: an empty body is
// absent; malformed JSON is a single json_invalid problem (nothing else is validated then).
func DecodeBody(data []byte) (raw any, present bool, err *Errors) {
	if len(data) == 0 {
		return nil, false, nil
	}
	v, jerr := ParseJSON(data)
	if jerr != nil {
		return nil, false, Single(JSONInvalid(jerr.Pos, jerr.Msg))
	}
	return v, true, nil
}

// Pagination limits (SPEC-DECISIONS.md): starting_token >= 0, 1 <= limit <= MaxLimit.
const (
	DefaultLimit = 100
	MaxLimit     = 100000
)

// Page reads the pagination query parameters starting_token and limit.
func (e *Errors) Page(q url.Values) (start, limit int) {
	start, limit = 0, DefaultLimit
	if n, ok := e.Query(q, "starting_token").Int(Ge(0)); ok {
		start = int(n)
	}
	if n, ok := e.Query(q, "limit").Int(Ge(1), Le(MaxLimit)); ok {
		limit = int(n)
	}
	return start, limit
}
