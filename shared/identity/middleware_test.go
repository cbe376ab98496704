package identity_test

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

// minter signs tokens with the keys the service derives from its secret, to forge every
// kind of wrong token.
type minter struct {
	access, refresh []byte
}

func newMinter(t *testing.T, env *authtest.Env) minter {
	secret, err := env.Secrets.Get(t.Context(), "authtest/jwt")
	if err != nil {
		t.Fatal(err)
	}
	derive := func(label string) []byte {
		k, err := hkdf.Key(sha256.New, secret, nil, label, 32)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	return minter{access: derive("evalapi/jwt/access/v1"), refresh: derive("evalapi/jwt/refresh/v1")}
}

// mint signs claims with method and key; edit changes the standard claims first.
func (m minter) mint(t *testing.T, u authtest.User, now time.Time, method jwt.SigningMethod, key any, edit func(jwt.MapClaims)) string {
	// The session claims of the user's own access token: a minted token of a live session.
	var own jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(u.AccessToken, &own); err != nil {
		t.Fatal(err)
	}
	c := jwt.MapClaims{
		"iss": "evalapi", "aud": []string{"evalapi"}, "sub": u.UserID, "org": u.OrgID, "typ": "access",
		"jti": uuid.NewString(), "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"sid": own["sid"], "src": own["src"],
	}
	if edit != nil {
		edit(c)
	}
	s, err := jwt.NewWithClaims(method, c).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func bearerOf(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

func basicOf(user, password string) http.Header {
	return http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))}}
}

func apiKeyOf(header, key string) http.Header { return http.Header{header: {key}} }

// TestAuthenticate runs every scheme, right and wrong, against a protected route, on every
// backend.
func TestAuthenticate(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { testAuthenticate(t, b.open(t)) })
	}
}

