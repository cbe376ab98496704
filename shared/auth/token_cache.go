package auth

import (
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Verifying an access token (HMAC, then decoding and checking its claims) cost about a
// fifth of a small authenticated read. What it concludes depends only on the token's bytes
// and the key, which an instance never changes (keyring), except for the times: exp, and
// iat and nbf. So an instance keeps the claims of the access tokens it verified, by token,
// and checks only the times again: the same answers as verifying afresh.

// maxCachedToken is the longest token kept: ours are a few hundred bytes; a longer one is
// verified every time rather than let the cache's keys grow.
const maxCachedToken = 2048

// verifiedToken is an access token this instance verified: its claims, and the times
// within which they hold as parse checks them (iat and nbf at most leeway ahead of now,
// exp less than leeway behind it).
type verifiedToken struct {
	claims claims
	from   time.Time // zero: no lower bound
	until  time.Time
}

func (e verifiedToken) expiry() time.Time { return e.until }

// accessClaims verifies an access token, from the claims this instance verified before for
// the same token when it has them.
func (s *Service) accessClaims(k *keys, token string) (claims, error) {
	now := s.now()
	if e, ok := s.tokens.get(token, now); ok && !now.Before(e.from) {
		return e.claims, nil
	}
	c, err := accessKind.parse(k, token, func() time.Time { return now }, false)
	if err != nil {
		return claims{}, err
	}
	if len(token) <= maxCachedToken && c.ExpiresAt != nil {
		e := verifiedToken{claims: c, until: c.ExpiresAt.Add(leeway)}
		for _, t := range []*jwt.NumericDate{c.IssuedAt, c.NotBefore} {
			if t != nil && t.Add(-leeway).After(e.from) {
				e.from = t.Add(-leeway)
			}
		}
		s.tokens.put(token, e)
	}
	return c, nil
}
