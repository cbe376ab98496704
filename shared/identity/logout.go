package identity

import (
	"net/http"
	"strings"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
)

// logout is POST /v2/logout: it ends the session of the request, named by its Bearer
// access token or its refresh cookie (either may have expired; the signature must hold),
// and clears the cookie. Its refresh token is refused at once, its access tokens here at
// once and on other instances within auth.StalenessBound. A request that names no session
// must still authenticate (an API key or Basic: there is nothing to end); without any
// credential it is 401.
func (h *handlers) logout(w http.ResponseWriter, r *http.Request) error {
	ended := false
	if scheme, token, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " "); strings.EqualFold(scheme, "Bearer") {
		if user, sid, ok := h.Auth.SessionOf(r.Context(), strings.TrimSpace(token), false); ok {
			if err := h.Auth.EndSession(r.Context(), user, sid); err != nil {
				return err
			}
			ended = true
		}
	}
	if c, err := r.Cookie(auth.RefreshCookie); err == nil && c.Value != "" {
		if user, sid, ok := h.Auth.SessionOf(r.Context(), c.Value, true); ok {
			if err := h.Auth.EndSession(r.Context(), user, sid); err != nil {
				return err
			}
			ended = true
		}
	}
	h.Auth.SetRefreshCookie(w, "")
	if !ended {
		if _, err := h.Auth.Identify(r); err != nil {
			return err
		}
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// logoutEverywhere is POST /v2/logout/all: it ends every session of the caller, on every
// device (API keys are not sessions: revoke them to end their use).
func (h *handlers) logoutEverywhere(w http.ResponseWriter, r *http.Request) error {
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	if err := h.Auth.EndAllSessions(r.Context(), c.UserID); err != nil {
		return err
	}
	h.Auth.SetRefreshCookie(w, "")
	w.WriteHeader(http.StatusNoContent)
	return nil
}
