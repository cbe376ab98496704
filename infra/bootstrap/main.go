// Command bootstrap creates the first organization, its admin and an API key in a deployed
// stack's table, and prints them once: `make bootstrap` for the cloud, what `make run` does
// on its first start. It runs on an operator's machine with the operator's AWS credentials
// (profiles, SSO: the SDK's default chain), never in Lambda.
//
//	go run ./infra/bootstrap -table evalapi-dev-Table-XYZ -jwt-secret-arn arn:... -secrets-prefix evalapi/dev/
//
// Each flag falls back to its environment variable (TABLE_NAME, JWT_SECRET_ARN,
// API_KEY_PEPPER_ARN, SECRETS_PREFIX, AWS_REGION); ADMIN_EMAIL and ADMIN_PASSWORD choose the admin's credentials.
// DYNAMODB_ENDPOINT and SECRETSMANAGER_ENDPOINT point it at emulators (the tests do).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/local"
	"github.com/evalobs/evalapi/shared/secrets/awssm"
	"github.com/evalobs/evalapi/shared/store/dynamo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bootstrap:", err)
		os.Exit(1)
	}
}

// run parses args, connects to the stack's table and secrets, and bootstraps.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bootstrap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	table := fs.String("table", getenv("TABLE_NAME"), "the stack's table (output TableName)")
	jwtRef := fs.String("jwt-secret-arn", getenv("JWT_SECRET_ARN"), "the stack's signing secret (output JwtSigningSecretArn)")
	pepperRef := fs.String("api-key-pepper-arn", getenv("API_KEY_PEPPER_ARN"), "the stack's API-key pepper secret (output ApiKeyPepperSecretArn)")
	prefix := fs.String("secrets-prefix", getenv("SECRETS_PREFIX"), "the stack's SecretsPrefix parameter (output SecretsPrefix)")
	region := fs.String("region", getenv("AWS_REGION"), "the stack's region")
	if err := fs.Parse(args); err != nil {
		return err
	}
	env := map[string]string{
		"TABLE_NAME": *table, "JWT_SECRET_ARN": *jwtRef, "API_KEY_PEPPER_ARN": *pepperRef, "SECRETS_PREFIX": *prefix,
		"DYNAMODB_ENDPOINT": getenv("DYNAMODB_ENDPOINT"), "SECRETSMANAGER_ENDPOINT": getenv("SECRETSMANAGER_ENDPOINT"),
	}
	cfg, err := app.ReadConfig(app.Cloud, func(k string) string { return env[k] })
	if err != nil {
		return err
	}
	var opts []func(*config.LoadOptions) error
	if *region != "" {
		opts = append(opts, config.WithRegion(*region))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return fmt.Errorf("load AWS configuration: %w", err)
	}
	c := app.NewClients(awsCfg, cfg)
	sm, err := awssm.New(c.SecretsManager, cfg.SecretsPrefix)
	if err != nil {
		return err
	}
	log := app.JSONLogger(stderr, slog.LevelInfo)
	d, err := app.NewDeps(cfg, log, dynamo.New(c.DynamoDB, cfg.TableName), sm)
	if err != nil {
		return err
	}
	return local.Bootstrap(ctx, d, getenv, stdout)
}
