package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// RefreshCookie is the refresh cookie's name, the one the original service's SDKs read.
const RefreshCookie = "refresh_token"

// refreshCookiePath is the root: the original's clients call the exchange as both
// /refresh_token and /v2/refresh_token, and read the cookie with a jar that refuses two
// cookies of one name (httpx.CookieConflict), so there is one cookie that both paths see.
const refreshCookiePath = "/"

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

// Source is what a session is started with: a password or an API key.
type Source struct {
	kind     string // store.SourcePassword or store.SourceAPIKey
	apiKeyID string
}

// PasswordSource is a session started with the user's password.
func PasswordSource() Source { return Source{kind: store.SourcePassword} }

// APIKeySource is a session started with the caller's API key (c as CheckAPIKey returned it).
func APIKeySource(c Caller) Source { return Source{kind: store.SourceAPIKey, apiKeyID: c.APIKeyID} }

// StartSession starts a new session (a refresh-token family) for the user, derived from
// src: a user holds one session per login, each ended on its own.
func (s *Service) StartSession(ctx context.Context, orgID, userID string, src Source) (Session, error) {
	k, err := s.keyring.get(ctx)
	if err != nil {
		return Session{}, err
	}
	now := s.now()
	sc := sessionClaims{Sid: uuid.NewString(), Src: src.kind, Kid: src.apiKeyID}
	refresh, jti, err := refreshKind.issue(k, userID, orgID, sc, now, s.refreshTTL)
	if err != nil {
		return Session{}, err
	}
	rec := store.Session{ID: sc.Sid, UserID: userID, OrgID: orgID, Source: src.kind, APIKeyID: src.apiKeyID,
		CreatedAt: now.UTC()}
	if err := store.CreateSession(ctx, s.table, rec, jti, now.Add(s.refreshTTL)); err != nil {
		return Session{}, err
	}
	return s.session(k, orgID, userID, sc, refresh)
}

func (s *Service) session(k *keys, orgID, userID string, sc sessionClaims, refresh string) (Session, error) {
	access, _, err := accessKind.issue(k, userID, orgID, sc, s.now(), s.accessTTL)
	if err != nil {
		return Session{}, err
	}
	return Session{AccessToken: access, RefreshToken: refresh}, nil
}

// RotateSession exchanges a refresh token for a new session and rotates the token.
// authorization is the request's Authorization header: a Bearer access token, when sent,
// may be expired but must be validly signed and name the same user.
//
// The session is read strongly consistently with its user and, for an API-key session, its
// key; a session that what it was derived from has ended (store.SessionState.Valid) is
// refused at once. Rotation is one compare-and-swap on the session's live refresh token.
// Of concurrent exchanges of one token exactly one wins; a loser, a replay of an old token
// or an unknown jti is reuse: it ends the whole session (also the winner's new tokens), as
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

	st, err := store.ReadSessionState(ctx, s.table, rc.Subject, rc.Sid, rc.Kid, true)
	if err != nil {
		return Session{}, err
	}
	if ok, why := s.valid(st, rc); !ok {
		s.log.InfoContext(ctx, "refresh refused: session ended", "user_id", rc.Subject, "session_id", rc.Sid, "reason", why)
		return Session{}, refusedRefresh()
	}
	if st.RefreshJTI != rc.ID {
		return Session{}, s.reuse(ctx, rc)
	}
	now := s.now()
	next, jti, err := refreshKind.issue(k, rc.Subject, rc.Org, rc.sessionClaims, now, s.refreshTTL)
	if err != nil {
		return Session{}, err
	}
	if err := store.SwapSessionJTI(ctx, s.table, rc.Subject, rc.Sid, rc.ID, jti, now.Add(s.refreshTTL)); err != nil {
		if errors.Is(err, store.ErrConditionFailed) {
			return Session{}, s.reuse(ctx, rc)
		}
		return Session{}, err
	}
	return s.session(k, rc.Org, rc.Subject, rc.sessionClaims, next)
}

// valid says whether the session a token names is still valid: the session state's rules
// (store.SessionState.Valid), and the token's claims must match the session's records.
func (s *Service) valid(st store.SessionState, c claims) (bool, string) {
	if ok, why := st.Valid(s.now()); !ok {
		return false, why
	}
	if st.User.OrgID != c.Org || st.Session.Source != c.Src || st.Session.APIKeyID != c.Kid {
		return false, "claims do not match the session"
	}
	return true, ""
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

// reuse ends the session of a reused refresh token and refuses the exchange.
func (s *Service) reuse(ctx context.Context, rc claims) error {
	s.log.WarnContext(ctx, "refresh token reuse: session ended", "user_id", rc.Subject, "session_id", rc.Sid)
	if err := s.EndSession(ctx, rc.Subject, rc.Sid); err != nil {
		return err
	}
	return refusedRefresh()
}

// EndSession ends one session of the user (logout): its refresh token is refused at once,
// its access tokens here at once and on other instances within StalenessBound.
func (s *Service) EndSession(ctx context.Context, userID, sessionID string) error {
	s.sessions.drop(sessionID)
	return store.DeleteSession(ctx, s.table, userID, sessionID)
}

// EndAllSessions ends every session of the user (logout everywhere).
func (s *Service) EndAllSessions(ctx context.Context, userID string) error {
	ids, err := store.DeleteUserSessions(ctx, s.table, userID)
	for _, id := range ids {
		s.sessions.drop(id)
	}
	return err
}

// SessionOf returns the user and session a validly signed token names (an access token, or
// a refresh token when refresh is true), expired or not, without checking that the session
// is still live: logging out of an ended session is no error.
func (s *Service) SessionOf(ctx context.Context, token string, refresh bool) (userID, sessionID string, ok bool) {
	k, err := s.keyring.get(ctx)
	if err != nil {
		return "", "", false
	}
	kd := accessKind
	if refresh {
		kd = refreshKind
	}
	c, err := kd.parse(k, token, s.now, true)
	if err != nil {
		return "", "", false
	}
	return c.Subject, c.Sid, true
}

// RefreshCookie is the one cookie carrying a refresh token for the refresh lifetime, at
// refreshCookiePath. An empty value deletes the client's cookie.
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

// SetRefreshCookie sets RefreshCookie(value) on w.
func (s *Service) SetRefreshCookie(w http.ResponseWriter, value string) {
	http.SetCookie(w, s.RefreshCookie(value))
}

// AccessToken starts a password session for user userID of organization orgID and returns
// its access token (fixtures, tools). It authenticates while the session is valid.
func (s *Service) AccessToken(ctx context.Context, orgID, userID string) (string, error) {
	sess, err := s.StartSession(ctx, orgID, userID, PasswordSource())
	return sess.AccessToken, err
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
