package testenv

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/evalobs/evalapi/shared/awscall"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/dynamo"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

// Backend is one adapter of the store.Table port that tests run on.
type Backend struct {
	Name string
	// Open returns a fresh, empty table of the service's shape, released when t ends.
	Open func(t testing.TB) store.Table
}

// Backends are the embedded store (in memory) always, and DynamoDB Local and moto, which
// skip outside CI when their emulator is not running and fail under CI.
func Backends() []Backend {
	return []Backend{
		{"embedded", Embedded},
		{"DynamoDBLocal", func(t testing.TB) store.Table { return OpenDynamo(t, DynamoLocal(t)) }},
		{"moto", func(t testing.TB) store.Table { return OpenDynamo(t, Moto(t)) }},
	}
}

// EachTable runs fn in one subtest per backend, each on a fresh table.
func EachTable(t *testing.T, fn func(t *testing.T, tbl store.Table)) {
	t.Helper()
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { fn(t, b.Open(t)) })
	}
}

// Embedded returns a fresh in-memory embedded store, closed when t ends.
func Embedded(t testing.TB) store.Table {
	t.Helper()
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var tableSeq atomic.Int64

// OpenDynamo creates a table of the service's shape (store.TableSchema) at the emulator endpoint,
// under a name of its own, and deletes it when t ends. The table has no stream: no test reads
// an emulator's stream (the stream consumer is driven with records the tests build), and moto
// copies a table's whole stream with every action of a transaction, which made a test's
// transactions dearer the more it had written (shared/store/dynamo's conformance test creates
// the table with its stream and checks it).
func OpenDynamo(t testing.TB, endpoint string) store.Table {
	t.Helper()
	schema := store.TableSchema
	schema.StreamView = ""
	c := DynamoClient(endpoint)
	name := fmt.Sprintf("evalapi-test-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), tableSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := dynamo.CreateTable(ctx, c, name, schema); err != nil {
		t.Fatalf("create table %s at %s: %v", name, endpoint, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = dynamo.DeleteTable(ctx, c, name)
	})
	return dynamo.New(c, name)
}

// DynamoClient is the DynamoDB client the functions use (signed JSON-protocol requests),
// pointed at an emulator.
func DynamoClient(endpoint string) *awscall.JSON {
	s := awscall.NewSigner("us-east-1", credentials.NewStaticCredentialsProvider("test", "test", ""))
	return awscall.DynamoDB(s, endpoint)
}
