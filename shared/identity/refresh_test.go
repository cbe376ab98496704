package identity_test

import (
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

// session is what a client holds after a login: its access token and refresh cookie.
type session struct {
	access, refresh string
}

func (s session) headers(withBearer bool) http.Header {
	h := http.Header{"Cookie": {"refresh_token=" + s.refresh}}
	if withBearer {
		h.Set("Authorization", "Bearer "+s.access)
	}
	return h
}

func login(t testing.TB, h *harness, u authtest.User) session {
	t.Helper()
	r := h.do(t, "POST", "/login", form(), url.Values{"username": {u.Email}, "password": {u.Password}}.Encode())
	return sessionOf(t, r)
}

func sessionOf(t testing.TB, r response) session {
	t.Helper()
	if r.status != http.StatusOK || r.cookie() == nil {
		t.Fatalf("want tokens, got %s", r)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	r.json(t, &tok)
	return session{access: tok.AccessToken, refresh: r.cookie().Value}
}

func refreshWith(t testing.TB, h *harness, hdr http.Header) response {
	t.Helper()
	return h.do(t, "POST", "/v2/refresh_token", hdr, "")
}

func TestRefresh(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { testRefresh(t, b.open(t)) })
	}
}

func testRefresh(t *testing.T, tbl store.Table) {
	h := newHarness(t, tbl)
	org := h.env.Org(t)
	u, other := org.User, org.Admin

	t.Run("rotates", func(t *testing.T) {
		s := login(t, h, u)
		r := refreshWith(t, h, s.headers(true))
		checkTokens(t, h, r, u.UserID)
		next := sessionOf(t, r)
		if next.refresh == s.refresh || next.access == s.access {
			t.Fatal("refresh did not issue new tokens")
		}
		// The new cookie works, alone and with an expired access token.
		h.clock.Advance(2 * time.Hour)
		checkTokens(t, h, refreshWith(t, h, next.headers(true)), u.UserID)
	})
	t.Run("the client's paths", func(t *testing.T) {
		// The original's clients log in at /login and refresh at /refresh_token; a token
		// rotated at one form of the path works at the other.
		s := sessionOf(t, h.do(t, "POST", "/v2/login", form(), url.Values{"username": {u.Email}, "password": {u.Password}}.Encode()))
		r := h.do(t, "POST", "/refresh_token", s.headers(true), "")
		checkTokens(t, h, r, u.UserID)
		next := sessionOf(t, r)
		checkTokens(t, h, h.do(t, "POST", "/v2/refresh_token", next.headers(false), ""), u.UserID)
	})
	t.Run("cookie alone", func(t *testing.T) {
		s := login(t, h, u)
		checkTokens(t, h, refreshWith(t, h, s.headers(false)), u.UserID)
	})
	t.Run("bearer of another user keeps the family", func(t *testing.T) {
		s := login(t, h, u)
		hdr := s.headers(false)
		hdr.Set("Authorization", "Bearer "+other.AccessToken)
		want401(t, refreshWith(t, h, hdr), "Could not validate credentials")
		checkTokens(t, h, refreshWith(t, h, s.headers(true)), u.UserID)
	})

	refused := []struct {
		name   string
		hdr    func(s session) http.Header
		detail string
	}{
		{"no cookie", func(s session) http.Header { return bearerOf(s.access) }, "Not authenticated"},
		{"empty cookie", func(s session) http.Header { return http.Header{"Cookie": {"refresh_token="}} }, "Not authenticated"},
		{"garbage cookie", func(s session) http.Header { return http.Header{"Cookie": {"refresh_token=abc"}} }, "Invalid refresh token"},
		{"tampered cookie", func(s session) http.Header { return session{refresh: tamper(s.refresh)}.headers(false) }, "Invalid refresh token"},
		{"access token as cookie", func(s session) http.Header { return session{refresh: s.access}.headers(false) }, "Invalid refresh token"},
		{"refresh token as bearer", func(s session) http.Header {
			return session{access: s.refresh, refresh: s.refresh}.headers(true)
		}, "Could not validate credentials"},
		{"tampered bearer", func(s session) http.Header {
			return session{access: tamper(s.access), refresh: s.refresh}.headers(true)
		}, "Could not validate credentials"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			s := login(t, h, u)
			r := refreshWith(t, h, tt.hdr(s))
			want401(t, r, tt.detail)
			if tt.detail == "Invalid refresh token" {
				if c := r.cookie(); c == nil || c.MaxAge >= 0 || len(r.cookies()) != 1 {
					t.Fatalf("the refused cookie is not cleared: %q", r.header.Values("Set-Cookie"))
				}
			}
		})
	}

	t.Run("replay revokes the family", func(t *testing.T) {
		s := login(t, h, u)
		next := sessionOf(t, refreshWith(t, h, s.headers(true)))
		want401(t, refreshWith(t, h, s.headers(true)), "Invalid refresh token")
		want401(t, refreshWith(t, h, next.headers(true)), "Invalid refresh token")
		// A new login starts a new family.
		checkTokens(t, h, refreshWith(t, h, login(t, h, u).headers(true)), u.UserID)
	})
	t.Run("expired refresh token", func(t *testing.T) {
		s := login(t, h, u)
		h.clock.Advance(15 * 24 * time.Hour)
		want401(t, refreshWith(t, h, s.headers(false)), "Invalid refresh token")
	})
}

// TestRefreshRace exchanges one refresh cookie from 100 goroutines at once on every
// backend: exactly one wins, and the reuse by the 99 others revokes the winner's new token.
func TestRefreshRace(t *testing.T) {
	const n = 100
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			h := newHarness(t, b.open(t))
			u := h.env.Org(t).User
			s := login(t, h, u)

			var wg sync.WaitGroup
			results := make([]response, n)
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() {
					<-start
					results[i] = refreshWith(t, h, s.headers(true))
				})
			}
			close(start)
			wg.Wait()

			var winners []response
			for _, r := range results {
				switch {
				case r.status == http.StatusOK:
					winners = append(winners, r)
				case r.status != http.StatusUnauthorized || string(r.body) != `{"detail":"Invalid refresh token"}` ||
					r.header.Get("WWW-Authenticate") != "Bearer":
					t.Errorf("loser answered %s", r)
				}
			}
			if len(winners) != 1 {
				t.Fatalf("%d exchanges succeeded, want exactly 1", len(winners))
			}
			won := sessionOf(t, winners[0])
			want401(t, refreshWith(t, h, won.headers(true)), "Invalid refresh token")
			want401(t, refreshWith(t, h, s.headers(true)), "Invalid refresh token")
		})
	}
}
