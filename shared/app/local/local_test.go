package local

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/store"
)

// TestOpenKeepsSecrets checks that the application secrets are made once: a restart
// of the local host must not log everybody out.
func TestOpenKeepsSecrets(t *testing.T) {
	dir := t.TempDir()
	cfg, err := app.ReadConfig(app.Local, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	open := func() []byte {
		d, closeDeps, err := Open(t.Context(), cfg, slog.New(slog.DiscardHandler), Options{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer closeDeps()
		key, err := d.Secrets.Get(t.Context(), cfg.JWTSecretARN)
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
	first := open()
	if len(first) < 32 {
		t.Errorf("signing key of %d bytes", len(first))
	}
	if second := open(); string(second) != string(first) {
		t.Error("the signing key changed across restarts")
	}
	for _, name := range []string{StoreFile, SecretsDir} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}

// TestOpenLocked checks that a second host on one data directory fails clearly
// instead of hanging on the store's file lock.
func TestOpenLocked(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := app.ReadConfig(app.Local, func(string) string { return "" })
	log := slog.New(slog.DiscardHandler)
	_, closeDeps, err := Open(t.Context(), cfg, log, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer closeDeps()
	if _, _, err := Open(t.Context(), cfg, log, Options{DataDir: dir}); err == nil {
		t.Fatal("a second Open on one data directory succeeded")
	}
}

// TestOpenEmulators opens on DynamoDB Local and moto: the table is created, and the signing
// secret is created once under the secrets prefix.
func TestOpenEmulators(t *testing.T) {
	ddb, moto := testenv.DynamoLocal(t), testenv.Moto(t)
	run := uuid.NewString()[:8]
	env := map[string]string{
		"DYNAMODB_ENDPOINT":       ddb,
		"SECRETSMANAGER_ENDPOINT": moto,
		"TABLE_NAME":              "local-test-" + run,
		"SECRETS_PREFIX":          "local-test/" + run + "/",
	}
	cfg, err := app.ReadConfig(app.Local, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	open := func() ([]byte, app.Deps) {
		d, closeDeps, err := Open(t.Context(), cfg, slog.New(slog.DiscardHandler), Options{DataDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { closeDeps() })
		key, err := d.Secrets.Get(t.Context(), cfg.JWTSecretARN)
		if err != nil {
			t.Fatal(err)
		}
		return key, d
	}
	first, d := open()
	item := store.Item{store.AttrPK: "TEST#" + run, store.AttrSK: "META", "n": int64(1)}
	if err := d.Table.Put(t.Context(), item); err != nil {
		t.Fatalf("put into the created table: %v", err)
	}
	if second, _ := open(); string(second) != string(first) {
		t.Error("a second Open made a new signing key")
	}
}
