package identity_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

func TestLogin(t *testing.T) {
	h := newHarness(t, openEmbedded(t))
	org := h.env.Org(t)
	u := org.Manager
	now := h.clock.Now()
	invited := store.User{ID: uuid.NewString(), OrgID: org.ID, Email: "inv-" + uuid.NewString()[:8] + "@example.com",
		Role: "user", State: store.UserInvited, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateUser(t.Context(), h.env.Table, invited, ""); err != nil {
		t.Fatal(err)
	}
	good := url.Values{"username": {u.Email}, "password": {u.Password}}
	with := func(kv ...string) string {
		v := url.Values{}
		for k, vs := range good {
			v[k] = vs
		}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v.Encode()
	}
	mp, mpType := multipartForm(t, map[string]string{"username": u.Email, "password": u.Password})
	// validate redacts every input at a credential's location, a missing one's too.
	const missingBoth = `{"detail":[{"type":"missing","loc":["body","username"],"msg":"Field required","input":null},` +
		`{"type":"missing","loc":["body","password"],"msg":"Field required","input":null}]}`

	tests := []struct {
		name   string
		ctype  string
		body   string
		status int
		want   string // exact body for errors
	}{
		{"form", "application/x-www-form-urlencoded", with(), 200, ""},
		{"grant type password and ignored fields", "application/x-www-form-urlencoded",
			with("grant_type", "password", "scope", "a b", "client_id", "x", "client_secret", "y"), 200, ""},
		{"empty grant type", "application/x-www-form-urlencoded", with("grant_type", ""), 200, ""},
		{"multipart", mpType, mp, 200, ""},
		{"other grant type", "application/x-www-form-urlencoded", with("grant_type", "client_credentials"), 422,
			`{"detail":[{"type":"string_pattern_mismatch","loc":["body","grant_type"],"msg":"String should match pattern '^password$'",` +
				`"input":"client_credentials","ctx":{"pattern":"^password$"}}]}`},
		{"json body", "application/json", `{"username":"a","password":"b"}`, 422, missingBoth},
		{"no body", "application/x-www-form-urlencoded", "", 422, missingBoth},
		{"empty username", "application/x-www-form-urlencoded", with("username", ""), 422,
			`{"detail":[{"type":"missing","loc":["body","username"],"msg":"Field required","input":null}]}`},
		{"wrong password", "application/x-www-form-urlencoded", with("password", "nope-nope"), 401, `{"detail":"Incorrect username or password"}`},
		{"unknown user", "application/x-www-form-urlencoded", with("username", "ghost@example.com"), 401, `{"detail":"Incorrect username or password"}`},
		{"invited user", "application/x-www-form-urlencoded", with("username", invited.Email, "password", "anything"), 401, `{"detail":"Incorrect username or password"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(t, "POST", "/login", http.Header{"Content-Type": {tt.ctype}}, tt.body)
			if r.status != tt.status {
				t.Fatalf("got %s, want %d", r, tt.status)
			}
			if tt.status != 200 {
				if string(r.body) != tt.want {
					t.Fatalf("body %s\nwant %s", r.body, tt.want)
				}
				if tt.status == 401 && r.header.Get("WWW-Authenticate") != "Bearer" {
					t.Fatalf("WWW-Authenticate = %q", r.header.Get("WWW-Authenticate"))
				}
				return
			}
			checkTokens(t, h, r, u.UserID)
		})
	}
}

// checkTokens asserts a token answer: the body, the cookie's attributes, and that the
// access token authenticates as userID.
func checkTokens(t *testing.T, h *harness, r response, userID string) {
	t.Helper()
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	r.json(t, &tok)
	if tok.AccessToken == "" || tok.TokenType != "bearer" {
		t.Fatalf("token body %s", r.body)
	}
	// Exactly one cookie, at the root: the original's client keeps cookies in an httpx jar,
	// which refuses two of one name (CookieConflict), and calls both forms of the exchange.
	cookies := r.cookies()
	if len(cookies) != 1 || cookies[0].Path != "/" {
		t.Fatalf("refresh cookies %q, want one at Path=/", r.header.Values("Set-Cookie"))
	}
	for _, c := range cookies {
		if c.Value == "" || !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode ||
			c.MaxAge != int((14*24*time.Hour).Seconds()) {
			t.Fatalf("refresh cookie %q", r.header.Values("Set-Cookie"))
		}
	}
	me := h.do(t, "GET", "/v2/current_user", bearerOf(tok.AccessToken), "")
	var got struct{ ID string }
	me.json(t, &got)
	if got.ID != userID {
		t.Fatalf("access token authenticates as %s, want %s", me, userID)
	}
}

func TestLoginAPIKey(t *testing.T) {
	h := newHarness(t, openEmbedded(t))
	u := h.env.Org(t).User
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"ok", `{"api_key":"` + u.APIKey + `"}`, 200, ""},
		{"wrong key", `{"api_key":"` + u.APIKey[:len(u.APIKey)-1] + `2"}`, 401, `{"detail":"Invalid API key"}`},
		{"garbage", `{"api_key":"x"}`, 401, `{"detail":"Invalid API key"}`},
		{"missing", `{}`, 422, `{"detail":[{"type":"missing","loc":["body","api_key"],"msg":"Field required","input":{}}]}`},
		{"not a string", `{"api_key":12}`, 422,
			`{"detail":[{"type":"string_type","loc":["body","api_key"],"msg":"Input should be a valid string","input":"[redacted]"}]}`},
		{"no body", ``, 422, `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		{"not json", `{api_key`, 422,
			`{"detail":[{"type":"json_invalid","loc":["body",1],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting property name enclosed in double quotes"}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(t, "POST", "/login/api_key", nil, tt.body)
			if r.status != tt.status {
				t.Fatalf("got %s, want %d", r, tt.status)
			}
			if tt.status == 200 {
				checkTokens(t, h, r, u.UserID)
				return
			}
			if string(r.body) != tt.want {
				t.Fatalf("body %s\nwant %s", r.body, tt.want)
			}
		})
	}
}

func multipartForm(t *testing.T, fields map[string]string) (string, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String(), w.FormDataContentType()
}