func testAuthenticate(t *testing.T, tbl store.Table) {
	h := newHarness(t, tbl)
	ctx := t.Context()
	org := h.env.Org(t)
	other := h.env.Org(t)
	u := org.User
	m := newMinter(t, h.env)
	now := h.clock.Now()

	// Keys to spoil: one revoked, one about to expire, one with a wrong secret.
	revoked, revokedRec, err := h.svc.CreateAPIKey(ctx, u.OrgID, u.UserID, "revoked", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.RevokeAPIKey(ctx, h.env.Table, u.UserID, revokedRec.ID, now); err != nil {
		t.Fatal(err)
	}
	soon := now.Add(time.Minute)
	expiring, _, err := h.svc.CreateAPIKey(ctx, u.OrgID, u.UserID, "expiring", &soon)
	if err != nil {
		t.Fatal(err)
	}
	wrongSecret := u.APIKey[:len(u.APIKey)-4] + "aaaa"
	if wrongSecret == u.APIKey {
		wrongSecret = u.APIKey[:len(u.APIKey)-4] + "bbbb"
	}
	unknownKey := "evo_" + uuid.NewString() + "_" + strings.Repeat("a", 52)
	invited := store.User{ID: uuid.NewString(), OrgID: org.ID, Email: "invited-" + uuid.NewString()[:8] + "@example.com",
		Role: "user", State: store.UserInvited, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateUser(ctx, h.env.Table, invited, ""); err != nil {
		t.Fatal(err)
	}
	refreshTok := m.mint(t, u, now, jwt.SigningMethodHS256, m.refresh, func(c jwt.MapClaims) {
		c["typ"], c["aud"] = "refresh", []string{"evalapi/refresh_token"}
	})

	tests := []struct {
		name   string
		hdr    http.Header
		detail string // "" for success as want
		want   authtest.User
	}{
		{"service api key", apiKeyOf("Service-API-Key", u.APIKey), "", u},
		{"vendor api key", apiKeyOf("Vendor-AO-API-Key", u.APIKey), "", u},
		{"galileo api key", apiKeyOf("Galileo-API-Key", u.APIKey), "", u},
		{"galileo api key, lower-case header", apiKeyOf("galileo-api-key", u.APIKey), "", u},
		{"bearer", bearerOf(u.AccessToken), "", u},
		{"bearer lower-case scheme", http.Header{"Authorization": {"bearer " + u.AccessToken}}, "", u},
		{"basic", u.BasicHeader(), "", u},
		{"basic e-mail in upper case", basicOf(strings.ToUpper(u.Email), u.Password), "", u},
		{"read-only user", org.ReadOnly.BearerHeader(), "", org.ReadOnly},
		{"minted control token", bearerOf(m.mint(t, u, now, jwt.SigningMethodHS256, m.access, nil)), "", u},
		{"api key and bearer of the same user", merge(u.Header(), u.BearerHeader()), "", u},

		{"nothing", nil, "Not authenticated", u},
		{"empty api key header", apiKeyOf("Vendor-AO-API-Key", " "), "Not authenticated", u},
		{"other authorization scheme", http.Header{"Authorization": {"Digest abc"}}, "Not authenticated", u},
		{"bearer without token", http.Header{"Authorization": {"Bearer "}}, "Not authenticated", u},
		{"malformed api key", apiKeyOf("Service-API-Key", "not-a-key"), "Invalid API key", u},
		{"unknown api key", apiKeyOf("Service-API-Key", unknownKey), "Invalid API key", u},
		{"wrong secret", apiKeyOf("Vendor-AO-API-Key", wrongSecret), "Invalid API key", u},
		{"revoked api key", apiKeyOf("Vendor-AO-API-Key", revoked.RevealString()), "Invalid API key", u},
		{"wrong secret in galileo header", apiKeyOf("Galileo-API-Key", wrongSecret), "Invalid API key", u},
		{"wrong galileo key beside a right key", merge(u.Header(), apiKeyOf("Galileo-API-Key", wrongSecret)), "Invalid API key", u},
		{"bad password", basicOf(u.Email, u.Password+"x"), "Incorrect username or password", u},
		{"unknown e-mail", basicOf("nobody@example.com", u.Password), "Incorrect username or password", u},
		{"invited user", basicOf(invited.Email, ""), "Incorrect username or password", u},
		{"basic not base64", http.Header{"Authorization": {"Basic !!!"}}, "Invalid authentication credentials", u},
		{"basic without colon", http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte("abc"))}}, "Invalid authentication credentials", u},
		{"tampered jwt", bearerOf(tamper(u.AccessToken)), "Could not validate credentials", u},
		{"alg none", bearerOf(m.mint(t, u, now, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, nil)), "Could not validate credentials", u},
		{"alg HS384", bearerOf(m.mint(t, u, now, jwt.SigningMethodHS384, m.access, nil)), "Could not validate credentials", u},
		{"expired jwt", bearerOf(m.mint(t, u, now.Add(-2*time.Hour), jwt.SigningMethodHS256, m.access, nil)), "Could not validate credentials", u},
		{"no exp", bearerOf(m.mint(t, u, now, jwt.SigningMethodHS256, m.access, func(c jwt.MapClaims) { delete(c, "exp") })), "Could not validate credentials", u},
		{"wrong typ", bearerOf(m.mint(t, u, now, jwt.SigningMethodHS256, m.access, func(c jwt.MapClaims) { c["typ"] = "refresh" })), "Could not validate credentials", u},
		{"wrong aud", bearerOf(m.mint(t, u, now, jwt.SigningMethodHS256, m.access, func(c jwt.MapClaims) { c["aud"] = []string{"other"} })), "Could not validate credentials", u},
		{"wrong iss", bearerOf(m.mint(t, u, now, jwt.SigningMethodHS256, m.access, func(c jwt.MapClaims) { c["iss"] = "other" })), "Could not validate credentials", u},
		{"wrong org", bearerOf(m.mint(t, u, now, jwt.SigningMethodHS256, m.access, func(c jwt.MapClaims) { c["org"] = other.ID })), "Could not validate credentials", u},
		{"refresh key", bearerOf(m.mint(t, u, now, jwt.SigningMethodHS256, m.refresh, nil)), "Could not validate credentials", u},
		{"refresh token as access token", bearerOf(refreshTok), "Could not validate credentials", u},
		{"right key, wrong bearer", merge(u.Header(), bearerOf(tamper(u.AccessToken))), "Could not validate credentials", u},
		{"right bearer, wrong key", merge(apiKeyOf("Service-API-Key", wrongSecret), u.BearerHeader()), "Invalid API key", u},
		{"two users", merge(u.Header(), org.Admin.BearerHeader()), "Could not validate credentials", u},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(t, "GET", "/v2/current_user", tt.hdr, "")
			if tt.detail != "" {
				want401(t, r, tt.detail)
				return
			}
			var got struct {
				ID, Role string
			}
			r.json(t, &got)
			if r.status != http.StatusOK || got.ID != tt.want.UserID || got.Role != string(tt.want.Role) {
				t.Fatalf("got %s, want user %s", r, tt.want.UserID)
			}
		})
	}

	t.Run("expired api key", func(t *testing.T) {
		if r := h.do(t, "GET", "/v2/current_user", apiKeyOf("Service-API-Key", expiring.RevealString()), ""); r.status != 200 {
			t.Fatalf("before expiry: %s", r)
		}
		h.clock.Advance(2 * time.Minute)
		want401(t, h.do(t, "GET", "/v2/current_user", apiKeyOf("Service-API-Key", expiring.RevealString()), ""), "Invalid API key")
	})
	t.Run("expired access token", func(t *testing.T) {
		h.clock.Advance(2 * time.Hour)
		want401(t, h.do(t, "GET", "/v2/current_user", u.BearerHeader(), ""), "Could not validate credentials")
	})
}

// tamper changes one character of a JWT's payload.
func tamper(tok string) string {
	i := strings.Index(tok, ".") + 5
	c := byte('A')
	if tok[i] == 'A' {
		c = 'B'
	}
	return tok[:i] + string(c) + tok[i+1:]
}

func merge(hs ...http.Header) http.Header {
	out := http.Header{}
	for _, h := range hs {
		for k, vs := range h {
			for _, v := range vs {
				out.Add(k, v)
			}
		}
	}
	return out
}
