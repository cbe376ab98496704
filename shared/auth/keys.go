package auth

import (
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"

	"github.com/evalobs/evalapi/shared/secrets"
)

// MinSecretLen is the shortest signing secret accepted: HS256 wants a key of at least 256
// bits (RFC 7518 §3.2), and the secret is the only input of every derived key.
const MinSecretLen = 32

// Labels of the keys derived from the one signing secret. Distinct labels give unrelated
// keys, so an access token can never verify as a refresh token (RFC 8725 §3.12) and the
// API-key pepper says nothing about either.
const (
	labelAccess  = "evalapi/jwt/access/v1"
	labelRefresh = "evalapi/jwt/refresh/v1"
	labelPepper  = "evalapi/api-key/pepper/v1"
)

// keys are the key materials derived from the signing secret.
type keys struct {
	access  []byte
	refresh []byte
	pepper  []byte
}

func deriveKeys(secret []byte) (*keys, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("auth: signing secret has %d bytes, fewer than %d", len(secret), MinSecretLen)
	}
	derive := func(label string) ([]byte, error) {
		return hkdf.Key(sha256.New, secret, nil, label, 32)
	}
	var k keys
	var err error
	if k.access, err = derive(labelAccess); err != nil {
		return nil, fmt.Errorf("auth: derive access key: %w", err)
	}
	if k.refresh, err = derive(labelRefresh); err != nil {
		return nil, fmt.Errorf("auth: derive refresh key: %w", err)
	}
	if k.pepper, err = derive(labelPepper); err != nil {
		return nil, fmt.Errorf("auth: derive api-key pepper: %w", err)
	}
	return &k, nil
}

// keyring reads the signing secret through the secrets port on first use and keeps the
// derived keys for the life of the process: a rotated secret takes effect in new instances.
// A failed read is not remembered, so the next request tries again.
//
// The API-key pepper comes from its own secret when pepperRef is set (the stack's
// API_KEY_PEPPER_ARN), so that rotating the signing secret logs users out without
// invalidating every API key; without it (the local hosts) it is derived from the signing
// secret too.
type keyring struct {
	store     secrets.Store
	ref       string
	pepperRef string

	mu   sync.Mutex
	keys *keys
}

func (r *keyring) get(ctx context.Context) (*keys, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keys != nil {
		return r.keys, nil
	}
	secret, err := r.store.Get(ctx, r.ref)
	if err != nil {
		return nil, fmt.Errorf("auth: read signing secret: %w", err)
	}
	k, err := deriveKeys(secret)
	clear(secret)
	if err != nil {
		return nil, err
	}
	if r.pepperRef != "" {
		if k.pepper, err = r.pepperFrom(ctx); err != nil {
			return nil, err
		}
	}
	r.keys = k
	return k, nil
}

// pepperFrom derives the API-key pepper from the pepper secret.
func (r *keyring) pepperFrom(ctx context.Context) ([]byte, error) {
	secret, err := r.store.Get(ctx, r.pepperRef)
	if err != nil {
		return nil, fmt.Errorf("auth: read api-key pepper secret: %w", err)
	}
	defer clear(secret)
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("auth: api-key pepper secret has %d bytes, fewer than %d", len(secret), MinSecretLen)
	}
	pepper, err := hkdf.Key(sha256.New, secret, nil, labelPepper, 32)
	if err != nil {
		return nil, fmt.Errorf("auth: derive api-key pepper: %w", err)
	}
	return pepper, nil
}

// EnsureSigningSecret returns the ref of the signing secret called name, creating it with
// 256 random bits when the store has none: what the local host does on its first start.
// In the cloud the secret is created by the stack and its ARN given in JWT_SECRET_ARN.
func EnsureSigningSecret(ctx context.Context, store secrets.Store, name string) (string, error) {
	if _, err := store.Get(ctx, name); err == nil {
		return name, nil
	} else if !errors.Is(err, secrets.ErrNotFound) {
		return "", fmt.Errorf("auth: read signing secret: %w", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: generate signing secret: %w", err)
	}
	ref, err := store.Put(ctx, name, []byte(base64.RawURLEncoding.EncodeToString(b)), map[string]string{"purpose": "jwt-signing"})
	if err != nil {
		return "", fmt.Errorf("auth: store signing secret: %w", err)
	}
	return ref, nil
}
