package main

import (
	"log/slog"
	"testing"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/local"
)

// fixtureDeps are the dependencies of one event: a fresh temporary store with the fixture.
func fixtureDeps(t *testing.T, log *slog.Logger) app.Deps {
	t.Helper()
	cfg, err := app.ReadConfig(app.Local, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
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
	t.Cleanup(d.Auth.Wait) // runs first: auth's writes after answering need the store open
	if err := seed(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	return d
}
