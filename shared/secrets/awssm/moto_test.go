package awssm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go/logging"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/secretstest"
)

// allLogModes is every SDK log mode: the tests turn all of them on, to show that what
// WithoutBodyLogging leaves holds no value.
const allLogModes = aws.LogSigning | aws.LogRetries | aws.LogRequest | aws.LogRequestWithBody |
	aws.LogResponse | aws.LogResponseWithBody | aws.LogRequestEventMessage | aws.LogResponseEventMessage

// syncBuffer collects SDK log lines, written from the suite's concurrent goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Logf(_ logging.Classification, format string, v ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprintf(&b.buf, format+"\n", v...)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// motoClient returns a client of the moto server that logs everything it may into logs.
func motoClient(t *testing.T, logs logging.Logger, opts ...func(*secretsmanager.Options)) *secretsmanager.Client {
	t.Helper()
	endpoint := testenv.Moto(t)
	cfg := aws.Config{
		Region:        "us-east-1",
		Credentials:   credentials.NewStaticCredentialsProvider("AKIDMOTOTEST", "moto-test-secret", ""),
		Logger:        logs,
		ClientLogMode: allLogModes,
	}
	opts = append([]func(*secretsmanager.Options){func(o *secretsmanager.Options) { o.BaseEndpoint = aws.String(endpoint) }}, opts...)
	return secretsmanager.NewFromConfig(cfg, opts...)
}

func TestMoto(t *testing.T) {
	logs := &syncBuffer{}
	client := motoClient(t, logs, WithoutBodyLogging)
	store, err := New(client, testPrefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("Conformance", func(t *testing.T) {
		secretstest.Run(t, func(*testing.T) secrets.Store { return store })
	})
	t.Run("CachedConformance", func(t *testing.T) {
		secretstest.Run(t, func(*testing.T) secrets.Store { return secrets.Cached(store, time.Minute) })
	})

	t.Run("VersionsAndTags", func(t *testing.T) {
		ctx := t.Context()
		name := secretstest.Name(t, "versions")
		ref, err := store.Put(ctx, name, []byte("one"), map[string]string{"org": "o1"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Delete(context.Background(), ref) })
		if _, err := store.Put(ctx, name, []byte("two"), nil); err != nil {
			t.Fatal(err)
		}
		prev, err := client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(ref), VersionStage: aws.String("AWSPREVIOUS")})
		if err != nil || aws.ToString(prev.SecretString) != "one" {
			t.Errorf("AWSPREVIOUS = %v; want the first version", err)
		}
		desc, err := client.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String(ref)})
		if err != nil {
			t.Fatal(err)
		}
		if got := aws.ToString(desc.Name); got != testPrefix+name {
			t.Errorf("Name = %q, want %q", got, testPrefix+name)
		}
		if len(desc.Tags) != 1 || aws.ToString(desc.Tags[0].Key) != "org" || aws.ToString(desc.Tags[0].Value) != "o1" {
			t.Errorf("Tags = %v", desc.Tags)
		}
	})

	t.Run("CanaryNotInLogs", func(t *testing.T) {
		canary := exercise(t, store)
		out := logs.String()
		if !strings.Contains(out, "X-Amz-Target: secretsmanager.GetSecretValue") {
			t.Fatalf("the SDK logged no request line: the test would prove nothing\n%.2000s", out)
		}
		secretstest.NoLeak(t, "SDK log", out, canary)
	})
}

// The leak check above is only worth something if it catches a leak: with body logging on
// (which New refuses), the same calls put the canary in the log.
func TestMotoBodyLoggingWouldLeak(t *testing.T) {
	logs := &syncBuffer{}
	store := &Store{client: motoClient(t, logs), prefix: testPrefix, sleep: sleep}
	canary := exercise(t, store)
	if !strings.Contains(logs.String(), string(canary)) {
		t.Fatal("with body logging on, the canary should be in the log; the leak check cannot see it")
	}
}

// exercise puts a canary, reads it back, deletes it and takes error paths, checking every
// error for the canary; it returns the canary.
func exercise(t *testing.T, store *Store) []byte {
	t.Helper()
	ctx := t.Context()
	canary := secretstest.Canary(t)
	ref, err := store.Put(ctx, secretstest.Name(t, "canary"), canary, map[string]string{"purpose": "canary"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := store.Get(ctx, ref); err != nil || !bytes.Equal(got, canary) {
		t.Fatalf("Get = %v", err)
	}
	if err := store.Delete(ctx, ref); err != nil {
		t.Fatal(err)
	}
	_, err1 := store.Get(ctx, ref)
	_, err2 := store.Put(ctx, "bad name", canary, nil)
	for i, err := range []error{err1, err2} {
		if err == nil {
			t.Fatalf("error path %d succeeded", i)
		}
		secretstest.NoLeak(t, fmt.Sprintf("error %d", i), err.Error(), canary)
	}
	if !errors.Is(err1, secrets.ErrNotFound) {
		t.Errorf("Get after Delete = %v, want ErrNotFound", err1)
	}
	return canary
}
