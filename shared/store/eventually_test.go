package store_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/evalobs/evalapi/infra/table"
	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/dynamo"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

// forEachIdentityBackend runs fn on a fresh table of every adapter: embedded always, DynamoDB Local
// and moto when `make test` runs them (skipped otherwise, failed under CI).
func forEachIdentityBackend(t *testing.T, fn func(t *testing.T, tbl store.Table)) {
	backends := []struct {
		name string
		open func(t *testing.T) store.Table
	}{
		{"embedded", func(t *testing.T) store.Table {
			db, err := embedded.OpenMemory()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		}},
		{"DynamoDBLocal", func(t *testing.T) store.Table { return openIdentityDynamo(t, testenv.DynamoLocal(t)) }},
		{"moto", func(t *testing.T) store.Table { return openIdentityDynamo(t, testenv.Moto(t)) }},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b.open(t)) })
	}
}

var identityTableSeq atomic.Int64

func openIdentityDynamo(t *testing.T, endpoint string) store.Table {
	t.Helper()
	c := dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	}, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) })
	name := fmt.Sprintf("identity-test-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), identityTableSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := dynamo.CreateTable(ctx, c, name, table.Table); err != nil {
		t.Fatalf("create table on %s: %v", endpoint, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return dynamo.New(c, name)
}

// eventuallyIdentity retries a read of a GSI (eventually consistent on AWS) for a few seconds.
func eventuallyIdentity(t *testing.T, what string, ok func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		done, err := ok()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen within 5 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
