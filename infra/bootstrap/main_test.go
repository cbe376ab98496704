package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/awscall"
	"github.com/evalobs/evalapi/shared/secrets/awssm"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/dynamo"
)

func TestRunNeedsTheStackNames(t *testing.T) {
	var stderr bytes.Buffer
	err := run(t.Context(), nil, func(string) string { return "" }, &bytes.Buffer{}, &stderr)
	if err == nil {
		t.Fatal("run without -table, -jwt-secret-arn and -secrets-prefix succeeded")
	}
	for _, name := range []string{"TABLE_NAME", "JWT_SECRET_ARN", "SECRETS_PREFIX"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}

// TestRunAgainstEmulators bootstraps a "deployed" table on DynamoDB Local whose signing
// secret lives in moto, as the stack's would: once it prints the admin and key, the second
// time it changes nothing.
func TestRunAgainstEmulators(t *testing.T) {
	ddbEndpoint, smEndpoint := testenv.DynamoLocal(t), testenv.Moto(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	awsCfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")}
	ddb := testenv.DynamoClient(ddbEndpoint)
	sm := secretsmanager.NewFromConfig(awsCfg, func(o *secretsmanager.Options) { o.BaseEndpoint = aws.String(smEndpoint) })

	suffix := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	tableName := "bootstrap-test-" + suffix
	if err := dynamo.CreateTable(ctx, ddb, tableName, store.TableSchema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = dynamo.DeleteTable(context.Background(), ddb, tableName)
	})
	prefix := "bootstrap-test/" + suffix + "/"
	sec, err := sm.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(prefix + "jwt"),
		SecretString: aws.String("0123456789abcdef0123456789abcdef0123456789abcdef")})
	if err != nil {
		t.Fatal(err)
	}
	pepper, err := sm.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(prefix + "pepper"),
		SecretString: aws.String("fedcba9876543210fedcba9876543210fedcba9876543210")})
	if err != nil {
		t.Fatal(err)
	}

	env := map[string]string{
		"DYNAMODB_ENDPOINT": ddbEndpoint, "SECRETSMANAGER_ENDPOINT": smEndpoint,
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
		"ADMIN_EMAIL": "ops@example.com",
	}
	args := []string{"-table", tableName, "-jwt-secret-arn", aws.ToString(sec.ARN), "-api-key-pepper-arn", aws.ToString(pepper.ARN),
		"-secrets-prefix", prefix, "-region", "us-east-1"}
	var out, stderr bytes.Buffer
	if err := run(ctx, args, func(k string) string { return env[k] }, &out, &stderr); err != nil {
		t.Fatalf("first run: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{"ops@example.com", "API key   evo_", "password  "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("first run printed %q, want it to contain %q", out.String(), want)
		}
	}
	// The key authenticates with the Lambda functions' configuration of the same stack.
	key := regexp.MustCompile(`evo_\S+`).FindString(out.String())
	cfg, err := app.ReadConfig(app.Cloud, func(k string) string {
		return map[string]string{"TABLE_NAME": tableName, "JWT_SECRET_ARN": aws.ToString(sec.ARN),
			"API_KEY_PEPPER_ARN": aws.ToString(pepper.ARN), "SECRETS_PREFIX": prefix}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	awssmStore, err := awssm.New(awscall.SecretsManager(awscall.NewSigner("us-east-1", awsCfg.Credentials), smEndpoint), prefix)
	if err != nil {
		t.Fatal(err)
	}
	d, err := app.NewDeps(cfg, slog.New(slog.DiscardHandler), dynamo.New(ddb, tableName), awssmStore)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/v2/current_user", nil)
	req.Header.Set("Service-API-Key", key)
	rec := httptest.NewRecorder()
	app.NewRouter(d, groups.Identity).ServeHTTP(rec, req)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "ops@example.com") {
		t.Errorf("GET /v2/current_user with the bootstrap key: %d %s", rec.Code, rec.Body)
	}
	d.Auth.Wait()

	out.Reset()
	if err := run(ctx, args, func(k string) string { return env[k] }, &out, &stderr); err != nil {
		t.Fatalf("second run: %v\n%s", err, stderr.String())
	}
	if out.Len() != 0 {
		t.Errorf("second run printed %q, want nothing (the organization exists)", out.String())
	}
	if strings.Contains(stderr.String(), "evo_") {
		t.Errorf("the log carries the API key: %s", stderr.String())
	}
}
