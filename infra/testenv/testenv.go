// Package testenv finds the emulators that `make test` starts (DynamoDB Local and moto's
// server) for the tests that need them. Outside CI a missing emulator skips the test; with
// CI=true it fails it, so a CI run can never pass by skipping.
package testenv

import (
	"os"
	"testing"
)

// Environment variables set by infra/scripts/test.sh when the emulators run.
const (
	EnvDynamoLocal = "TEST_DYNAMODB_LOCAL_ENDPOINT" // e.g. http://127.0.0.1:41234
	EnvMoto        = "TEST_MOTO_ENDPOINT"           // e.g. http://127.0.0.1:41235
)

// DynamoLocal returns the DynamoDB Local endpoint, or skips (fails under CI) without one.
func DynamoLocal(t testing.TB) string { return need(t, EnvDynamoLocal, "DynamoDB Local") }

// Moto returns the moto server endpoint, or skips (fails under CI) without one.
func Moto(t testing.TB) string { return need(t, EnvMoto, "moto") }

func need(t testing.TB, env, what string) string {
	t.Helper()
	if v := os.Getenv(env); v != "" {
		return v
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required under CI but %s is not set (run the tests with `make test`)", what, env)
	}
	t.Skipf("%s not running (%s unset); `make test` starts it", what, env)
	return ""
}
