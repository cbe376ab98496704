package identity_test

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestMain runs the package's tests and then scans everything they logged and every
// response they received for the canary credentials planted by TestCanary (and for any
// password hash): a leak anywhere in the suite fails the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if leaks := scanLeaks(); len(leaks) > 0 {
		fmt.Fprintln(os.Stderr, "credential leak scan failed:\n  "+strings.Join(leaks, "\n  "))
		code = 1
	}
	os.Exit(code)
}

// canary is a credential that may appear only in the response that issued it.
type canary struct {
	name, value string
	issuedIn    int // response id, or -1
}

var canaries struct {
	mu   sync.Mutex
	list []canary
}

func plant(name, value string, issuedIn int) {
	canaries.mu.Lock()
	defer canaries.mu.Unlock()
	canaries.list = append(canaries.list, canary{name, value, issuedIn})
}

// forms are the encodings a leaked value could take on its way out.
func forms(v string) map[string]string {
	b := []byte(v)
	return map[string]string{
		"raw":        v,
		"base64":     base64.StdEncoding.EncodeToString(b),
		"base64raw":  base64.RawStdEncoding.EncodeToString(b),
		"base64url":  base64.URLEncoding.EncodeToString(b),
		"base64rurl": base64.RawURLEncoding.EncodeToString(b),
		"hex":        hex.EncodeToString(b),
		"query":      url.QueryEscape(v),
		"path":       url.PathEscape(v),
	}
}

// scanLeaks returns a line per canary form found where it must not be.
func scanLeaks() []string {
	logs, responses := suite.snapshot()
	canaries.mu.Lock()
	list := append([]canary(nil), canaries.list...)
	canaries.mu.Unlock()
	var leaks []string
	for _, c := range list {
		for form, v := range forms(c.value) {
			if strings.Contains(logs, v) {
				leaks = append(leaks, fmt.Sprintf("%s (%s) in the log", c.name, form))
			}
			for i, r := range responses {
				if i == c.issuedIn {
					continue
				}
				if strings.Contains(string(r.body), v) || strings.Contains(headerText(r.header), v) {
					leaks = append(leaks, fmt.Sprintf("%s (%s) in response %d: %.200s", c.name, form, i, r.body))
				}
			}
		}
	}
	for _, marker := range []string{"$argon2id$", "password_hash", "secret_hash", "refresh_jti"} {
		if strings.Contains(logs, marker) {
			leaks = append(leaks, marker+" in the log")
		}
		for i, r := range responses {
			if strings.Contains(string(r.body), marker) {
				leaks = append(leaks, fmt.Sprintf("%s in response %d", marker, i))
			}
		}
	}
	return leaks
}

func headerText(h http.Header) string {
	var b strings.Builder
	_ = h.Write(&b)
	return b.String()
}

