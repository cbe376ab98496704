package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// API keys read <prefix>_<key id>_<secret>: the prefix lets scanners recognise a leaked key,
// the key id (a UUID) is the one DynamoDB key to read, and the secret is 256 random bits in
// lower-case base32. Only HMAC-SHA-256(pepper, key id ":" secret) is stored: the secret has
// full entropy, so a fast keyed hash suffices, and binding the id stops a digest from being
// moved to another key's record.
const (
	APIKeyPrefix    = "evo"
	apiKeySecretLen = 52 // 32 bytes in unpadded base32
)

var keyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// apiKey is a presented or generated API key, split.
type apiKey struct {
	id     string
	secret string
}

func newAPIKey() (apiKey, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return apiKey{}, fmt.Errorf("auth: generate api key: %w", err)
	}
	return apiKey{id: uuid.NewString(), secret: keyEncoding.EncodeToString(b)}, nil
}

func (k apiKey) String() string { return APIKeyPrefix + "_" + k.id + "_" + k.secret }

// truncated is what lists show of a key: enough to tell keys apart, nothing of the secret.
func (k apiKey) truncated() string { return APIKeyPrefix + "_" + k.id[:8] + "..." }

// parseAPIKey splits a presented key; ok is false for anything not shaped like our keys, so
// garbage costs no store read.
func parseAPIKey(s string) (apiKey, bool) {
	rest, ok := strings.CutPrefix(s, APIKeyPrefix+"_")
	if !ok {
		return apiKey{}, false
	}
	id, secret, ok := strings.Cut(rest, "_")
	if !ok || len(secret) != apiKeySecretLen {
		return apiKey{}, false
	}
	u, err := uuid.Parse(id)
	if err != nil || u.String() != id {
		return apiKey{}, false
	}
	if _, err := keyEncoding.DecodeString(secret); err != nil {
		return apiKey{}, false
	}
	return apiKey{id: id, secret: secret}, true
}

// digest is the stored form of the key's secret.
func (k apiKey) digest(pepper []byte) [sha256.Size]byte {
	m := hmac.New(sha256.New, pepper)
	m.Write([]byte(k.id))
	m.Write([]byte{':'})
	m.Write([]byte(k.secret))
	var out [sha256.Size]byte
	m.Sum(out[:0])
	return out
}

func encodeDigest(d [sha256.Size]byte) string { return hex.EncodeToString(d[:]) }

func decodeDigest(s string) ([sha256.Size]byte, bool) {
	var out [sha256.Size]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != sha256.Size {
		return out, false
	}
	copy(out[:], b)
	return out, true
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
