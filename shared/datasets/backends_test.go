package datasets_test

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
)

// TestOnDynamoDB runs the main flows of the group on DynamoDB Local and moto: the handler
// tests above run on the embedded store, whose semantics the store's conformance suite ties
// to DynamoDB's; this checks the group's own reads (consistent reads, the groups index) there.
func TestOnDynamoDB(t *testing.T) {
	for _, b := range []struct {
		name     string
		endpoint func(testing.TB) string
	}{{"DynamoDBLocal", testenv.DynamoLocal}, {"moto", testenv.Moto}} {
		t.Run(b.name, func(t *testing.T) {
			tbl := openDynamo(t, b.endpoint(t))
			flows := []struct {
				name string
				run  func(*testing.T, *harness)
			}{
				{"pages", runContentPages},
				{"versions", runContentVersions},
				{"bulk delete mix", runBulkDeleteMix},
			}
			for _, f := range flows {
				t.Run(f.name, func(t *testing.T) { f.run(t, newHarness(t, harnessOptions{table: tbl})) })
			}
		})
	}
}

var tableSeq atomic.Int64

func openDynamo(t *testing.T, endpoint string) store.Table {
	t.Helper()
	c := dynamodb.NewFromConfig(aws.Config{Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")},
		func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) })
	name := fmt.Sprintf("datasets-handlers-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), tableSeq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := dynamo.CreateTable(ctx, c, name, table.Table); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return dynamo.New(c, name)
}
