package auth

import (
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// A verified token answers from the cache exactly as parse answers: at every time around
// its iat, nbf and exp (with the leeway), whichever time first put it in the cache.
func TestAccessClaimsCacheAnswersAsParse(t *testing.T) {
	k := testKeys(t)
	t0 := time.Unix(1_800_000_000, 0)
	sc := sessionClaims{Sid: "s1", Src: "password"}
	plain, _, err := accessKind.issue(k, "u1", "o1", sc, t0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// With a not-before later than its iat.
	withNbf, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims{
		RegisteredClaims: jwt.RegisteredClaims{Issuer: issuer, Subject: "u1", Audience: jwt.ClaimStrings{audienceAccess},
			ExpiresAt: jwt.NewNumericDate(t0.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(t0),
			NotBefore: jwt.NewNumericDate(t0.Add(10 * time.Minute)), ID: "j"},
		Typ: typAccess, Org: "o1", sessionClaims: sc,
	}).SignedString(k.access)
	if err != nil {
		t.Fatal(err)
	}
	var offsets []time.Duration // around iat, nbf and exp, each ± the leeway
	for _, edge := range []time.Duration{0, 10 * time.Minute, time.Hour} {
		for _, d := range []time.Duration{-leeway - time.Second, -leeway, -leeway + time.Second, 0, leeway - time.Second, leeway, leeway + time.Second} {
			offsets = append(offsets, edge+d)
		}
	}
	for _, token := range []string{plain, withNbf, plain[:len(plain)-3] + "AAA"} {
		for _, first := range offsets {
			now := t0.Add(first)
			s := &Service{now: func() time.Time { return now }, tokens: newTTLCache[verifiedToken](StalenessBound)}
			s.accessClaims(k, token) // the cache as the first time leaves it
			for _, at := range offsets {
				now = t0.Add(at)
				_, want := accessKind.parse(k, token, s.now, false)
				got, err := s.accessClaims(k, token)
				if (err == nil) != (want == nil) {
					t.Fatalf("first at %v, then at %v: err %v, parse says %v", first, at, err, want)
				}
				if err == nil && (got.Subject != "u1" || got.sessionClaims != sc) {
					t.Fatalf("claims %+v", got)
				}
			}
		}
	}
}
