// Package secrets is the port through which the service keeps credentials (integration API
// keys, signing keys) out of DynamoDB: the table holds only the reference that Put returns.
//
// Adapters: awssm (AWS Secrets Manager, in the cloud), localfile (an encrypted file, for the
// local host) and Memory (for tests). Cached wraps any of them with a per-process cache.
//
// No error, log line or String form produced here carries a secret value; wrap values that
// travel further in a Value so that fmt, encoding/json and log/slog print "[redacted]".
package secrets

import (
	"context"
	"errors"
	"fmt"
)

// Store keeps named secret values.
//
// Put creates the secret or, when the name exists, writes a new version of it; the same name
// always yields the same ref until the secret is deleted. The ref is what callers persist (the
// ARN in the cloud, the name locally) and pass to Get and Delete.
// Get of a ref that does not exist returns an error wrapping ErrNotFound.
// Delete of a ref that does not exist succeeds.
//
// Implementations are safe for concurrent use and never include a value in an error.
type Store interface {
	Put(ctx context.Context, name string, value []byte, tags map[string]string) (ref string, err error)
	Get(ctx context.Context, ref string) ([]byte, error)
	Delete(ctx context.Context, ref string) error
}

var (
	// ErrNotFound is wrapped by Get when the ref names no secret.
	ErrNotFound = errors.New("secret not found")
	// ErrInvalidName is wrapped by Put when a name breaks the rules of CheckName.
	ErrInvalidName = errors.New("invalid secret name")
	// ErrInvalidValue is wrapped by Put when a value is empty or longer than MaxValueLen.
	ErrInvalidValue = errors.New("invalid secret value")
)

// Limits of AWS Secrets Manager, enforced by every adapter so that the local hosts reject
// what the cloud would.
const (
	MaxNameLen  = 512
	MaxValueLen = 65536
)

// CheckName reports whether name is a valid Secrets Manager secret name: 1 to MaxNameLen
// ASCII letters, digits and any of "/_+=.@-". The error wraps ErrInvalidName.
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty", ErrInvalidName)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("%w: %d bytes, more than %d", ErrInvalidName, len(name), MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			// The name is not a secret, but quoting it could still flood a log line; the
			// offset is what a caller needs to fix it.
			return fmt.Errorf("%w: character %q at offset %d is not allowed", ErrInvalidName, name[i], i)
		}
	}
	return nil
}

func nameByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '/', '_', '+', '=', '.', '@', '-':
		return true
	}
	return false
}

// CheckValue reports whether value can be stored: 1 to MaxValueLen bytes. The error wraps
// ErrInvalidValue and, like every error of this package, says nothing of the content.
func CheckValue(value []byte) error {
	switch {
	case len(value) == 0:
		return fmt.Errorf("%w: empty", ErrInvalidValue)
	case len(value) > MaxValueLen:
		return fmt.Errorf("%w: %d bytes, more than %d", ErrInvalidValue, len(value), MaxValueLen)
	}
	return nil
}
