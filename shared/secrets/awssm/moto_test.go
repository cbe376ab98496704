package awssm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/awscall"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/secretstest"
)

// motoClients returns the functions' client of the moto server, and the SDK's, which the
// tests use to look at what the store did through another implementation of the protocol.
func motoClients(t *testing.T) (*awscall.JSON, *secretsmanager.Client) {
	t.Helper()
	endpoint := testenv.Moto(t)
	creds := credentials.NewStaticCredentialsProvider("AKIDMOTOTEST", "moto-test-secret", "")
	sdk := secretsmanager.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: creds},
		func(o *secretsmanager.Options) { o.BaseEndpoint = aws.String(endpoint) })
	return awscall.SecretsManager(awscall.NewSigner("us-east-1", creds), endpoint), sdk
}

func TestMoto(t *testing.T) {
	fn, client := motoClients(t)
	store, err := New(fn, testPrefix)
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

	// The client logs nothing; its errors are what could carry a value.
	t.Run("CanaryNotInErrors", func(t *testing.T) { exercise(t, store) })
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
