package auth

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// Header names of the API-key schemes.
const (
	HeaderServiceAPIKey = "Service-API-Key"
	HeaderVendorAPIKey  = "Vendor-AO-API-Key"
	// HeaderGalileoAPIKey is the name the original service's own clients send (its
	// OpenTelemetry exporter and ingest client).
	HeaderGalileoAPIKey = "Galileo-API-Key"
)

// apiKeyHeaders are the API-key headers in the order credentials reads them.
var apiKeyHeaders = [...]string{HeaderServiceAPIKey, HeaderVendorAPIKey, HeaderGalileoAPIKey}

// Scheme names in Caller.Scheme.
const (
	SchemeAPIKey = "api_key"
	SchemeBearer = "bearer"
	SchemeBasic  = "basic"
)

// credential is one credential found on a request.
type credential struct {
	scheme string
	value  string // the API key or the bearer token
	email  string // basic
	pass   string // basic
	bad    bool   // present but not decodable
}

// Authenticate is the middleware of every protected route: it puts the Caller in the
// request's context, or answers 401. Any of the four schemes authenticates; every
// credential present is checked, so a wrong one is refused even beside a right one, and
// credentials that name different users are refused too.
func (s *Service) Authenticate(next httpapi.HandlerFunc) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := s.authenticate(r.Context(), r)
		if err != nil {
			return err
		}
		return next(w, r.WithContext(WithCaller(r.Context(), c)))
	}
}

// Identify authenticates r as the middleware does, for routes that authenticate only in
// some cases (logout without a session).
func (s *Service) Identify(r *http.Request) (Caller, error) { return s.authenticate(r.Context(), r) }

func (s *Service) authenticate(ctx context.Context, r *http.Request) (Caller, error) {
	creds := credentials(r)
	if len(creds) == 0 {
		return Caller{}, http401(detailNotAuthenticated)
	}
	var who Caller
	for i, cr := range creds {
		c, err := s.check(ctx, cr)
		if err != nil {
			return Caller{}, err
		}
		if i > 0 && c.UserID != who.UserID {
			return Caller{}, http401(detailBadToken)
		}
		if i == 0 {
			who = c
		}
	}
	return who, nil
}

// credentials lists the credentials of r in a fixed order. Empty values count as absent,
// and an Authorization header of another scheme is not ours to judge, as in FastAPI.
func credentials(r *http.Request) []credential {
	var out []credential
	for _, h := range apiKeyHeaders {
		if v := strings.TrimSpace(r.Header.Get(h)); v != "" {
			out = append(out, credential{scheme: SchemeAPIKey, value: v})
		}
	}
	scheme, param, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	param = strings.TrimSpace(param)
	switch {
	case param == "":
	case strings.EqualFold(scheme, "Bearer"):
		out = append(out, credential{scheme: SchemeBearer, value: param})
	case strings.EqualFold(scheme, "Basic"):
		out = append(out, basicCredential(param))
	}
	return out
}

func basicCredential(param string) credential {
	raw, err := base64.StdEncoding.DecodeString(param)
	if err != nil {
		return credential{scheme: SchemeBasic, bad: true}
	}
	email, pass, ok := strings.Cut(string(raw), ":")
	if !ok || email == "" {
		return credential{scheme: SchemeBasic, bad: true}
	}
	return credential{scheme: SchemeBasic, email: email, pass: pass}
}

func (s *Service) check(ctx context.Context, cr credential) (Caller, error) {
	switch cr.scheme {
	case SchemeAPIKey:
		return s.checkAPIKey(ctx, cr.value, true)
	case SchemeBearer:
		return s.checkBearer(ctx, cr.value)
	default:
		if cr.bad {
			return Caller{}, http401(detailBadBasic)
		}
		u, err := s.CheckPassword(ctx, cr.email, cr.pass)
		if err != nil {
			return Caller{}, err
		}
		return callerOf(u, SchemeBasic), nil
	}
}

// checkBearer verifies an access token and that its session is still valid: its user
// exists, is active and of the token's organization, and what the session was derived from
// (an API key, the password) has not ended (store.SessionState.Valid). The check reads the
// user, the session and its key in one strongly consistent batch, and this instance trusts
// it for at most StalenessBound: a role change, a revoked key, a password change, a
// deactivation or a logout reaches every instance within that time.
func (s *Service) checkBearer(ctx context.Context, token string) (Caller, error) {
	k, err := s.keyring.get(ctx)
	if err != nil {
		return Caller{}, err
	}
	c, err := s.accessClaims(k, token)
	if err != nil {
		return Caller{}, http401(detailBadToken)
	}
	now := s.now()
	if e, ok := s.sessions.get(c.Sid, now); ok && e.caller.UserID == c.Subject && e.org == c.Org && e.claims == c.sessionClaims {
		return e.caller, nil
	}
	st, err := store.ReadSessionState(ctx, s.table, c.Subject, c.Sid, c.Kid, true)
	if err != nil {
		return Caller{}, err
	}
	if ok, _ := s.valid(st, c); !ok {
		return Caller{}, http401(detailBadToken)
	}
	caller := callerOf(*st.User, SchemeBearer)
	caller.SessionID = c.Sid
	s.sessions.put(c.Sid, cachedCaller{caller: caller, claims: c.sessionClaims, org: c.Org, until: now.Add(s.sessions.ttl)})
	return caller, nil
}

// CheckPassword verifies an e-mail and password. An unknown e-mail and a user without a
// password (invited) still pay one hash, so that timing does not tell which e-mails exist.
func (s *Service) CheckPassword(ctx context.Context, email, password string) (store.User, error) {
	u, a, err := store.UserByEmail(ctx, s.table, email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return store.User{}, err
	}
	hash := a.PasswordHash
	if err != nil || hash == "" || u.State != store.UserActive {
		if hash, err = s.dummyHash(); err != nil {
			return store.User{}, err
		}
		u = store.User{}
	}
	ok, err := s.verify(ctx, hash, password)
	if errors.Is(err, errBadHash) {
		s.log.ErrorContext(ctx, "password hash unreadable", "user_id", u.ID)
		return store.User{}, http401(detailBadLogin)
	}
	if err != nil {
		return store.User{}, err
	}
	if !ok || u.ID == "" {
		return store.User{}, http401(detailBadLogin)
	}
	return u, nil
}

// verify runs one argon2id check in one of the bounded slots.
func (s *Service) verify(ctx context.Context, hash, password string) (bool, error) {
	if len(password) > MaxPasswordLen {
		return false, nil
	}
	select {
	case s.hashSlots <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-s.hashSlots }()
	return VerifyPassword(hash, password)
}

func callerOf(u store.User, scheme string) Caller {
	return Caller{UserID: u.ID, OrgID: u.OrgID, Role: Role(u.Role), Email: u.Email,
		FirstName: u.FirstName, LastName: u.LastName, Scheme: scheme}
}
