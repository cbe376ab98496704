package demo

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/local"
)

// TestSeedOnAFreshStore runs what `DEMO=1 make run` does on a first start: bootstrap, then the
// demo. The commands it prints name the host's real address (issue 32: they said port 3000
// whatever PORT was), and the log says the store was bootstrapped, never also that there was
// nothing to bootstrap (Seed bootstrapped a second time).
func TestSeedOnAFreshStore(t *testing.T) {
	ctx := t.Context()
	env := map[string]string{"ADMIN_EMAIL": "demo-admin@example.com"}
	getenv := func(k string) string { return env[k] }
	cfg, err := app.ReadConfig(app.Local, getenv)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	d, closeDeps, err := local.Open(ctx, cfg, app.JSONLogger(&log, slog.LevelInfo), local.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeDeps() })

	var out bytes.Buffer
	if err := local.Bootstrap(ctx, d, getenv, &out); err != nil {
		t.Fatal(err)
	}
	const base = "http://127.0.0.1:43210"
	if err := Seed(ctx, d, getenv, SeedOptions{Traces: 200, Seed: 3, BaseURL: base}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{base + "/v2/projects/", "/experiments/compare", "/metrics/search"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, out.String())
		}
	}
	if n := strings.Count(out.String(), base+"/v2/projects/"); n != 2 || strings.Contains(out.String(), ":3000") {
		t.Errorf("want both commands at %s (got %d) and none at port 3000:\n%s", base, n, out.String())
	}
	if !strings.Contains(log.String(), "bootstrapped the first organization") || strings.Contains(log.String(), "nothing to bootstrap") {
		t.Errorf("the log of a first start:\n%s", log.String())
	}
}
