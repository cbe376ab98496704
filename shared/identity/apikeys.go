package identity

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// apiKeyResponse is an API key as lists show it: the secret never, the key's head only.
type apiKeyResponse struct {
	ID          string  `json:"id"`
	Description string  `json:"description"`
	Truncated   string  `json:"truncated"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
	ExpiresAt   *string `json:"expires_at"`
	LastUsed    *string `json:"last_used"`
	Revoked     bool    `json:"revoked"`
}

// createdAPIKey is the answer of POST /v2/api_keys: the one time the key is shown.
type createdAPIKey struct {
	apiKeyResponse
	APIKey string `json:"api_key"`
}

func apiKeyOut(k store.APIKey) apiKeyResponse {
	return apiKeyResponse{ID: k.ID, Description: k.Description, Truncated: k.Truncated,
		CreatedAt: timestamp(k.CreatedAt), UpdatedAt: timestamp(k.UpdatedAt),
		ExpiresAt: optionalTimestamp(k.ExpiresAt), LastUsed: optionalTimestamp(k.LastUsedAt), Revoked: k.Revoked}
}

// createAPIKey is POST /v2/api_keys: {"description", "expires_at"} for the caller.
func (h *handlers) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ReadBody(h.readNewAPIKey))
	if err != nil {
		return err
	}
	c, description, expires := call.Caller, call.In.description, call.In.expires
	key, rec, err := h.Auth.CreateAPIKey(r.Context(), c.OrgID, c.UserID, description, expires)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpapi.WriteJSON(w, http.StatusOK, createdAPIKey{apiKeyResponse: apiKeyOut(rec), APIKey: key.RevealString()})
	return nil
}

// newAPIKey is the body of a new API key.
type newAPIKey struct {
	description string
	expires     *time.Time
}

func (h *handlers) readNewAPIKey(errs *validate.Errors, raw any, present bool) (k newAPIKey) {
	if body, ok := errs.Body(raw, present).Required().Object(); ok {
		k.description, _ = body.Get("description").Required().String(validate.MinLen(1), validate.MaxLen(255))
		v := body.Get("expires_at").Nullable()
		if t, ok := v.Datetime(); ok {
			if !t.After(h.Now()) {
				v.Fail("expires_at must be in the future")
			} else {
				t = t.UTC()
				k.expires = &t
			}
		}
	}
	return k
}

// listAPIKeys is GET /v2/api_keys: the caller's keys, oldest first.
func (h *handlers) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	keys, err := store.UserAPIKeys(r.Context(), h.Table, c.UserID)
	if err != nil {
		return err
	}
	out := make([]apiKeyResponse, 0, len(keys))
	for _, k := range keys {
		if k.OrgID == c.OrgID {
			out = append(out, apiKeyOut(k))
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// revokeAPIKey is DELETE /v2/api_keys/{api_key_id}: the caller revokes one of their keys;
// anyone else's key is not found. The key stops working here at once and on other
// instances within MaxAPIKeyCacheTTL.
func (h *handlers) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, base.PathID("api_key_id", 4))
	if err != nil {
		return err
	}
	c, id := call.Caller, call.In
	k, err := store.RevokeAPIKey(r.Context(), h.Table, c.UserID, id, h.Stamp())
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("API key")
	}
	if err != nil {
		return fmt.Errorf("revoke api key: %w", err)
	}
	h.Auth.ForgetAPIKey(id)
	httpapi.WriteJSON(w, http.StatusOK, apiKeyOut(k))
	return nil
}
