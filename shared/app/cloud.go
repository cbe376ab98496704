package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/awssm"
	"github.com/evalobs/evalapi/shared/store/dynamo"
)

// SecretsCacheTTL is how long a Lambda instance keeps a secret value it read: Secrets
// Manager is called once per secret and instance every few minutes, not per request, and
// a rotated credential is picked up within this time.
const SecretsCacheTTL = 5 * time.Minute

// NewCloud builds the dependencies of a Lambda function: DynamoDB and Secrets Manager
// clients over one AWS configuration. It makes no network call: credentials come from the
// environment Lambda sets, and secrets (the token signing key included) are read lazily on
// first use, keeping them out of the init phase.
func NewCloud(ctx context.Context, cfg Config, log *slog.Logger) (Deps, error) {
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return Deps{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	c := NewClients(awsCfg, cfg)
	sm, err := awssm.New(c.SecretsManager, cfg.SecretsPrefix)
	if err != nil {
		return Deps{}, err
	}
	return NewDeps(cfg, log, dynamo.New(c.DynamoDB, cfg.TableName), secrets.Cached(sm, SecretsCacheTTL))
}

// Clients are the AWS service clients of one process.
type Clients struct {
	DynamoDB       *dynamodb.Client
	SecretsManager *secretsmanager.Client
}

// NewClients builds the clients of awsCfg, pointed at the configured emulators if any.
// The Secrets Manager client never logs bodies, which hold secret values.
func NewClients(awsCfg aws.Config, cfg Config) Clients {
	return Clients{
		DynamoDB: dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
			if cfg.DynamoDBEndpoint != "" {
				o.BaseEndpoint = aws.String(cfg.DynamoDBEndpoint)
			}
		}),
		SecretsManager: secretsmanager.NewFromConfig(awsCfg, awssm.WithoutBodyLogging, func(o *secretsmanager.Options) {
			if cfg.SecretsManagerEndpoint != "" {
				o.BaseEndpoint = aws.String(cfg.SecretsManagerEndpoint)
			}
		}),
	}
}
