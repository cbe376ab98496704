// Package awssm is the secrets.Store over AWS Secrets Manager: one secret per name, created
// under a prefix fixed per deployment (SECRETS_PREFIX, e.g. "evalapi/dev/"), addressed by the
// ARN that Put returns and callers keep in DynamoDB.
//
// Values never appear in errors or logs: the store and its client (awscall) log nothing,
// and an error carries the service's code, never a body.
package awssm

import (
	"context"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/awscall"
	"github.com/evalobs/evalapi/shared/secrets"
)

// Client sends one operation of Secrets Manager's JSON protocol: in encoded as the request,
// the answer decoded into out, a refusal an error with the service's code (ErrorCode).
// *awscall.JSON implements it; it logs nothing, so no value can reach a log through it.
type Client interface {
	Call(ctx context.Context, op string, in, out any) error
}

// The inputs and outputs of the operations the store makes, in the wire's names.
type (
	tag struct {
		Key   string
		Value string
	}
	createSecretInput struct {
		Name         string
		SecretString *string `json:",omitempty"`
		SecretBinary []byte  `json:",omitempty"`
		Tags         []tag   `json:",omitempty"`
	}
	putSecretValueInput struct {
		SecretId     string
		SecretString *string `json:",omitempty"`
		SecretBinary []byte  `json:",omitempty"`
	}
	secretIDInput struct {
		SecretId                   string
		ForceDeleteWithoutRecovery bool `json:",omitempty"`
	}
	arnOutput struct {
		ARN string
	}
	valueOutput struct {
		SecretString *string
		SecretBinary []byte
	}
)

// Store is a secrets.Store over Secrets Manager. Refs are secret ARNs.
type Store struct {
	client Client
	prefix string
	// sleep waits between the attempts of a Put that meets a secret still being deleted.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ secrets.Store = (*Store)(nil)

// New returns a store creating secrets named prefix+name. The prefix may be empty; it must
// be made of the characters secrets.CheckName allows.
func New(client Client, prefix string) (*Store, error) {
	if prefix != "" {
		if err := secrets.CheckName(prefix); err != nil {
			return nil, fmt.Errorf("awssm: prefix: %w", err)
		}
	}
	return &Store{client: client, prefix: prefix, sleep: awscall.Sleep}, nil
}

// Put implements secrets.Store: CreateSecret, or PutSecretValue when the secret exists, which
// makes a new version and moves the AWSCURRENT label to it. Tags are set at creation only.
func (s *Store) Put(ctx context.Context, name string, value []byte, tags map[string]string) (string, error) {
	full := s.prefix + name
	if err := secrets.CheckName(name); err != nil {
		return "", fmt.Errorf("awssm: put: %w", err)
	}
	if err := secrets.CheckName(full); err != nil { // the prefix counts against the length
		return "", fmt.Errorf("awssm: put %q: %w", full, err)
	}
	if err := secrets.CheckValue(value); err != nil {
		return "", fmt.Errorf("awssm: put %q: %w", full, err)
	}
	arn, err := s.put(ctx, full, value, tags)
	if err != nil {
		return "", fmt.Errorf("awssm: put %q: %w", full, err)
	}
	return arn, nil
}

// Get implements secrets.Store. It reads the AWSCURRENT version.
func (s *Store) Get(ctx context.Context, ref string) ([]byte, error) {
	if ref == "" {
		return nil, fmt.Errorf("awssm: get %q: %w", ref, secrets.ErrNotFound)
	}
	var out valueOutput
	err := s.client.Call(ctx, "GetSecretValue", secretIDInput{SecretId: ref}, &out)
	switch {
	case isNotFound(err), isInvalidRequest(err):
		// InvalidRequest is what GetSecretValue answers for a secret scheduled for
		// deletion: gone, as far as callers are concerned.
		return nil, fmt.Errorf("awssm: get %q: %w: %w", ref, secrets.ErrNotFound, err)
	case err != nil:
		return nil, fmt.Errorf("awssm: get %q: %w", ref, err)
	case out.SecretBinary != nil:
		return out.SecretBinary, nil
	case out.SecretString != nil:
		return []byte(*out.SecretString), nil
	}
	return nil, fmt.Errorf("awssm: get %q: the current version has neither SecretString nor SecretBinary", ref)
}

// Delete implements secrets.Store: DeleteSecret without a recovery window, because a caller
// deleting a credential wants it gone, and the name free for a new one.
func (s *Store) Delete(ctx context.Context, ref string) error {
	if ref == "" {
		return nil
	}
	err := s.client.Call(ctx, "DeleteSecret", secretIDInput{SecretId: ref, ForceDeleteWithoutRecovery: true}, nil)
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("awssm: delete %q: %w", ref, err)
	}
	return nil
}
