package app

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
)

// Host says where the process runs, which decides the configuration it needs.
type Host int

const (
	// Cloud is a Lambda function: every resource name comes from template.yaml.
	Cloud Host = iota
	// Local is the local API host and the event runner: everything has a default.
	Local
)

// Config is the service's configuration, read once from the environment at start.
type Config struct {
	TableName     string // TABLE_NAME
	SecretsPrefix string // SECRETS_PREFIX: names of the secrets the service creates
	JWTSecretARN  string // JWT_SECRET_ARN: the HMAC key of access and refresh tokens
	// APIKeyPepperARN (API_KEY_PEPPER_ARN) names the secret the API-key pepper is derived
	// from (template.yaml creates it); when empty, the local default, shared/auth derives
	// the pepper from the signing secret.
	APIKeyPepperARN string

	// Endpoints of emulators (DynamoDB Local, moto); empty means AWS itself.
	DynamoDBEndpoint       string // DYNAMODB_ENDPOINT
	SecretsManagerEndpoint string // SECRETSMANAGER_ENDPOINT
	// PayloadBucket (PAYLOAD_BUCKET) is the S3 bucket of large record contents; S3Endpoint
	// (S3_ENDPOINT) an emulator's address for it.
	PayloadBucket string
	S3Endpoint    string
	// ExperimentQueueURL (EXPERIMENT_QUEUE_URL) is the SQS queue of experiment chunks; empty
	// on a host that runs them in-process (the local hosts) or cannot start them.
	ExperimentQueueURL string

	// ResponseLimit is the most bytes an answer may carry: a Lambda function's synchronous
	// answer through API Gateway holds 6 MB; the local host has no limit (0).
	ResponseLimit int64

	LogLevel        slog.Level    // LOG_LEVEL: DEBUG, INFO, WARN or ERROR
	AccessTokenTTL  time.Duration // ACCESS_TOKEN_TTL: a Go duration or seconds
	RefreshTokenTTL time.Duration // REFRESH_TOKEN_TTL: a Go duration or seconds

	// AllowPrivateProviderEndpoints lets integrations call loopback and private addresses
	// (ALLOW_PRIVATE_PROVIDER_ENDPOINTS=true), for tests against a local fake provider.
	AllowPrivateProviderEndpoints bool
}

// Defaults of the optional variables, and of every variable on the Local host.
const (
	DefaultAccessTokenTTL  = auth.DefaultAccessTTL
	DefaultRefreshTokenTTL = auth.DefaultRefreshTTL
	DefaultLocalTable      = "evalapi"
	DefaultLocalPrefix     = "evalapi/local/"
)

// JWTSecretName is the name, under the secrets prefix, of the signing secret that the
// LambdaResponseLimit is a Lambda answer's size limit (6 MB) less room for its headers and
// the proxy's envelope.
const LambdaResponseLimit = 6_000_000 - 64<<10

// local host creates on first start (the stack creates it in the cloud).
const JWTSecretName = "jwt-signing-key"

// ReadConfig reads the configuration of host from getenv (os.Getenv in a main). In the
// cloud, the names of the table and the secrets are required: the template sets them, and
// guessing one would write to the wrong place. Every problem is reported at once.
func ReadConfig(host Host, getenv func(string) string) (Config, error) {
	c := Config{
		TableName:              strings.TrimSpace(getenv("TABLE_NAME")),
		SecretsPrefix:          strings.TrimSpace(getenv("SECRETS_PREFIX")),
		JWTSecretARN:           strings.TrimSpace(getenv("JWT_SECRET_ARN")),
		APIKeyPepperARN:        strings.TrimSpace(getenv("API_KEY_PEPPER_ARN")),
		DynamoDBEndpoint:       strings.TrimSpace(getenv("DYNAMODB_ENDPOINT")),
		SecretsManagerEndpoint: strings.TrimSpace(getenv("SECRETSMANAGER_ENDPOINT")),
		PayloadBucket:          strings.TrimSpace(getenv("PAYLOAD_BUCKET")),
		S3Endpoint:             strings.TrimSpace(getenv("S3_ENDPOINT")),
		ExperimentQueueURL:     strings.TrimSpace(getenv("EXPERIMENT_QUEUE_URL")),
	}
	var problems []string
	if host != Local {
		c.ResponseLimit = LambdaResponseLimit
	}
	if host == Local {
		c.TableName = or(c.TableName, DefaultLocalTable)
		c.SecretsPrefix = or(c.SecretsPrefix, DefaultLocalPrefix)
		c.JWTSecretARN = or(c.JWTSecretARN, c.SecretsPrefix+JWTSecretName)
	} else {
		var missing []string
		for _, v := range []struct{ name, value string }{
			{"TABLE_NAME", c.TableName},
			{"SECRETS_PREFIX", c.SecretsPrefix},
			{"JWT_SECRET_ARN", c.JWTSecretARN},
		} {
			if v.value == "" {
				missing = append(missing, v.name)
			}
		}
		if len(missing) > 0 {
			problems = append(problems, "missing required environment variable(s) "+
				strings.Join(missing, ", ")+" (template.yaml sets them for every function)")
		}
	}

	var err error
	if c.LogLevel, err = parseLevel(getenv("LOG_LEVEL")); err != nil {
		problems = append(problems, err.Error())
	}
	if c.AccessTokenTTL, err = parseTTL("ACCESS_TOKEN_TTL", getenv("ACCESS_TOKEN_TTL"), DefaultAccessTokenTTL); err != nil {
		problems = append(problems, err.Error())
	}
	if c.RefreshTokenTTL, err = parseTTL("REFRESH_TOKEN_TTL", getenv("REFRESH_TOKEN_TTL"), DefaultRefreshTokenTTL); err != nil {
		problems = append(problems, err.Error())
	}
	if s := strings.TrimSpace(getenv("ALLOW_PRIVATE_PROVIDER_ENDPOINTS")); s != "" {
		if c.AllowPrivateProviderEndpoints, err = strconv.ParseBool(s); err != nil {
			problems = append(problems, fmt.Sprintf("ALLOW_PRIVATE_PROVIDER_ENDPOINTS=%q is not a boolean (true or false)", s))
		}
	}
	if len(problems) > 0 {
		return Config{}, errors.New("configuration: " + strings.Join(problems, "; "))
	}
	return c, nil
}

func parseLevel(s string) (slog.Level, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "", "INFO":
		return slog.LevelInfo, nil
	case "DEBUG":
		return slog.LevelDebug, nil
	case "WARN", "WARNING":
		return slog.LevelWarn, nil
	case "ERROR":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("LOG_LEVEL=%q is not one of DEBUG, INFO, WARN, ERROR", s)
}

// parseTTL reads a token lifetime the way shared/auth documents it: a Go duration ("1h",
// "336h") or whole seconds ("3600").
func parseTTL(name, s string, def time.Duration) (time.Duration, error) {
	d, err := auth.ParseTTL(s, def)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is neither a positive Go duration (1h, 336h) nor whole seconds", name, s)
	}
	return d, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
