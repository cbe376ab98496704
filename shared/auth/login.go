package auth

import (
	"bytes"
	"context"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Refresh cookie: the name the original service's SDKs read, scoped to the one path that
// takes it.
const (
	RefreshCookie     = "refresh_token"
	refreshCookiePath = "/v2/refresh_token"
)

// tokenResponse is the answer of the login routes and of the refresh exchange.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
}

// login is POST /login, the password flow's token URL: a form with username (the e-mail)
// and password; grant_type, when sent, must be "password"; scope, client_id and
// client_secret are accepted and ignored.
func (s *Service) login(w http.ResponseWriter, r *http.Request) error {
	form, err := readForm(r)
	if err != nil {
		return err
	}
	errs := validate.New()
	email := requiredField(errs, form, "username")
	password := requiredField(errs, form, "password")
	if gt, ok := form["grant_type"]; ok && gt != "" && gt != "password" {
		errs.Add(validate.StringPattern([]any{"body", "grant_type"}, gt, "^password$"))
	}
	if err := errs.Err(); err != nil {
		return err
	}

	u, err := s.checkPassword(r.Context(), email, password)
	if err != nil {
		return err
	}
	return s.issueTokens(r.Context(), w, u.OrgID, u.ID)
}

// loginAPIKey is POST /login/api_key: JSON {"api_key": "..."}.
func (s *Service) loginAPIKey(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	var key string
	if body, ok := errs.Body(raw, present).Required().Object(); ok {
		key, _ = body.Get("api_key").Required().String()
	}
	if err := errs.Err(); err != nil {
		return err
	}

	c, err := s.checkAPIKey(r.Context(), key, false)
	if err != nil {
		return err
	}
	return s.issueTokens(r.Context(), w, c.OrgID, c.UserID)
}

// issueTokens starts a new refresh-token family for the user (a login on another device ends
// the previous one: the user record holds one live refresh token) and answers the access
// token with the refresh cookie.
func (s *Service) issueTokens(ctx context.Context, w http.ResponseWriter, orgID, userID string) error {
	k, err := s.keyring.get(ctx)
	if err != nil {
		return err
	}
	now := s.now()
	refresh, jti, err := refreshKind.issue(k, userID, orgID, now, s.refreshTTL)
	if err != nil {
		return err
	}
	if err := store.SetRefreshJTI(ctx, s.table, userID, jti, now); err != nil {
		return err
	}
	return s.answerTokens(w, k, orgID, userID, refresh)
}

func (s *Service) answerTokens(w http.ResponseWriter, k *keys, orgID, userID, refresh string) error {
	access, _, err := accessKind.issue(k, userID, orgID, s.now(), s.accessTTL)
	if err != nil {
		return err
	}
	http.SetCookie(w, s.refreshCookie(refresh, int(s.refreshTTL.Seconds())))
	w.Header().Set("Cache-Control", "no-store")
	httpapi.WriteJSON(w, http.StatusOK, tokenResponse{AccessToken: access, TokenType: "bearer"})
	return nil
}

// refreshCookie is the cookie carrying value for maxAge seconds (negative deletes it).
func (s *Service) refreshCookie(value string, maxAge int) *http.Cookie {
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

// readForm reads a url-encoded or multipart form body. Any other body counts as an empty
// form, as Starlette reads it, so that its required fields are reported missing.
func readForm(r *http.Request) (map[string]string, error) {
	data, err := httpapi.ReadBody(r, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	var vals url.Values
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/x-www-form-urlencoded":
		vals, _ = url.ParseQuery(string(data))
	case "multipart/form-data":
		f, err := multipart.NewReader(bytes.NewReader(data), params["boundary"]).ReadForm(httpapi.MaxBody)
		if err != nil {
			return out, nil
		}
		defer f.RemoveAll()
		vals = f.Value
	}
	for k, vs := range vals {
		if len(vs) > 0 {
			out[k] = vs[len(vs)-1] // the last of repeated fields, as Starlette keeps it
		}
	}
	return out, nil
}

// requiredField reads a form field; FastAPI takes an empty form value as absent.
func requiredField(errs *validate.Errors, form map[string]string, name string) string {
	v := form[name]
	if v == "" {
		errs.Add(validate.Missing([]any{"body", name}, nil))
	}
	return v
}
