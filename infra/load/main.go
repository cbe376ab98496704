// Command load drives the local host (infra/local) with a mixed workload from concurrent
// clients and reports requests per second, p50/p99 latency per route and error counts
// (`make load`). Without -url it builds and starts its own local host on 127.0.0.1 with a
// free port and a temporary data directory, and stops it at the end.
//
// The mix: authenticated reads (healthcheck, current user, dataset content and groups,
// metric settings, available columns, the experiments list when that route exists) and
// writes (datasets created, rows appended to one dataset, scorer versions created). After
// the run every write that answered 200 is read back: no created dataset, appended row or
// scorer version may be missing. It exits 1 on any unexpected status (a 5xx, or a 4xx the
// route does not expect), on a lost write, or when the run exceeds -timeout.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/apitest"
)

func main() {
	cfg := config{Tag: strconv.FormatInt(time.Now().UnixNano(), 36)}
	flag.IntVar(&cfg.Clients, "c", 200, "concurrent clients")
	flag.IntVar(&cfg.Requests, "n", 20000, "requests in all")
	flag.DurationVar(&cfg.Timeout, "timeout", 5*time.Minute, "bound of the whole run")
	flag.StringVar(&cfg.URL, "url", "", "base URL of a running host (127.0.0.1 only); default: start one")
	flag.StringVar(&cfg.APIKey, "api-key", "", "API key for -url")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := main1(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func main1(ctx context.Context, cfg config, out io.Writer) error {
	if cfg.Clients < 1 || cfg.Requests < 1 {
		return fmt.Errorf("-c and -n must be positive")
	}
	if cfg.URL == "" {
		root, err := apitest.ModuleRoot()
		if err != nil {
			return err
		}
		tmp, err := os.MkdirTemp("", "evalapi-load-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		exe, err := buildHost(ctx, root, tmp)
		if err != nil {
			return err
		}
		h, err := startHost(ctx, exe, tmp+"/data")
		if err != nil {
			return err
		}
		defer h.stop()
		cfg.URL, cfg.APIKey = h.URL, h.APIKey
		fmt.Fprintf(out, "local host at %s\n", h.URL)
	} else if !isLoopback(cfg.URL) {
		return fmt.Errorf("-url %s: only a host on 127.0.0.1 is driven", cfg.URL)
	}
	rep, err := run(ctx, cfg)
	if err != nil {
		return err
	}
	rep.print(out, cfg)
	if rep.Unexpected > 0 || len(rep.Problems) > 0 {
		return fmt.Errorf("%d unexpected answer(s), %d problem(s)", rep.Unexpected, len(rep.Problems))
	}
	return nil
}
