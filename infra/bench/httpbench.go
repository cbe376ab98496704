package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// httpPath is one path of the HTTP comparison.
type httpPath struct {
	name   string
	path   string // URL path and query on both servers
	header http.Header
	body   []byte // the host's answer, which the bare server replays
	runs   map[string][]runStats
}

var apiKeyLine = regexp.MustCompile(`API key\s+(\S+)`)

// benchHTTP runs `make bench-http`: see docs/PERFORMANCE.md.
func benchHTTP(ctx context.Context, root string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench http", flag.ContinueOnError)
	workers := fs.Int("c", 50, "concurrent clients (closed loop)")
	dur := fs.Duration("d", 10*time.Second, "length of one load run")
	runs := fs.Int("runs", 3, "load runs per server and path (the median is reported)")
	starts := fs.Int("starts", 20, "process starts per server for the start-up figure")
	warm := fs.Duration("warm", 2*time.Second, "unmeasured load per server and path before the runs")
	keep := fs.Bool("keep", false, "keep the temporary directory (binaries, data, server logs)")
	profile := fs.String("cpuprofile", "", "write the host's CPU profile of the load runs (seeding included) to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tmp, cleanup, err := tempDir("evalapi-bench-", *keep, out)
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Fprintf(out, "load average before: %s (%d cores)\n", loadAvg(), runtime.NumCPU())
	hostExe, bareExe := filepath.Join(tmp, "evalapi-local"), filepath.Join(tmp, "bare")
	// Default flags, as `make run` builds the host.
	if err := goBuild(ctx, root, nil, "-o", hostExe, "./infra/local"); err != nil {
		return err
	}
	if err := goBuild(ctx, root, nil, "-o", bareExe, "./infra/bench/bare"); err != nil {
		return err
	}

	// The host at its default log level, on the embedded store of a fresh data directory.
	email, password := "bench-admin@example.com", randomPassword()
	hostEnv := append(cleanEnv("PORT", "DATA_DIR", "LOG_LEVEL", "ADMIN_EMAIL", "ADMIN_PASSWORD", "DEMO", "CPUPROFILE",
		"DYNAMODB_ENDPOINT", "SECRETSMANAGER_ENDPOINT"),
		"DATA_DIR="+filepath.Join(tmp, "data"), "ADMIN_EMAIL="+email, "ADMIN_PASSWORD="+password)
	loadEnv := hostEnv
	if *profile != "" {
		abs, err := filepath.Abs(*profile)
		if err != nil {
			return err
		}
		loadEnv = append(slices.Clone(hostEnv), "CPUPROFILE="+abs)
	}
	host, err := start(ctx, "host", hostExe, tmp, loadEnv, nil)
	if err != nil {
		return err
	}
	defer func() { host.stop() }()
	m := apiKeyLine.FindStringSubmatch(host.stdout())
	if m == nil {
		return fmt.Errorf("the host printed no API key on its first start:\n%s", host.tail())
	}
	f, err := seed(ctx, host.URL, m[1], email, password)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	paths := []*httpPath{
		{name: fmt.Sprintf("GET dataset content, %d rows, API key", datasetRows),
			path:   "/v2/datasets/" + f.datasetID + fmt.Sprintf("/content?limit=%d", datasetRows),
			header: http.Header{"Service-API-Key": {f.apiKey}, "Accept": {"application/json"}}},
		{name: "GET metric settings, Bearer",
			path:   "/v2/projects/" + f.projectID + "/log_streams/" + f.logStreamID + "/metric_settings",
			header: http.Header{"Authorization": {"Bearer " + f.bearer}, "Accept": {"application/json"}}},
		{name: "GET healthcheck", path: "/v2/healthcheck", header: http.Header{}},
	}
	manifest, err := capture(ctx, host.URL, paths, filepath.Join(tmp, "responses.json"))
	if err != nil {
		return err
	}
	bare, err := start(ctx, "bare", bareExe, tmp, cleanEnv("PORT"), []string{"-manifest", manifest})
	if err != nil {
		return err
	}
	defer func() { bare.stop() }()

	servers := []*proc{host, bare}
	client := newLoadClient(*workers)
	loaded := paths[:2] // the healthcheck is captured for the bare server's start-up only
	for _, p := range loaded {
		p.runs = map[string][]runStats{}
		fmt.Fprintf(out, "\n%s: %s (%d bytes)\n", p.name, p.path, len(p.body))
		for _, s := range servers {
			if _, err := load(ctx, client, target{s.URL + p.path, p.header, len(p.body)}, *workers, *warm, s); err != nil {
				return err
			}
		}
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "run\tserver\treq/s\tp50 ms\tp99 ms\tCPU µs/req\terrors\t")
		for r := range *runs {
			order := servers
			if r%2 == 1 { // alternate which server goes first
				order = []*proc{bare, host}
			}
			for _, s := range order {
				st, err := load(ctx, client, target{s.URL + p.path, p.header, len(p.body)}, *workers, *dur, s)
				if err != nil {
					return err
				}
				p.runs[s.name] = append(p.runs[s.name], st)
				fmt.Fprintf(tw, "%d\t%s\t%.0f\t%.1f\t%.1f\t%.0f\t%d\t\n", r+1, s.name, st.RPS(), ms(st.P50), ms(st.P99), st.CPUPerReq(), st.Errors)
				if st.Errors > 0 {
					tw.Flush()
					return fmt.Errorf("%s answered %d bad responses on %s; first: %s", s.name, st.Errors, p.path, st.FirstErr)
				}
			}
		}
		tw.Flush()
	}
	client.CloseIdleConnections()
	fmt.Fprintf(out, "\nload average after the load runs: %s\n", loadAvg())

	// Start-up: the load runs' processes stop (the host's data directory is locked while it
	// runs), then each server is started and stopped -starts times, alternately.
	host.stop()
	bare.stop()
	startups := map[string][]float64{}
	for i := range *starts {
		for _, s := range []struct {
			name, exe string
			env, args []string
		}{{"host", hostExe, hostEnv, nil}, {"bare", bareExe, cleanEnv("PORT"), []string{"-manifest", manifest}}} {
			p, err := start(ctx, s.name, s.exe, tmp, s.env, s.args)
			if err != nil {
				return fmt.Errorf("start %d: %w", i+1, err)
			}
			startups[s.name] = append(startups[s.name], ms(p.Startup))
			if err := p.stop(); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(out, "\nstart-up to first 200 (exec → first healthcheck 200), %d starts each: host median %.1f ms, bare median %.1f ms\n",
		*starts, median(startups["host"]), median(startups["bare"]))
	fmt.Fprintf(out, "load average at the end: %s\n\n", loadAvg())
	summarize(out, loaded, startups, *workers, *dur, *runs)
	return nil
}

// capture reads each path from the host once, keeps the body for the load runs' length
// check, and writes the bare server's manifest: the same body and headers (less Date and
// Content-Length, which net/http sets).
func capture(ctx context.Context, base string, paths []*httpPath, manifest string) (string, error) {
	type response struct {
		Path   string              `json:"path"`
		Header map[string][]string `json:"header"`
		Body   []byte              `json:"body"`
	}
	var rs []response
	for _, p := range paths {
		resp, body, err := api{base: base, hdr: p.header, c: http.DefaultClient}.call(ctx, http.MethodGet, p.path, "", nil)
		if err != nil {
			return "", fmt.Errorf("capture: %w", err)
		}
		p.body = body
		h := resp.Header.Clone()
		h.Del("Date")
		h.Del("Content-Length")
		path, _, _ := strings.Cut(p.path, "?")
		rs = append(rs, response{Path: path, Header: h, Body: body})
	}
	b, err := json.Marshal(rs)
	if err != nil {
		return "", err
	}
	return manifest, os.WriteFile(manifest, b, 0o600)
}

// summarize prints the medians and ratios as the Markdown table of docs/PERFORMANCE.md.
func summarize(out io.Writer, paths []*httpPath, startups map[string][]float64, workers int, dur time.Duration, runs int) {
	fmt.Fprintf(out, "Medians of %d runs of %s at c=%d (each figure its own median); ratio = ours / bare (throughput: higher is better; p50, p99, CPU: lower is better):\n\n",
		runs, dur, workers)
	fmt.Fprintln(out, "| path | ours | bare net/http, same bytes | ratio ours/bare |")
	fmt.Fprintln(out, "|---|---|---|---|")
	for _, p := range paths {
		o, b := medians(p.runs["host"]), medians(p.runs["bare"])
		fmt.Fprintf(out, "| %s (%s) | %s | %s | throughput %.3f, p50 %.1f×, p99 %.1f×, CPU/req %.1f× |\n",
			p.name, kb(len(p.body)), o, b, o.rps/b.rps, o.p50/b.p50, o.p99/b.p99, o.cpu/b.cpu)
	}
	h, b := median(startups["host"]), median(startups["bare"])
	fmt.Fprintf(out, "| start-up to first 200 (median of %d) | %.1f ms | %.1f ms | %.2f× |\n", len(startups["host"]), h, b, h/b)
}

type med struct{ rps, p50, p99, cpu float64 }

func (m med) String() string {
	return fmt.Sprintf("%.0f req/s, p50 %.1f ms, p99 %.1f ms, %.0f µs CPU/req", m.rps, m.p50, m.p99, m.cpu)
}

func medians(rs []runStats) med {
	var m [4][]float64
	for _, r := range rs {
		m[0], m[1], m[2], m[3] = append(m[0], r.RPS()), append(m[1], ms(r.P50)), append(m[2], ms(r.P99)), append(m[3], r.CPUPerReq())
	}
	return med{median(m[0]), median(m[1]), median(m[2]), median(m[3])}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func kb(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1000) }
