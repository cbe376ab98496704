package app

import (
	"strings"
	"testing"
)

func TestLambdaAWSConfig(t *testing.T) {
	cfg, err := LambdaAWSConfig(env(map[string]string{
		"AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "s3cr3t", "AWS_SESSION_TOKEN": "tok",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Region != "eu-west-1" {
		t.Errorf("Region = %q, want eu-west-1", cfg.Region)
	}
	creds, err := cfg.Credentials.Retrieve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if creds.AccessKeyID != "AKID" || creds.SecretAccessKey != "s3cr3t" || creds.SessionToken != "tok" {
		t.Errorf("credentials = %q/%q/%q, want the environment's", creds.AccessKeyID, creds.SecretAccessKey, creds.SessionToken)
	}
}

func TestLambdaAWSConfigNamesWhatIsMissing(t *testing.T) {
	_, err := LambdaAWSConfig(env(map[string]string{"AWS_REGION": "eu-west-1", "AWS_SECRET_ACCESS_KEY": "s3cr3t"}))
	if err == nil {
		t.Fatal("LambdaAWSConfig without AWS_ACCESS_KEY_ID succeeded")
	}
	if !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("error %q should name AWS_ACCESS_KEY_ID and carry no value", err)
	}
}
