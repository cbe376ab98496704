package identity

import (
	"errors"
	"net/http"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/validate"
)

// tokenResponse is the answer of the login routes and of the refresh exchange.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
}

// login is POST /login, the password flow's token URL: a form with username (the e-mail)
// and password; grant_type, when sent, must be "password"; scope, client_id and
// client_secret are accepted and ignored.
func (h *handlers) login(w http.ResponseWriter, r *http.Request) error {
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

	u, err := h.Auth.CheckPassword(r.Context(), email, password)
	if err != nil {
		return err
	}
	return h.startSession(w, r, u.OrgID, u.ID, auth.PasswordSource())
}

// loginAPIKey is POST /login/api_key: JSON {"api_key": "..."}.
func (h *handlers) loginAPIKey(w http.ResponseWriter, r *http.Request) error {
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

	c, err := h.Auth.CheckAPIKey(r.Context(), key)
	if err != nil {
		return err
	}
	return h.startSession(w, r, c.OrgID, c.UserID, auth.APIKeySource(c))
}

// startSession starts a refresh-token family for the user and answers its tokens.
func (h *handlers) startSession(w http.ResponseWriter, r *http.Request, orgID, userID string, src auth.Source) error {
	s, err := h.Auth.StartSession(r.Context(), orgID, userID, src)
	if err != nil {
		return err
	}
	return h.answerSession(w, s)
}

// answerSession answers the access token in the body and the refresh token in its cookie.
func (h *handlers) answerSession(w http.ResponseWriter, s auth.Session) error {
	h.Auth.SetRefreshCookie(w, s.RefreshToken)
	w.Header().Set("Cache-Control", "no-store")
	httpapi.WriteJSON(w, http.StatusOK, tokenResponse{AccessToken: s.AccessToken, TokenType: "bearer"})
	return nil
}

// readForm reads a url-encoded or multipart form body. Any other body counts as an empty
// form, as Starlette reads it, so that its required fields are reported missing; so does a
// multipart body that does not parse.
func readForm(r *http.Request) (map[string]string, error) {
	f, err := httpapi.ReadForm(r, 0)
	var se *httpapi.StatusError
	if errors.As(err, &se) && se.Status == http.StatusBadRequest {
		return map[string]string{}, nil
	}
	return f.Values, err
}

// requiredField reads a form field; FastAPI takes an empty form value as absent.
func requiredField(errs *validate.Errors, form map[string]string, name string) string {
	v := form[name]
	if v == "" {
		errs.Add(validate.Missing([]any{"body", name}, nil))
	}
	return v
}
