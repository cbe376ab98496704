package auth

import (
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Token claims. Access and refresh tokens differ in typ, in aud and in signing key, and each
// check insists on all three, so neither can ever stand in for the other (RFC 8725 §3.12).
const (
	issuer          = "evalapi"
	audienceAccess  = "evalapi"
	audienceRefresh = "evalapi/refresh_token"
	typAccess       = "access"
	typRefresh      = "refresh"
	// leeway absorbs clock skew between Lambda instances; RFC 7519 suggests minutes at most.
	leeway = 30 * time.Second
)

// claims are the claims of both token types. Both carry the session they belong to and
// what it was derived from, so that ending that ends the token (store.SessionState.Valid).
type claims struct {
	jwt.RegisteredClaims
	Typ string `json:"typ"`
	Org string `json:"org"`
	sessionClaims
}

// sessionClaims name a token's session: its id, its source (store.SourcePassword or
// store.SourceAPIKey) and, for an API-key session, the key's id (public: it is part of the
// key's head, never its secret).
type sessionClaims struct {
	Sid string `json:"sid"`
	Src string `json:"src"`
	Kid string `json:"kid,omitempty"`
}

// kind is one token type with what checks it.
type kind struct {
	typ, aud string
	key      func(*keys) []byte
}

var (
	accessKind  = kind{typ: typAccess, aud: audienceAccess, key: func(k *keys) []byte { return k.access }}
	refreshKind = kind{typ: typRefresh, aud: audienceRefresh, key: func(k *keys) []byte { return k.refresh }}
)

var errBadToken = errors.New("auth: invalid token")

// issue signs a token of kind for the user; it returns the token and its jti.
func (kd kind) issue(k *keys, userID, orgID string, sc sessionClaims, now time.Time, ttl time.Duration) (string, string, error) {
	jti := uuid.NewString()
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    issuer,
			Subject:   userID,
			Audience:  jwt.ClaimStrings{kd.aud},
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
			IssuedAt:  jwt.NewNumericDate(now),
			ID:        jti,
		},
		Typ:           kd.typ,
		Org:           orgID,
		sessionClaims: sc,
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(kd.key(k))
	if err != nil {
		return "", "", fmt.Errorf("auth: sign %s token: %w", kd.typ, err)
	}
	return s, jti, nil
}

// parse verifies a token of kind: HS256 only, signature, iss, aud, typ, and (unless
// allowExpired) exp and iat with a small leeway. sub, org, jti, sid and src must be present:
// a token issued before sessions were recorded is refused (its holder logs in again).
func (kd kind) parse(k *keys, token string, now func() time.Time, allowExpired bool) (claims, error) {
	opts := []jwt.ParserOption{
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer),
		jwt.WithAudience(kd.aud),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(now),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithStrictDecoding(),
	}
	if allowExpired {
		// Signature and alg are still checked; the claims are checked below.
		opts = append(opts, jwt.WithoutClaimsValidation())
	}
	var c claims
	_, err := jwt.NewParser(opts...).ParseWithClaims(token, &c, func(*jwt.Token) (any, error) {
		return kd.key(k), nil
	})
	if err != nil {
		return claims{}, fmt.Errorf("%w: %w", errBadToken, err)
	}
	if allowExpired && (c.Issuer != issuer || !hasAudience(c.Audience, kd.aud)) {
		return claims{}, fmt.Errorf("%w: wrong issuer or audience", errBadToken)
	}
	if c.Typ != kd.typ || c.Subject == "" || c.Org == "" || c.ID == "" || c.Sid == "" || c.Src == "" {
		return claims{}, fmt.Errorf("%w: wrong type or missing claims", errBadToken)
	}
	return c, nil
}

func hasAudience(aud jwt.ClaimStrings, want string) bool {
	for _, a := range aud {
		if a == want {
			return true
		}
	}
	return false
}
