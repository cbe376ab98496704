package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/evalobs/evalapi/shared/awscall"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/queue/sqsqueue"
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
func NewCloud(ctx context.Context, cfg Config, log *slog.Logger, getenv func(string) string) (Deps, error) {
	awsCfg, err := LambdaAWSConfig(getenv)
	if err != nil {
		return Deps{}, err
	}
	c := NewClients(awsCfg, cfg)
	sm, err := awssm.New(c.SecretsManager, cfg.SecretsPrefix)
	if err != nil {
		return Deps{}, err
	}
	d, err := NewDeps(cfg, log, dynamo.New(c.DynamoDB, cfg.TableName), secrets.Cached(sm, SecretsCacheTTL))
	if err != nil {
		return Deps{}, err
	}
	if cfg.PayloadBucket != "" {
		d.Payloads = &payload.S3{Bucket: cfg.PayloadBucket, Region: awsCfg.Region, Credentials: awsCfg.Credentials,
			Endpoint: cfg.S3Endpoint}
	}
	if cfg.ExperimentQueueURL != "" {
		sender, err := sqsqueue.NewSigned(awsCfg, cfg.ExperimentQueueURL)
		if err != nil {
			return Deps{}, err
		}
		d.ExperimentQueue = exprun.SenderQueue(sender)
	}
	return d, nil
}

// LambdaAWSConfig is the AWS configuration of a Lambda function, read from the variables the
// Lambda runtime always sets for the function's role. It is built by hand rather than by
// config.LoadDefaultConfig because that brings the shared-config file parser and the SSO,
// STS and instance-metadata clients into every bootstrap (about 1.5 MB of the 10 MB budget)
// for credential sources a Lambda function never uses. The service clients fill in their
// own defaults (standard retryer, HTTP client) from an otherwise empty configuration.
func LambdaAWSConfig(getenv func(string) string) (aws.Config, error) {
	region := getenv("AWS_REGION")
	id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	var missing []string
	for _, v := range []struct{ name, value string }{
		{"AWS_REGION", region}, {"AWS_ACCESS_KEY_ID", id}, {"AWS_SECRET_ACCESS_KEY", secret},
	} {
		if v.value == "" {
			missing = append(missing, v.name)
		}
	}
	if len(missing) > 0 {
		return aws.Config{}, fmt.Errorf("AWS configuration: missing environment variable(s) %s (the Lambda runtime sets them)",
			strings.Join(missing, ", "))
	}
	creds := credentials.NewStaticCredentialsProvider(id, secret, getenv("AWS_SESSION_TOKEN"))
	return aws.Config{Region: region, Credentials: aws.NewCredentialsCache(creds)}, nil
}

// Clients are the AWS service clients of one process.
type Clients struct {
	DynamoDB       *awscall.JSON
	SecretsManager *awscall.JSON
}

// NewClients builds the clients of awsCfg, pointed at the configured emulators if any. They
// are signed requests of the services' JSON protocol (shared/awscall), not the SDK's
// generated clients, which would add about 1 MB and their initialisers to every bootstrap.
func NewClients(awsCfg aws.Config, cfg Config) Clients {
	s := awscall.NewSigner(awsCfg.Region, awsCfg.Credentials)
	return Clients{
		DynamoDB:       awscall.DynamoDB(s, cfg.DynamoDBEndpoint),
		SecretsManager: awscall.SecretsManager(s, cfg.SecretsManagerEndpoint),
	}
}
