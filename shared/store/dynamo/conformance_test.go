package dynamo_test

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

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/dynamo"
	"github.com/evalobs/evalapi/shared/store/storetest"
)

func TestConformanceDynamoDBLocal(t *testing.T) {
	storetest.Run(t, openOnce(t, testenv.DynamoLocal(t)))
}

func TestConformanceMoto(t *testing.T) {
	storetest.Run(t, openOnce(t, testenv.Moto(t)))
}

// TestCreateTableIdempotent creates the same table twice on each backend: the local host
// calls CreateTable on every start.
func TestCreateTableIdempotent(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			// The SDK's client reads what the adapter's client created: a check of the table
			// by another implementation of the protocol.
			c := client(b.endpoint)
			name := tableName()
			for range 2 {
				if err := dynamo.CreateTable(t.Context(), testenv.DynamoClient(b.endpoint), name, store.TableSchema); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() { dropTable(b.endpoint, name) })
			out, err := c.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(out.Table.GlobalSecondaryIndexes); got != len(store.TableSchema.Indexes) {
				t.Errorf("indexes = %d, want %d", got, len(store.TableSchema.Indexes))
			}
			if s := out.Table.StreamSpecification; s == nil || !aws.ToBool(s.StreamEnabled) || string(s.StreamViewType) != store.TableSchema.StreamView {
				t.Errorf("stream = %+v, want %s", s, store.TableSchema.StreamView)
			}
			ttl, err := c.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
			if err != nil {
				t.Fatal(err)
			}
			if got := aws.ToString(ttl.TimeToLiveDescription.AttributeName); got != store.TableSchema.TTLAttribute {
				t.Errorf("TTL attribute = %q, want %q", got, store.TableSchema.TTLAttribute)
			}
		})
	}
}

// TestBatchWriteSplits writes more than one request's worth on each backend; moto would take
// 26 in one request, so only the split keeps DynamoDB's limit honest.
func TestBatchWriteSplits(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			tbl := openOnce(t, b.endpoint)(t)
			var puts []store.Item
			var keys []store.Key
			for i := range 130 {
				it := store.Item{"PK": "SPLIT", "SK": store.Pad(int64(i), 4), "n": int64(i)}
				puts = append(puts, it)
				keys = append(keys, it.Key())
			}
			if err := tbl.BatchWrite(t.Context(), puts, nil); err != nil {
				t.Fatal(err)
			}
			got, err := tbl.BatchGet(t.Context(), keys, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(keys) {
				t.Fatalf("BatchGet returned %d items, want %d", len(got), len(keys))
			}
			if err := tbl.BatchWrite(t.Context(), nil, keys); err != nil {
				t.Fatal(err)
			}
			all, err := store.QueryAll(t.Context(), tbl, store.Query{PK: "SPLIT", Consistent: true})
			if err != nil || len(all) != 0 {
				t.Fatalf("after deleting all: %d items, err %v", len(all), err)
			}
		})
	}
}

type backend struct{ name, endpoint string }

func backends(t *testing.T) []backend {
	return []backend{
		{"DynamoDBLocal", testenv.DynamoLocal(t)},
		{"moto", testenv.Moto(t)},
	}
}

// openOnce creates one table with a unique name on the endpoint and returns an open that
// hands the same adapter to every test of the suite (the suite keeps to its own partitions).
func openOnce(t *testing.T, endpoint string) func(*testing.T) store.Table {
	c := testenv.DynamoClient(endpoint)
	name := tableName()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := dynamo.CreateTable(ctx, c, name, store.TableSchema); err != nil {
		t.Fatalf("create table on %s: %v", endpoint, err)
	}
	t.Cleanup(func() { dropTable(endpoint, name) })
	tbl := dynamo.New(c, name)
	return func(*testing.T) store.Table { return tbl }
}

func client(endpoint string) *dynamodb.Client {
	return dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	}, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	})
}

var tables atomic.Int64

func tableName() string {
	return fmt.Sprintf("evalapi-test-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), tables.Add(1))
}

// dropTable removes a test's table so that a long-running emulator does not collect them.
func dropTable(endpoint, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = dynamo.DeleteTable(ctx, testenv.DynamoClient(endpoint), name)
}
