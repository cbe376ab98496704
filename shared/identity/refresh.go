package identity

import (
	"errors"
	"net/http"

	"github.com/evalobs/evalapi/shared/auth"
)

// refresh is POST /v2/refresh_token (operation 1): it exchanges the refresh cookie for a new
// access token and rotates the refresh token (auth.Service.RotateSession has the rules).
// The cookie is required; a refused exchange also tells the browser to drop it.
func (h *handlers) refresh(w http.ResponseWriter, r *http.Request) error {
	var token string
	if c, err := r.Cookie(auth.RefreshCookie); err == nil {
		token = c.Value
	}
	s, err := h.Auth.RotateSession(r.Context(), token, r.Header.Get("Authorization"))
	var refused *auth.RefreshRefusedError
	if errors.As(err, &refused) {
		h.Auth.SetRefreshCookie(w, "")
	}
	if err != nil {
		return err
	}
	return h.answerSession(w, s)
}
