package validate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// UUID reads a UUID in any of the forms Pydantic accepts (hyphenated, 32 hex digits, braced,
// urn:uuid:) and returns it in canonical lower-case hyphenated form. version 0 accepts any
// version; otherwise a parsed UUID of another version is a uuid_version problem.
func (v Value) UUID(version int) (string, bool) {
	if v.skip() {
		return "", false
	}
	s, ok := v.raw.(string)
	if !ok {
		v.errs.Add(UUIDType(v.loc, v.raw))
		return "", false
	}
	id, detail := ParseUUID(s)
	if detail != "" {
		v.errs.Add(UUIDParsing(v.loc, v.raw, detail))
		return "", false
	}
	if version != 0 && int(id[14]-'0') != version {
		v.errs.Add(UUIDVersion(v.loc, v.raw, version))
		return "", false
	}
	return id, true
}

var groupStarts = [5]int{0, 9, 14, 19, 24}
var groupLens = [5]int{8, 4, 4, 4, 12}

// ParseUUID returns the canonical form of s, or the reason it is not a UUID in the words of
// the Rust uuid crate that Pydantic uses.
func ParseUUID(s string) (string, string) {
	body := s
	switch {
	case len(s) == 38 && s[0] == '{' && s[37] == '}':
		body = s[1:37]
	case len(s) == 45 && strings.HasPrefix(s, "urn:uuid:"):
		body = s[9:]
	}
	if len(body) == 32 && isHex(body) {
		body = body[:8] + "-" + body[8:12] + "-" + body[12:16] + "-" + body[16:20] + "-" + body[20:]
	}
	if len(body) == 36 && body[8] == '-' && body[13] == '-' && body[18] == '-' && body[23] == '-' &&
		isHex(body[:8]+body[9:13]+body[14:18]+body[19:23]+body[24:]) {
		return strings.ToLower(body), ""
	}
	return "", uuidError(s)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// uuidError explains a failed parse as uuid's InvalidUuid::into_err does.
func uuidError(input string) string {
	if !utf8.ValidString(input) {
		return "failed to parse a UUID"
	}
	str, offset, simple := input, 0, true
	switch {
	case len(input) >= 2 && input[0] == '{' && input[len(input)-1] == '}':
		str, offset, simple = input[1:len(input)-1], 1, false
	case strings.HasPrefix(input, "urn:uuid:"):
		str, offset, simple = input[9:], 9, false
	}
	hyphens := 0
	var bounds [4]int
	for i, r := range str {
		switch {
		case r >= utf8.RuneSelf:
			return fmt.Sprintf("invalid character: found `%c` at %d", r, i+offset+1)
		case r == '-':
			if hyphens < 4 {
				bounds[hyphens] = i
			}
			hyphens++
		case !isHex(string(r)):
			return fmt.Sprintf("invalid character: found `%c` at %d", r, i+offset+1)
		}
	}
	if hyphens == 0 && simple {
		return fmt.Sprintf("invalid length: expected length 32 for simple format, found %d", len(input))
	}
	if hyphens != 4 {
		return fmt.Sprintf("invalid group count: expected 5, found %d", hyphens+1)
	}
	for i := 0; i < 4; i++ {
		if bounds[i] != groupStarts[i+1]-1 {
			return fmt.Sprintf("invalid group length in group %d: expected %d, found %d", i, groupLens[i], bounds[i]-groupStarts[i])
		}
	}
	return fmt.Sprintf("invalid group length in group 4: expected 12, found %d", len(input)-groupStarts[4])
}
