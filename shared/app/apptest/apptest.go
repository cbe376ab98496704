// Package apptest gives handler tests of operation groups the dependencies the hosts build,
// on a temporary store, and an authenticated admin:
//
//	d := apptest.Deps(t)
//	admin := apptest.Admin(t, d)
//	rt := app.NewRouter(d, datasets.Register)
//	req.Header.Set("Service-API-Key", admin.APIKey.RevealString())
//
// (shared/auth's own tests cannot use it: it imports auth through app.)
package apptest

import (
	"log/slog"
	"testing"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/local"
	"github.com/evalobs/evalapi/shared/auth"
)

// Deps returns the dependencies of a local host on a fresh temporary store and in-memory
// secrets, released when t ends. Logs are discarded unless the test runs with -v.
func Deps(t testing.TB) app.Deps {
	t.Helper()
	cfg, err := app.ReadConfig(app.Local, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	if testing.Verbose() {
		log = app.JSONLogger(testWriter{t}, slog.LevelDebug)
	}
	d, closeDeps, err := local.Open(t.Context(), cfg, log, local.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := closeDeps(); err != nil {
			t.Error(err)
		}
	})
	t.Cleanup(d.Auth.Wait) // runs first: auth writes after answering, and needs the store
	return d
}

// Admin creates the organization of d's empty table with its admin, and returns them: the
// admin's e-mail, password and API key authenticate requests.
func Admin(t testing.TB, d app.Deps) auth.BootstrapResult {
	t.Helper()
	res, err := auth.Bootstrap(t.Context(), d.Table, auth.BootstrapOptions{
		Secrets:   d.Secrets,
		SecretRef: d.Config.JWTSecretARN,
		OrgName:   "apptest",
		Now:       d.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created {
		t.Fatal("apptest.Admin: the table already has an organization")
	}
	return res
}

// testWriter sends log lines to t.Log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
