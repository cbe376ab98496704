// Package awssm is the secrets.Store over AWS Secrets Manager: one secret per name, created
// under a prefix fixed per deployment (SECRETS_PREFIX, e.g. "evalapi/dev/"), addressed by the
// ARN that Put returns and callers keep in DynamoDB.
//
// Values never appear in errors or logs: the store logs nothing, and New refuses a client
// whose log mode would print request or response bodies (see WithoutBodyLogging).
package awssm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/evalobs/evalapi/shared/secrets"
)

// Client is the part of the Secrets Manager API the store uses. *secretsmanager.Client
// implements it.
type Client interface {
	CreateSecret(ctx context.Context, in *secretsmanager.CreateSecretInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.CreateSecretOutput, error)
	PutSecretValue(ctx context.Context, in *secretsmanager.PutSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.PutSecretValueOutput, error)
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
	DeleteSecret(ctx context.Context, in *secretsmanager.DeleteSecretInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.DeleteSecretOutput, error)
}

// bodyLogModes are the log modes that would print secret values (GetSecretValue responses,
// CreateSecret and PutSecretValue requests).
const bodyLogModes = aws.LogRequestWithBody | aws.LogResponseWithBody |
	aws.LogRequestEventMessage | aws.LogResponseEventMessage

// WithoutBodyLogging is an option of secretsmanager.NewFromConfig that turns off the log
// modes printing bodies, whatever the shared aws.Config asks for; the others stay.
func WithoutBodyLogging(o *secretsmanager.Options) { o.ClientLogMode &^= bodyLogModes }

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
	if c, ok := client.(interface{ Options() secretsmanager.Options }); ok {
		if c.Options().ClientLogMode&bodyLogModes != 0 {
			return nil, errors.New("awssm: the client logs request or response bodies, which hold secret values; build it with awssm.WithoutBodyLogging")
		}
	}
	return &Store{client: client, prefix: prefix, sleep: sleep}, nil
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
	out, err := s.client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(ref)})
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
	_, err := s.client.DeleteSecret(ctx, &secretsmanager.DeleteSecretInput{
		SecretId:                   aws.String(ref),
		ForceDeleteWithoutRecovery: aws.Bool(true),
	})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("awssm: delete %q: %w", ref, err)
	}
	return nil
}
