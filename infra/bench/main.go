// Command bench measures the service side by side with baselines that do the same work
// with nothing of ours in the way (issue 23; docs/PERFORMANCE.md, "Side by side with a bare
// server and DuckDB"). It is a tool for a developer, never part of `make test`.
//
//	go run ./infra/bench http  [-c 50] [-d 10s] [-runs 3] [-starts 20]   (make bench-http)
//	go run ./infra/bench scan  [-traces 200000] [-runs 5] [-python P]    (make bench-scan)
//	go run ./infra/bench sizes [-flags '...'] [-cap 10000000]           (make sizes)
//
// http loads the local host (infra/local) and a bare net/http server (infra/bench/bare)
// serving the same bytes; scan times the metrics search against DuckDB on Parquet of the
// same generated traces; sizes builds every Lambda bootstrap for arm64 and amd64 beside a
// hello-world aws-lambda-go bootstrap and says what each dependency adds. Each mode's file
// says where its timers start and stop.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

const usage = "usage: bench http|scan|sizes [flags] (-h after the mode lists them)"

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%s", usage)
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	switch args[0] {
	case "http":
		return benchHTTP(ctx, root, args[1:], out)
	case "scan":
		return benchScan(ctx, root, args[1:], out)
	case "sizes":
		return benchSizes(ctx, root, args[1:], out)
	}
	return fmt.Errorf("unknown mode %q; %s", args[0], usage)
}

// moduleRoot is the directory of the module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run bench inside the module")
	}
	return strings.TrimSuffix(gomod, "/go.mod"), nil
}

// goBuild runs `go build` in root with the extra environment env.
func goBuild(ctx context.Context, root string, env []string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", append([]string{"build"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// tempDir makes a temporary directory and returns the func that removes it, unless keep
// (then its path is printed, for a look at the servers' logs or the data).
func tempDir(prefix string, keep bool, out io.Writer) (string, func(), error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	if keep {
		fmt.Fprintln(out, "temporary directory:", dir)
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// loadAvg is the first three fields of /proc/loadavg: how busy the shared machine was.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