// TestCanary plants a canary password, API key, access token and refresh cookie and uses
// each in right and wrong places; the scan then runs on what the suite captured so far (and
// again, over the whole suite, in TestMain).
func TestCanary(t *testing.T) {
	h := newHarness(t, openEmbedded(t))
	org := h.env.Org(t)
	password := "Canary-PW+/=" + rand.Text()
	plant("password", password, -1)
	email := "canary-" + strings.ToLower(rand.Text()[:8]) + "@example.com"

	// The admin creates the user; the password travels in the request only.
	r := h.do(t, "POST", "/v2/users", org.Admin.Header(), `{"email":"`+email+`","password":"`+password+`"}`)
	if r.status != 200 {
		t.Fatalf("create user: %s", r)
	}
	r = h.do(t, "POST", "/login", form(), "username="+url.QueryEscape(email)+"&password="+url.QueryEscape(password))
	if r.status != 200 || r.cookie() == nil {
		t.Fatalf("login: %s", r)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	r.json(t, &tok)
	refresh := r.cookie().Value
	plant("access token", tok.AccessToken, r.id)
	plant("access token signature", tok.AccessToken[strings.LastIndex(tok.AccessToken, ".")+1:], r.id)
	plant("refresh token", refresh, r.id)
	plant("refresh token signature", refresh[strings.LastIndex(refresh, ".")+1:], r.id)
	bearer := http.Header{"Authorization": {"Bearer " + tok.AccessToken}}

	// The refresh cookie rotates once; replaying it is reuse.
	cookie := http.Header{"Cookie": {"refresh_token=" + refresh}}
	if r := h.do(t, "POST", "/v2/refresh_token", cookie, ""); r.status != 200 {
		t.Fatalf("refresh: %s", r)
	}
	want401(t, h.do(t, "POST", "/v2/refresh_token", cookie, ""), "Invalid refresh token")
	// The reuse ended the session, its access tokens with it.
	want401(t, h.do(t, "GET", "/v2/current_user", bearer, ""), "Could not validate credentials")
	r = h.do(t, "POST", "/login", form(), "username="+url.QueryEscape(email)+"&password="+url.QueryEscape(password))
	if r.status != 200 {
		t.Fatalf("login again: %s", r)
	}
	r.json(t, &tok)
	plant("second access token", tok.AccessToken, r.id)
	plant("second refresh token", r.cookie().Value, r.id)
	bearer = http.Header{"Authorization": {"Bearer " + tok.AccessToken}}

	r = h.do(t, "POST", "/v2/api_keys", bearer, `{"description":"canary"}`)
	if r.status != 200 {
		t.Fatalf("create api key: %s", r)
	}
	var created struct {
		ID     string `json:"id"`
		APIKey string `json:"api_key"`
	}
	r.json(t, &created)
	plant("api key", created.APIKey, r.id)
	plant("api key secret", created.APIKey[strings.LastIndex(created.APIKey, "_")+1:], r.id)
	plant("api key secret head", created.APIKey[strings.LastIndex(created.APIKey, "_")+1:][:12], r.id)

	basic := func(user, pw string) http.Header {
		return http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pw))}}
	}
	uses := []struct {
		name, method, path string
		hdr                http.Header
		body               string
		status             int
	}{
		{"bearer", "GET", "/v2/current_user", bearer, "", 200},
		{"api key", "GET", "/v2/current_user", http.Header{"Service-API-Key": {created.APIKey}}, "", 200},
		{"basic", "GET", "/v2/current_user", basic(email, password), "", 200},
		{"password as api key", "GET", "/v2/current_user", http.Header{"Vendor-AO-API-Key": {password}}, "", 401},
		{"api key as password", "GET", "/v2/current_user", basic(email, created.APIKey), "", 401},
		{"password of another user", "GET", "/v2/current_user", basic(org.User.Email, password), "", 401},
		{"refresh token as bearer", "GET", "/v2/current_user", http.Header{"Authorization": {"Bearer " + refresh}}, "", 401},
		{"access token as cookie", "POST", "/v2/refresh_token", http.Header{"Cookie": {"refresh_token=" + tok.AccessToken}}, "", 401},
		{"api key login", "POST", "/login/api_key", nil, `{"api_key":"` + created.APIKey + `"}`, 200},
		{"wrong api key login", "POST", "/login/api_key", nil, `{"api_key":"` + created.APIKey + `x"}`, 401},
		{"login without username", "POST", "/login", form(), "password=" + url.QueryEscape(password), 422},
		{"login with wrong password", "POST", "/login", form(), "username=" + email + "&password=" + url.QueryEscape(password+"x"), 401},
		{"user body without email", "POST", "/v2/users", org.Admin.Header(), `{"password":"` + password + `"}`, 422},
		{"user body with bad email", "POST", "/v2/users", org.Admin.Header(), `{"email":"x","password":"` + password + `","role":"boss"}`, 422},
		{"list keys", "GET", "/v2/api_keys", bearer, "", 200},
		{"revoke key", "DELETE", "/v2/api_keys/" + created.ID, bearer, "", 200},
		{"revoked key", "GET", "/v2/current_user", http.Header{"Service-API-Key": {created.APIKey}}, "", 401},
	}
	for _, u := range uses {
		if r := h.do(t, u.method, u.path, u.hdr, u.body); r.status != u.status {
			t.Errorf("%s: got %s, want %d", u.name, r, u.status)
		}
	}
	h.svc.Wait()
	if leaks := scanLeaks(); len(leaks) > 0 {
		t.Fatalf("leaks:\n%s", strings.Join(leaks, "\n"))
	}
}

func form() http.Header {
	return http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
}
