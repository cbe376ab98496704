// Command invoke runs one operation group's real Lambda handler on an API Gateway HTTP API
// (payload v2) event, in-process, and prints the proxy response: what `sam local invoke -e`
// does, without Docker (`make invoke FN=identity EVENT=events/healthcheck.json`).
//
// The handler is built exactly as functions/<fn>/main.go builds it (the same group, router
// and adapter), on the local host's storage under DATA_DIR, or with -memory on a temporary
// store seeded with the fixture of the event tests (fixture.go), so that the events under
// events/ that carry the fixture's API key authenticate.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/app/local"

	// The hosts serve every group, the signals' schedules included: the same IANA zones as
	// functions/signals, whatever the machine has installed.
	_ "time/tzdata"
)

func main() {
	fs := flag.NewFlagSet("invoke", flag.ExitOnError)
	fn := fs.String("fn", "", "operation group (function): "+strings.Join(groups.Names(), ", "))
	eventPath := fs.String("event", "", "API Gateway HTTP API v2 event file (events/...json)")
	memory := fs.Bool("memory", false, "use a temporary store seeded with the test fixture instead of DATA_DIR")
	fs.Parse(os.Args[1:])
	if *fn == "" || *eventPath == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: invoke -fn <group> -event <file> [-memory]")
		fs.PrintDefaults()
		os.Exit(2)
	}
	if err := run(context.Background(), *fn, *eventPath, *memory, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "invoke:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, fn, eventPath string, memory bool, getenv func(string) string, stdout, stderr io.Writer) error {
	g, ok := groups.Find(fn)
	worker := slices.Contains(workerFunctions, fn)
	if !ok && !worker {
		return fmt.Errorf("unknown function %q; one of %s", fn, strings.Join(append(groups.Names(), workerFunctions...), ", "))
	}
	raw, err := os.ReadFile(eventPath)
	if err != nil {
		return err
	}
	cfg, err := app.ReadConfig(app.Local, getenv)
	if err != nil {
		return err
	}
	log := app.JSONLogger(stderr, cfg.LogLevel)
	d, closeDeps, err := local.Open(ctx, cfg, log, local.Options{DataDir: or(getenv("DATA_DIR"), local.DefaultDataDir), Memory: memory})
	if err != nil {
		return err
	}
	defer closeDeps()
	defer d.Auth.Wait() // writes auth makes after answering, before the store closes
	if memory {
		if err := seed(ctx, d); err != nil {
			return err
		}
	}
	var resp any
	if worker {
		resp, err = InvokeWorker(ctx, d, fn, raw)
	} else {
		resp, err = Invoke(ctx, d, g, raw)
	}
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(resp, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
