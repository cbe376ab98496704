package scorers

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/evalobs/evalapi/infra/table"
	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/dynamo"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

var testNow = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

// harness is the group mounted on a router over a table, with two organizations to act as;
// every response is checked against docs/openapi.yaml.
type harness struct {
	t          *testing.T
	tbl        store.Table
	rt         *httpapi.Router
	v          *apitest.V
	org, other authtest.Org
}

func newHarness(t *testing.T, tbl store.Table) *harness {
	t.Helper()
	if tbl == nil {
		tbl = embeddedTable(t)
	}
	env := authtest.New(t, tbl, auth.Config{})
	rt := httpapi.NewRouter(slog.New(slog.DiscardHandler))
	Register(rt, Deps{Table: tbl, Authenticate: env.Service.Authenticate, Now: func() time.Time { return testNow }})
	return &harness{t: t, tbl: tbl, rt: rt, v: apitest.Validator(t), org: env.Org(t), other: env.Org(t)}
}

// do sends a request as who (nil: without credentials) and returns the status and body. It
// is safe to call from several goroutines.
func (h *harness) do(who *authtest.User, method, path, body string) (int, string) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if who != nil {
		req.Header = who.Header()
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.rt.ServeHTTP(rec, req)
	h.v.CheckRecorder(h.t, req, rec)
	return rec.Code, rec.Body.String()
}

// scorer creates a scorer of who's organization from a create body and returns its id.
func (h *harness) scorer(who *authtest.User, body string) string {
	h.t.Helper()
	code, resp := h.do(who, "POST", "/v2/scorers", body)
	var s struct{ ID string }
	if err := json.Unmarshal([]byte(resp), &s); code != http.StatusOK || err != nil {
		h.t.Fatalf("create scorer: %d %s", code, resp)
	}
	return s.ID
}

func embeddedTable(t *testing.T) store.Table {
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// eachTable runs fn on the embedded store, and on DynamoDB Local and moto when the test
// environment has them (testenv skips them otherwise, and fails under CI).
func eachTable(t *testing.T, fn func(t *testing.T, tbl store.Table)) {
	t.Run("embedded", func(t *testing.T) { fn(t, embeddedTable(t)) })
	t.Run("DynamoDBLocal", func(t *testing.T) { fn(t, dynamoTable(t, testenv.DynamoLocal(t))) })
	t.Run("moto", func(t *testing.T) { fn(t, dynamoTable(t, testenv.Moto(t))) })
}

var tableSeq atomic.Int64

func dynamoTable(t *testing.T, endpoint string) store.Table {
	c := dynamodb.NewFromConfig(aws.Config{Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")},
		func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) })
	name := fmt.Sprintf("evalapi-scorers-test-%d-%d-%d", os.Getpid(), time.Now().UnixNano(), tableSeq.Add(1))
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
