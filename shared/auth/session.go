package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// Refresh cookie: the name the original service's SDKs read, scoped to the one path that
// takes it.
const (
	RefreshCookie     = "refresh_token"
	refreshCookiePath = "/v2/refresh_token"
)

// Session is what a login or a refresh exchange gives the client: a short-lived access
// token and the refresh token of its family (carried in the refresh cookie).
type Session struct {
	AccessToken  string
	RefreshToken string
}

// RefreshRefusedError is a refused refresh exchange: answered 401, and the client is told
// to drop its refresh cookie (RefreshCookie("")).
type RefreshRefusedError struct{ err *httpapi.StatusError }

func (e *RefreshRefusedError) Error() string { return e.err.Error() }
func (e *RefreshRefusedError) Unwrap() error { return e.err }

func refusedRefresh() error { return &RefreshRefusedError{err: http401(detailBadRefresh)} }

// StartSession starts a new refresh-token family for the user (a login on another device
// ends the previous one: the user record holds one live refresh token).
func (s *Service) StartSession(ctx context.Context, orgID, userID string) (Session, error) {
	k, err := s.keyring.get(ctx)
	if err != nil {
		return Session{}, err
	}
	now := s.now()
	refresh, jti, err := refreshKind.issue(k, userID, orgID, now, s.refreshTTL)
	if err != nil {
		return Session{}, err
	}
	if err := store.SetRefreshJTI(ctx, s.table, userID, jti, now); err != nil {
		return Session{}, err
	}
	return s.session(k, orgID, userID, refresh)
}

func (s *Service) session(k *keys, orgID, userID, refresh string) (Session, error) {
	access, _, err := accessKind.issue(k, userID, orgID, s.now(), s.accessTTL)
	if err != nil {
		return Session{}, err
	}
	return Session{AccessToken: access, RefreshToken: refresh}, nil
}

// RotateSession exchanges a refresh token for a new session and rotates the token.
// authorization is the request's Authorization header: a Bearer access token, when sent,
// may be expired but must be validly signed and name the same user.
//
// Rotation is one compare-and-swap on the user's refresh_jti. Of concurrent exchanges of one
// token exactly one wins; a loser, a replay of an old token or an unknown jti is reuse: it
// clears refresh_jti, which revokes the whole family (also the winner's new token), as
// RFC 9700 §4.14 asks. There is no grace window for a retried exchange. Refusals are
// *RefreshRefusedError, but for a Bearer token of another user (a plain 401).
func (s *Service) RotateSession(ctx context.Context, refreshToken, authorization string) (Session, error) {
	if refreshToken == "" {
		return Session{}, http401(detailNotAuthenticated)
	}
	k, err := s.keyring.get(ctx)
	if err != nil {
		return Session{}, err
	}
	rc, err := refreshKind.parse(k, refreshToken, s.now, false)
	if err != nil {
		return Session{}, refusedRefresh()
	}
	if err := s.sameUser(k, authorization, rc.Subject); err != nil {
		return Session{}, err
	}

	u, a, err := store.GetUser(ctx, s.table, rc.Subject, true)
	if errors.Is(err, store.ErrNotFound) {
		return Session{}, refusedRefresh()
	}
	if err != nil {
		return Session{}, err
	}
	if u.OrgID != rc.Org || u.State != store.UserActive {
		return Session{}, refusedRefresh()
	}
	if a.RefreshJTI != rc.ID {
		return Session{}, s.reuse(ctx, u.ID)
	}
	now := s.now()
	next, jti, err := refreshKind.issue(k, u.ID, u.OrgID, now, s.refreshTTL)
	if err != nil {
		return Session{}, err
	}
	if err := store.SwapRefreshJTI(ctx, s.table, u.ID, rc.ID, jti, now); err != nil {
		if errors.Is(err, store.ErrConditionFailed) {
			return Session{}, s.reuse(ctx, u.ID)
		}
		return Session{}, err
	}
	return s.session(k, u.OrgID, u.ID, next)
}

// sameUser checks the optional Bearer token of a refresh request.
func (s *Service) sameUser(k *keys, authorization, userID string) error {
	scheme, token, _ := strings.Cut(strings.TrimSpace(authorization), " ")
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
func (s *Service) reuse(ctx context.Context, userID string) error {
	s.log.WarnContext(ctx, "refresh token reuse: family revoked", "user_id", userID)
	if err := store.ClearRefreshJTI(ctx, s.table, userID, s.now()); err != nil && !errors.Is(err, store.ErrConditionFailed) {
		return err
	}
	return refusedRefresh()
}

// RefreshCookie is the cookie carrying a refresh token for the refresh lifetime; an empty
// value deletes the client's cookie.
func (s *Service) RefreshCookie(value string) *http.Cookie {
	maxAge := int(s.refreshTTL.Seconds())
	if value == "" {
		maxAge = -1
	}
	return &http.Cookie{
		Name: RefreshCookie, Value: value, Path: refreshCookiePath, MaxAge: maxAge,
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode,
	}
}

// AccessToken issues an access token for user userID of organization orgID without touching
// the store (fixtures, tools). It authenticates only while the user exists and is active.
func (s *Service) AccessToken(ctx context.Context, orgID, userID string) (string, error) {
	k, err := s.keyring.get(ctx)
	if err != nil {
		return "", err
	}
	tok, _, err := accessKind.issue(k, userID, orgID, s.now(), s.accessTTL)
	return tok, err
}

// HashPassword hashes a new password in one of the process's bounded argon2id slots
// (19 MiB each), so that a burst of user creations cannot exhaust memory.
func (s *Service) HashPassword(ctx context.Context, password string) (string, error) {
	select {
	case s.hashSlots <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-s.hashSlots }()
	return HashPassword(password)
}
