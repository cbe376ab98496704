package awssm

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// Attempts of a Put while a secret of the same name is still being deleted: Secrets Manager
// deletes asynchronously even without a recovery window and asks callers that recreate a
// name at once to back off and retry. The waits double from putBackoff (0.25+0.5+1+2 s).
const (
	putAttempts = 5
	putBackoff  = 250 * time.Millisecond
)

// put writes value under the full name and returns the secret's ARN.
func (s *Store) put(ctx context.Context, name string, value []byte, tags map[string]string) (string, error) {
	var err error
	wait := putBackoff
	for attempt := 1; ; attempt++ {
		var arn string
		arn, err = s.createOrUpdate(ctx, name, value, tags)
		if err == nil {
			return arn, nil
		}
		if attempt == putAttempts {
			return "", err
		}
		switch {
		case isNotFound(err):
			// Deleted between CreateSecret and PutSecretValue: create it again.
		case isInvalidRequest(err):
			if serr := s.sleep(ctx, wait); serr != nil {
				return "", errors.Join(err, serr)
			}
			wait *= 2
		default:
			return "", err
		}
	}
}

func (s *Store) createOrUpdate(ctx context.Context, name string, value []byte, tags map[string]string) (string, error) {
	in := &secretsmanager.CreateSecretInput{Name: aws.String(name), Tags: toTags(tags)}
	in.SecretString, in.SecretBinary = encode(value)
	out, err := s.client.CreateSecret(ctx, in)
	if err == nil {
		return aws.ToString(out.ARN), nil
	}
	var exists *types.ResourceExistsException
	if !errors.As(err, &exists) {
		return "", err
	}
	pin := &secretsmanager.PutSecretValueInput{SecretId: aws.String(name)}
	pin.SecretString, pin.SecretBinary = encode(value)
	pout, err := s.client.PutSecretValue(ctx, pin)
	if err != nil {
		return "", err
	}
	return aws.ToString(pout.ARN), nil
}

// encode stores UTF-8 text as SecretString, which the console and CLI show, and anything
// else as SecretBinary; Get returns the same bytes either way.
func encode(value []byte) (*string, []byte) {
	if utf8.Valid(value) {
		return aws.String(string(value)), nil
	}
	return nil, value
}

func toTags(tags map[string]string) []types.Tag {
	if len(tags) == 0 {
		return nil
	}
	out := make([]types.Tag, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		out = append(out, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return out
}

func isNotFound(err error) bool {
	var e *types.ResourceNotFoundException
	return errors.As(err, &e)
}

func isInvalidRequest(err error) bool {
	var e *types.InvalidRequestException
	return errors.As(err, &e)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
