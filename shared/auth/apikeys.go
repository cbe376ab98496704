package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/secrets"
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

// CreateAPIKey makes a new API key for user userID of organization orgID and returns it
// (shown once; only its digest is stored) with its record. expires nil never expires.
func (s *Service) CreateAPIKey(ctx context.Context, orgID, userID, description string, expires *time.Time) (secrets.Value, store.APIKey, error) {
	k, err := s.keyring.get(ctx)
	if err != nil {
		return secrets.Value{}, store.APIKey{}, err
	}
	for range 3 { // a clash of random UUIDs is never expected; retrying costs nothing
		key, rec, digest, err := newAPIKeyRecord(k, orgID, userID, description, expires, s.clock())
		if err != nil {
			return secrets.Value{}, store.APIKey{}, err
		}
		err = store.CreateAPIKey(ctx, s.table, rec, digest)
		if errors.Is(err, store.ErrAlreadyExists) {
			continue
		}
		if err != nil {
			return secrets.Value{}, store.APIKey{}, err
		}
		return secrets.NewValueString(key.String()), rec, nil
	}
	return secrets.Value{}, store.APIKey{}, errors.New("auth: create api key: id clashes")
}

func newAPIKeyRecord(k *keys, orgID, userID, description string, expires *time.Time, now time.Time) (apiKey, store.APIKey, string, error) {
	key, err := newAPIKey()
	if err != nil {
		return apiKey{}, store.APIKey{}, "", err
	}
	rec := store.APIKey{ID: key.id, OrgID: orgID, UserID: userID, Description: description,
		Truncated: key.truncated(), CreatedAt: now, UpdatedAt: now, ExpiresAt: expires}
	return key, rec, encodeDigest(key.digest(k.pepper)), nil
}

// createAPIKey is POST /v2/api_keys: {"description", "expires_at"} for the caller.
func (s *Service) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	c, err := caller(r.Context())
	if err != nil {
		return err
	}
	description, expires, err := s.readNewAPIKey(r)
	if err != nil {
		return err
	}

	key, rec, err := s.CreateAPIKey(r.Context(), c.OrgID, c.UserID, description, expires)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpapi.WriteJSON(w, http.StatusOK, createdAPIKey{apiKeyResponse: apiKeyOut(rec), APIKey: key.RevealString()})
	return nil
}

func (s *Service) readNewAPIKey(r *http.Request) (string, *time.Time, error) {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return "", nil, err
	}
	errs := validate.New()
	var description string
	var expires *time.Time
	if body, ok := errs.Body(raw, present).Required().Object(); ok {
		description, _ = body.Get("description").Required().String(validate.MinLen(1), validate.MaxLen(255))
		v := body.Get("expires_at").Nullable()
		if t, ok := v.Datetime(); ok {
			if !t.After(s.now()) {
				v.Fail("expires_at must be in the future")
			} else {
				t = t.UTC()
				expires = &t
			}
		}
	}
	return description, expires, errs.Err()
}

// listAPIKeys is GET /v2/api_keys: the caller's keys, oldest first.
func (s *Service) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	c, err := caller(r.Context())
	if err != nil {
		return err
	}
	keys, err := store.UserAPIKeys(r.Context(), s.table, c.UserID)
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
func (s *Service) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	c, err := caller(r.Context())
	if err != nil {
		return err
	}
	errs := validate.New()
	id, _ := errs.Path("api_key_id", r.PathValue("api_key_id")).UUID(4)
	if err := errs.Err(); err != nil {
		return err
	}

	k, err := store.RevokeAPIKey(r.Context(), s.table, c.UserID, id, s.clock())
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("API key")
	}
	if err != nil {
		return fmt.Errorf("revoke api key: %w", err)
	}
	s.cache.drop(id)
	httpapi.WriteJSON(w, http.StatusOK, apiKeyOut(k))
	return nil
}
