package awssm

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"
	"unicode/utf8"
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
	in := createSecretInput{Name: name, Tags: toTags(tags)}
	in.SecretString, in.SecretBinary = encode(value)
	var out arnOutput
	err := s.client.Call(ctx, "CreateSecret", in, &out)
	if err == nil {
		return out.ARN, nil
	}
	if !hasCode(err, "ResourceExistsException") {
		return "", err
	}
	pin := putSecretValueInput{SecretId: name}
	pin.SecretString, pin.SecretBinary = encode(value)
	if err := s.client.Call(ctx, "PutSecretValue", pin, &out); err != nil {
		return "", err
	}
	return out.ARN, nil
}

// encode stores UTF-8 text as SecretString, which the console and CLI show, and anything
// else as SecretBinary; Get returns the same bytes either way.
func encode(value []byte) (*string, []byte) {
	if utf8.Valid(value) {
		s := string(value)
		return &s, nil
	}
	return nil, value
}

func toTags(tags map[string]string) []tag {
	if len(tags) == 0 {
		return nil
	}
	out := make([]tag, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		out = append(out, tag{Key: k, Value: tags[k]})
	}
	return out
}

func isNotFound(err error) bool { return hasCode(err, "ResourceNotFoundException") }

func isInvalidRequest(err error) bool { return hasCode(err, "InvalidRequestException") }

// hasCode reports whether err is Secrets Manager's refusal with code.
func hasCode(err error, code string) bool {
	var api interface{ ErrorCode() string }
	return errors.As(err, &api) && api.ErrorCode() == code
}
