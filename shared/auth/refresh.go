package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/evalobs/evalapi/shared/store"
)

// refresh is POST /v2/refresh_token: it exchanges the refresh cookie for a new access token
// and rotates the refresh token.
//
// The cookie is required. A Bearer access token, when sent, may be expired but must be
// validly signed and name the same user; without one the cookie alone suffices (the cookie
// is HttpOnly, Secure, SameSite=Strict and scoped to this path, so only this client sends it).
//
// Rotation is one compare-and-swap on the user's refresh_jti. Of concurrent exchanges of one
// token exactly one wins; a loser, a replay of an old token or an unknown jti is reuse: it
// clears refresh_jti, which revokes the whole family (also the winner's new token), as
// RFC 9700 §4.14 asks. There is no grace window for a retried exchange.
func (s *Service) refresh(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	cookie, err := r.Cookie(RefreshCookie)
	if err != nil || cookie.Value == "" {
		return http401(detailNotAuthenticated)
	}
	k, err := s.keyring.get(ctx)
	if err != nil {
		return err
	}
	rc, err := refreshKind.parse(k, cookie.Value, s.now, false)
	if err != nil {
		return s.refuseRefresh(w, detailBadRefresh)
	}
	if err := s.sameUser(k, r, rc.Subject); err != nil {
		return err
	}

	u, a, err := store.GetUser(ctx, s.table, rc.Subject, true)
	if errors.Is(err, store.ErrNotFound) {
		return s.refuseRefresh(w, detailBadRefresh)
	}
	if err != nil {
		return err
	}
	if u.OrgID != rc.Org || u.State != store.UserActive {
		return s.refuseRefresh(w, detailBadRefresh)
	}
	if a.RefreshJTI != rc.ID {
		return s.reuse(ctx, w, u.ID)
	}
	now := s.now()
	next, jti, err := refreshKind.issue(k, u.ID, u.OrgID, now, s.refreshTTL)
	if err != nil {
		return err
	}
	if err := store.SwapRefreshJTI(ctx, s.table, u.ID, rc.ID, jti, now); err != nil {
		if errors.Is(err, store.ErrConditionFailed) {
			return s.reuse(ctx, w, u.ID)
		}
		return err
	}
	return s.answerTokens(w, k, u.OrgID, u.ID, next)
}

// sameUser checks the optional Bearer token of a refresh request.
func (s *Service) sameUser(k *keys, r *http.Request, userID string) error {
	scheme, token, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil
	}
	ac, err := accessKind.parse(k, token, s.now, true)
	if err != nil || ac.Subject != userID {
		return http401(detailBadToken)
	}
	return nil
}

// reuse revokes the user's refresh family and refuses the exchange.
func (s *Service) reuse(ctx context.Context, w http.ResponseWriter, userID string) error {
	s.log.WarnContext(ctx, "refresh token reuse: family revoked", "user_id", userID)
	if err := store.ClearRefreshJTI(ctx, s.table, userID, s.now()); err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return err
	}
	return s.refuseRefresh(w, detailBadRefresh)
}

// refuseRefresh answers 401 and tells the browser to drop the cookie.
func (s *Service) refuseRefresh(w http.ResponseWriter, detail string) error {
	http.SetCookie(w, s.refreshCookie("", -1))
	return http401(detail)
}
