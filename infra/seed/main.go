// Command seed loads the demo data set into the local host's store (`make seed`): a
// project, a log stream with metric settings and a day of synthetic traces, with a progress
// bar on the terminal. It opens the store the way `make run` does (DATA_DIR, or the
// emulators of DYNAMODB_ENDPOINT and SECRETSMANAGER_ENDPOINT), creating the organization and
// its admin first if the store is new; stop `make run` first, which holds the store file.
//
//	go run ./infra/seed [-traces 17280] [-seed 1]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"

	"github.com/evalobs/evalapi/infra/demo"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/local"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("traces", demo.DefaultTraces, "traces over the day")
	seed := fs.Uint64("seed", 1, "seed of the random values")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := app.ReadConfig(app.Local, getenv)
	if err != nil {
		return err
	}
	dataDir := getenv("DATA_DIR")
	if dataDir == "" {
		dataDir = local.DefaultDataDir
	}
	d, closeDeps, err := local.Open(ctx, cfg, app.JSONLogger(io.Discard, slog.LevelError), local.Options{DataDir: dataDir})
	if err != nil {
		return err
	}
	defer closeDeps()
	if err := local.Bootstrap(ctx, d, getenv, stdout); err != nil {
		return err
	}
	// The demo is served later by `make run`, on PORT as it will read it.
	port := getenv("PORT")
	if port == "" || port == "0" {
		port = "3000"
	}
	return demo.Seed(ctx, d, getenv, demo.SeedOptions{Traces: *n, Seed: *seed, BaseURL: "http://127.0.0.1:" + port}, stdout)
}
