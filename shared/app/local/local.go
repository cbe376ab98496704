// Package local builds the dependencies of the hosts that run on a developer's machine:
// the local API (infra/local), the event runner (infra/invoke) and tests. It is apart from
// app so that the Lambda functions do not link the embedded store and the secrets file.
package local

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/awssm"
	"github.com/evalobs/evalapi/shared/secrets/localfile"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/dynamo"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

// The data directory of the local hosts (DATA_DIR), and what they keep in it.
const (
	DefaultDataDir = ".data"
	StoreFile      = "evalapi.db"
	SecretsDir     = "secrets"
	PayloadsDir    = "payloads"
)

// Options choose the storage of a local host.
type Options struct {
	// DataDir holds the embedded store and the encrypted secrets file.
	DataDir string
	// Memory keeps everything in a temporary store and in memory, gone on Close (tests,
	// `invoke -memory`). The endpoints of Config are ignored then.
	Memory bool
	// OnCommit receives the changes of every write to the embedded file store: the local
	// stand-in for the table's DynamoDB stream, where stream workers plug in.
	OnCommit func([]embedded.Change)
}

// Open builds the dependencies of a local host: the embedded store and the localfile
// secrets under opts.DataDir, or DynamoDB Local / moto when Config names their endpoints
// (the table is created if absent). It creates the signing secret on first start. The
// returned func releases what Open opened (the embedded file stays locked until then).
func Open(ctx context.Context, cfg app.Config, log *slog.Logger, opts Options) (app.Deps, func() error, error) {
	if opts.Memory {
		db, err := embedded.OpenMemory()
		if err != nil {
			return app.Deps{}, nil, err
		}
		return finish(ctx, cfg, log, db, secrets.NewMemory(), "", payload.NewMemory(), db.Close)
	}
	if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
		return app.Deps{}, nil, fmt.Errorf("data directory: %w", err)
	}
	var c app.Clients
	if cfg.DynamoDBEndpoint != "" || cfg.SecretsManagerEndpoint != "" {
		c = app.NewClients(emulatorConfig(), cfg)
	}

	var sec secrets.Store
	var prefix string // what sec puts in front of the names given to Put
	var err error
	if cfg.SecretsManagerEndpoint != "" {
		sec, err = awssm.New(c.SecretsManager, cfg.SecretsPrefix)
		prefix = cfg.SecretsPrefix
	} else {
		sec, err = localfile.Open(filepath.Join(opts.DataDir, SecretsDir))
	}
	if err != nil {
		return app.Deps{}, nil, err
	}

	payloads, err := payload.NewDir(filepath.Join(opts.DataDir, PayloadsDir))
	if err != nil {
		return app.Deps{}, nil, err
	}
	if cfg.DynamoDBEndpoint != "" {
		if err := dynamo.CreateTable(ctx, c.DynamoDB, cfg.TableName, store.TableSchema); err != nil {
			return app.Deps{}, nil, fmt.Errorf("table %s at %s: %w", cfg.TableName, cfg.DynamoDBEndpoint, err)
		}
		return finish(ctx, cfg, log, dynamo.New(c.DynamoDB, cfg.TableName), sec, prefix, payloads, func() error { return nil })
	}
	db, err := embedded.Open(filepath.Join(opts.DataDir, StoreFile), embedded.Options{OnCommit: opts.OnCommit})
	if err != nil {
		return app.Deps{}, nil, fmt.Errorf("%w (is another local host using %s?)", err, opts.DataDir)
	}
	return finish(ctx, cfg, log, db, sec, prefix, payloads, db.Close)
}

// finish makes sure the signing secret exists and builds the deps; on failure it releases
// what closeFn releases.
func finish(ctx context.Context, cfg app.Config, log *slog.Logger, tbl store.Table, sec secrets.Store, prefix string,
	payloads payload.Store, closeFn func() error) (app.Deps, func() error, error) {
	if err := ensureSecret(ctx, sec, prefix, cfg.JWTSecretARN); err != nil {
		return app.Deps{}, nil, errors.Join(err, closeFn())
	}
	d, err := app.NewDeps(cfg, log, tbl, sec)
	if err != nil {
		return app.Deps{}, nil, errors.Join(err, closeFn())
	}
	d.Payloads = payloads
	// Experiments can be started; infra/local runs them (its own queue replaces this one).
	d.ExperimentQueue = &HeldQueue{}
	return d, closeFn, nil
}

// emulatorConfig is the AWS configuration for DynamoDB Local and moto: the region and
// static credentials of the environment when set, else fixed ones, since emulators accept
// any. (The SDK's default chain, with its shared-config files, SSO and STS clients, would
// add 0.7 ms of initialisers to every start of the local host, for credentials no emulator
// checks.)
func emulatorConfig() aws.Config {
	region := cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"), "us-east-1")
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		id, secret = "local", "local"
	}
	creds := credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN"))
	return aws.Config{Region: region, Credentials: creds}
}

// ensureSecret creates the secret ref with a random value unless it exists: what the stack
// does in the cloud (GenerateSecretString: letters and digits). ref is the secret's full
// name; sec puts prefix in front of the names it is given to Put, so Put gets the rest.
// (auth.EnsureSigningSecret does not know of a prefix, and would make a new key on every
// start of a host on moto.)
func ensureSecret(ctx context.Context, sec secrets.Store, prefix, ref string) error {
	_, err := sec.Get(ctx, ref)
	if !errors.Is(err, secrets.ErrNotFound) {
		if err != nil {
			return fmt.Errorf("application secret %s: %w", ref, err)
		}
		return nil
	}
	name, ok := strings.CutPrefix(ref, prefix)
	if !ok {
		return fmt.Errorf("application secret %s does not exist, and is not under SECRETS_PREFIX %q to be created", ref, prefix)
	}
	if _, err := sec.Put(ctx, name, []byte(rand.Text()+rand.Text()), nil); err != nil {
		return fmt.Errorf("create application secret %s: %w", ref, err)
	}
	return nil
}
