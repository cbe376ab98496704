package provider

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/evalobs/evalapi/shared/egress"
	"github.com/evalobs/evalapi/shared/secrets"
)

// ClientCredentials splits the secret of an OAuth2 target into client id and secret. The
// integration's token holds them as "client_id:client_secret", or as a JSON object
// {"client_id": ..., "client_secret": ...}.
func ClientCredentials(v secrets.Value) (id, secret string, ok bool) {
	s := strings.TrimSpace(v.RevealString())
	if strings.HasPrefix(s, "{") {
		var doc struct {
			ClientID     string `json:"client_id"`
			ClientSecret string `json:"client_secret"`
		}
		if json.Unmarshal([]byte(s), &doc) != nil || doc.ClientID == "" || doc.ClientSecret == "" {
			return "", "", false
		}
		return doc.ClientID, doc.ClientSecret, true
	}
	id, secret, ok = strings.Cut(s, ":")
	return id, secret, ok && id != "" && secret != ""
}

// tokenMargin is how long before its expiry a token is no longer used.
const tokenMargin = 30 * time.Second

// defaultTokenLife is the life of a token whose answer gives no expires_in.
const defaultTokenLife = 5 * time.Minute

// tokenCache keeps OAuth2 access tokens per token URL, scope and credentials (by hash),
// until shortly before they expire. Concurrent calls for one key share one fetch.
type tokenCache struct {
	mu      sync.Mutex
	entries map[[32]byte]*tokenEntry
}

type tokenEntry struct {
	mu      sync.Mutex // held while fetching
	token   string
	expires time.Time
}

func newTokenCache() *tokenCache { return &tokenCache{entries: map[[32]byte]*tokenEntry{}} }

func tokenKey(a Auth) [32]byte {
	h := sha256.New()
	h.Write([]byte(a.TokenURL))
	h.Write([]byte{0})
	h.Write([]byte(a.Scope))
	h.Write([]byte{0})
	h.Write(a.Secret.Reveal())
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}

func (tc *tokenCache) entry(a Auth) *tokenEntry {
	k := tokenKey(a)
	tc.mu.Lock()
	defer tc.mu.Unlock()
	e := tc.entries[k]
	if e == nil {
		if len(tc.entries) >= 1024 { // a warm instance serving many integrations: start over
			clear(tc.entries)
		}
		e = &tokenEntry{}
		tc.entries[k] = e
	}
	return e
}

func (tc *tokenCache) drop(a Auth) {
	e := tc.entry(a)
	e.mu.Lock()
	e.token, e.expires = "", time.Time{}
	e.mu.Unlock()
}

func (tc *tokenCache) get(ctx context.Context, c *Client, a Auth) (string, *Error) {
	e := tc.entry(a)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.token != "" && c.now().Before(e.expires) {
		return e.token, nil
	}
	tok, life, perr := c.fetchToken(ctx, a)
	if perr != nil {
		return "", perr
	}
	e.token, e.expires = tok, c.now().Add(life-tokenMargin)
	return tok, nil
}

// fetchToken runs the client-credentials grant (RFC 6749 §4.4) with the client
// authenticating by HTTP Basic (§2.3.1).
func (c *Client) fetchToken(ctx context.Context, a Auth) (string, time.Duration, *Error) {
	u, err := egress.CheckEndpoint(a.TokenURL, c.allowLoopback)
	if err != nil {
		return "", 0, Errorf(ClassConfiguration, "the OAuth2 token URL is not an allowed https URL")
	}
	id, secret, ok := ClientCredentials(a.Secret)
	if !ok {
		return "", 0, Errorf(ClassCredentials, "the OAuth2 client credentials are not client_id:client_secret")
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	if a.Scope != "" {
		form.Set("scope", a.Scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, Errorf(ClassConfiguration, "the OAuth2 token URL is not a valid URL")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	resp, err := c.http.Do(req)
	if err != nil {
		return "", 0, transportError(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	defer clear(b)
	if err != nil {
		return "", 0, transportError(err)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		e := statusError(resp.StatusCode, parseRetryAfter(resp.Header, c.now()))
		e.msg, e.tokenURL = "the OAuth2 token endpoint failed", true
		return "", 0, e
	case resp.StatusCode != http.StatusOK:
		// 400 invalid_client, 401: the credentials are wrong.
		return "", 0, &Error{Class: ClassCredentials, Status: resp.StatusCode, tokenURL: true,
			msg: "the OAuth2 token endpoint refused the client credentials"}
	}
	var doc struct {
		AccessToken string   `json:"access_token"`
		ExpiresIn   *float64 `json:"expires_in"`
	}
	if json.Unmarshal(b, &doc) != nil || doc.AccessToken == "" {
		return "", 0, Errorf(ClassCredentials, "the OAuth2 token endpoint answered without an access token")
	}
	life := defaultTokenLife
	if doc.ExpiresIn != nil && *doc.ExpiresIn > 0 {
		life = time.Duration(*doc.ExpiresIn * float64(time.Second))
	}
	return doc.AccessToken, life, nil
}
