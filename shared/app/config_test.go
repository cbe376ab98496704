package app

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestReadConfigCloudRequiresNames(t *testing.T) {
	_, err := ReadConfig(Cloud, env(map[string]string{"TABLE_NAME": "t"}))
	if err == nil {
		t.Fatal("ReadConfig(Cloud) without the secret variables succeeded")
	}
	for _, name := range []string{"SECRETS_PREFIX", "JWT_SECRET_ARN"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	if strings.Contains(err.Error(), "TABLE_NAME") {
		t.Errorf("error %q names TABLE_NAME, which is set", err)
	}
}

func TestReadConfigCloud(t *testing.T) {
	c, err := ReadConfig(Cloud, env(map[string]string{
		"TABLE_NAME":                       "evalapi-Table",
		"SECRETS_PREFIX":                   "evalapi/prod/",
		"JWT_SECRET_ARN":                   "arn:aws:secretsmanager:eu-west-1:1:secret:jwt",
		"API_KEY_PEPPER_ARN":               "arn:aws:secretsmanager:eu-west-1:1:secret:pepper",
		"LOG_LEVEL":                        "debug",
		"ACCESS_TOKEN_TTL":                 "15m",
		"REFRESH_TOKEN_TTL":                "48h",
		"ALLOW_PRIVATE_PROVIDER_ENDPOINTS": "true",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		TableName:                     "evalapi-Table",
		SecretsPrefix:                 "evalapi/prod/",
		JWTSecretARN:                  "arn:aws:secretsmanager:eu-west-1:1:secret:jwt",
		APIKeyPepperARN:               "arn:aws:secretsmanager:eu-west-1:1:secret:pepper",
		LogLevel:                      slog.LevelDebug,
		AccessTokenTTL:                15 * time.Minute,
		RefreshTokenTTL:               48 * time.Hour,
		AllowPrivateProviderEndpoints: true,
		ResponseLimit:                 LambdaResponseLimit, // a Lambda's answer is capped
	}
	if c != want {
		t.Errorf("ReadConfig = %+v\nwant %+v", c, want)
	}
}

func TestReadConfigLocalDefaults(t *testing.T) {
	c, err := ReadConfig(Local, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		TableName:       DefaultLocalTable,
		SecretsPrefix:   DefaultLocalPrefix,
		JWTSecretARN:    DefaultLocalPrefix + JWTSecretName,
		LogLevel:        slog.LevelInfo,
		AccessTokenTTL:  DefaultAccessTokenTTL,
		RefreshTokenTTL: DefaultRefreshTokenTTL,
	}
	if c != want {
		t.Errorf("ReadConfig = %+v\nwant %+v", c, want)
	}
}

func TestReadConfigReportsEveryBadValue(t *testing.T) {
	_, err := ReadConfig(Local, env(map[string]string{
		"LOG_LEVEL":                        "loud",
		"ACCESS_TOKEN_TTL":                 "an hour",
		"REFRESH_TOKEN_TTL":                "-1h",
		"ALLOW_PRIVATE_PROVIDER_ENDPOINTS": "maybe",
	}))
	if err == nil {
		t.Fatal("ReadConfig accepted bad values")
	}
	for _, name := range []string{"LOG_LEVEL", "ACCESS_TOKEN_TTL", "REFRESH_TOKEN_TTL", "ALLOW_PRIVATE_PROVIDER_ENDPOINTS"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}
