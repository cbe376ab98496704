package validate

import "strings"

// maxEmailLen is the longest address accepted (RFC 5321's path limit less the brackets).
const maxEmailLen = 320

// Email reads an e-mail address the way Pydantic's EmailStr words a bad one: a value_error
// "value is not a valid email address: <reason>" with the reason in ctx (a
// PydanticCustomError, so without the "Value error, " prefix of a model validator).
// Callers normalise the address for storage.
func (v Value) Email() (string, bool) {
	s, ok := v.String(MaxLen(maxEmailLen))
	if !ok {
		return "", false
	}
	reason := emailProblem(s)
	if reason == "" {
		return s, true
	}
	v.Add(Error{Type: "value_error", Loc: v.loc, Input: v.raw,
		Msg: "value is not a valid email address: " + reason, Ctx: map[string]any{"reason": reason}})
	return "", false
}

// emailProblem is the reason email-validator (behind Pydantic's EmailStr) gives for the
// commonest malformed addresses, in the order it checks them; "" when s passes. It checks
// the shape, not every rule of RFC 5322.
func emailProblem(s string) string {
	local, domain, found := strings.Cut(s, "@")
	switch {
	case !found:
		return "An email address must have an @-sign."
	case local == "":
		return "There must be something before the @-sign."
	case domain == "":
		return "There must be something after the @-sign."
	case strings.ContainsAny(local, " \t\r\n"):
		return "The email address contains invalid characters before the @-sign: SPACE."
	case strings.Contains(domain, "@"):
		return "The part after the @-sign contains invalid characters: '@'."
	case strings.ContainsAny(domain, " \t\r\n"):
		return "The part after the @-sign contains invalid characters: SPACE."
	case strings.HasSuffix(domain, "."):
		return "An email address cannot end with a period."
	case strings.HasPrefix(domain, "."):
		return "An email address cannot have a period immediately after the @-sign."
	case strings.Contains(domain, ".."):
		return "An email address cannot have two periods in a row."
	case !strings.Contains(domain, "."):
		return "The part after the @-sign is not valid. It should have a period."
	}
	return ""
}
