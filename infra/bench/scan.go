package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/evalobs/evalapi/infra/demo"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/app/local"
	"github.com/evalobs/evalapi/shared/store"
)

// scanQuery is one metrics search of the comparison.
type scanQuery struct {
	name   string
	filter string // `input contains` this (case-sensitive), or "" for none
	ours   []float64
	duck   []float64
	result map[string]any // our aggregate_metrics
}

// benchScan runs `make bench-scan`: see docs/PERFORMANCE.md. Ours is timed in this
// process, as DuckDB is in its own: the request is built first, the timer starts just
// before the router's ServeHTTP (the whole handler: decode, validate, authorize with a
// cached API key, plan, read, fold, encode) and stops when it returns, the answer's JSON
// written. DuckDB's timer (duckdb_scan.py) starts before execute and stops after fetchall.
// Both are warm: one unmeasured run first, then the median of -runs.
func benchScan(ctx context.Context, root string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench scan", flag.ContinueOnError)
	n := fs.Int("traces", 200_000, "traces over 24 h, from the demo generator (infra/demo)")
	runs := fs.Int("runs", 5, "measured runs per query and engine (the median is reported)")
	needle := fs.String("contains", "password", "the text of the scan path's `input contains` filter")
	python := fs.String("python", filepath.Join(root, ".cache", "bench-venv", "bin", "python"),
		"a Python with duckdb (infra/scripts/duckdb-venv.sh makes this one)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of our measured runs (both queries) to this file")
	keep := fs.Bool("keep", false, "keep the temporary directory (store, NDJSON, Parquet)")
	reuse := fs.String("dir", "", "a directory to keep the store, NDJSON and Parquet in, and to reuse them from on the next run with the same -traces (for profiling; ingest is skipped)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tmp, cleanup, err := tempDir("evalapi-bench-scan-", *keep, out)
	if *reuse != "" {
		tmp, cleanup, err = *reuse, func() {}, os.MkdirAll(*reuse, 0o755)
	}
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Fprintf(out, "load average before: %s\n", loadAvg())
	duckErr := duckdbAvailable(ctx, *python)
	if duckErr != nil {
		fmt.Fprintf(out, "DuckDB side skipped: %v\n  (install it with: bash infra/scripts/duckdb-venv.sh; or pass -python)\n", duckErr)
	}

	env := map[string]string{"ADMIN_EMAIL": "bench-admin@example.com"}
	getenv := func(k string) string { return env[k] }
	cfg, err := app.ReadConfig(app.Local, getenv)
	if err != nil {
		return err
	}
	d, closeDeps, err := local.Open(ctx, cfg, app.JSONLogger(io.Discard, slog.LevelError), local.Options{DataDir: filepath.Join(tmp, "data")})
	if err != nil {
		return err
	}
	defer closeDeps()
	defer d.Auth.Wait()
	ndjson := filepath.Join(tmp, "traces.ndjson")
	saved, err := loadSaved(tmp, *n)
	if err != nil {
		return err
	}
	if saved == nil {
		if saved, err = ingest(ctx, d, getenv, *n, out); err != nil {
			return err
		}
		if err := exportTraces(ctx, d.Table, saved.Result, ndjson); err != nil {
			return err
		}
		if *reuse != "" {
			if err := saveSaved(tmp, saved); err != nil {
				return err
			}
		}
	}
	res, m := saved.Result, []string{"", saved.APIKey}

	var registers []app.Register
	for _, g := range groups.All() {
		registers = append(registers, g.Register)
	}
	router := app.NewRouter(d, registers...)
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	queries := []*scanQuery{{name: "24 h / 5 min, roll-up path (no filter)"}, {name: "same with `input contains`, scan path", filter: *needle}}
	for _, q := range queries {
		body := map[string]any{"log_stream_id": res.LogStreamID, "interval": 5,
			"start_time": res.From.Format(time.RFC3339), "end_time": res.To.Format(time.RFC3339)}
		if q.filter != "" {
			body["filters"] = []map[string]any{{"type": "text", "name": "input", "operator": "contains", "value": q.filter}}
		}
		raw, _ := json.Marshal(body)
		for i := range *runs + 1 {
			req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v2/projects/"+res.ProjectID+"/metrics/search", bytes.NewReader(raw))
			req.Header.Set("Service-API-Key", m[1])
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			t0 := time.Now()
			router.ServeHTTP(rec, req)
			took := time.Since(t0)
			if rec.Code != http.StatusOK {
				return fmt.Errorf("metrics search %s: %d %s", raw, rec.Code, rec.Body.Bytes())
			}
			if i == 0 { // warm-up
				var resp struct {
					Aggregate map[string]any `json:"aggregate_metrics"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
					return err
				}
				q.result = resp.Aggregate
				continue
			}
			q.ours = append(q.ours, ms(took))
		}
	}
	fmt.Fprintf(out, "load average after ours: %s\n", loadAvg())

	if duckErr == nil {
		if err := runDuckDB(ctx, root, *python, ndjson, filepath.Join(tmp, "traces.parquet"), res.From, res.To, *runs, queries, out); err != nil {
			return err
		}
		fmt.Fprintf(out, "load average after DuckDB: %s\n", loadAvg())
	}
	fmt.Fprintf(out, "\nWarm runs, median of %d, %d traces over 24 h, 5-minute buckets (288):\n\n", *runs, res.Traces)
	fmt.Fprintln(out, "| query | ours | DuckDB on Parquet | ratio ours/DuckDB |")
	fmt.Fprintln(out, "|---|---|---|---|")
	for _, q := range queries {
		o := median(q.ours)
		rate := fmt.Sprintf(" (%.0f traces/s)", float64(res.Traces)/(o/1000))
		if q.filter == "" {
			rate = "" // the roll-ups are read, not the traces
		}
		if duckErr != nil {
			fmt.Fprintf(out, "| %s | %.1f ms%s | skipped | – |\n", q.name, o, rate)
			continue
		}
		dd := median(q.duck)
		fmt.Fprintf(out, "| %s | %.1f ms%s | %.1f ms | %.1f× |\n", q.name, o, rate, dd, o/dd)
	}
	return nil
}

// savedScan is what a kept directory (-dir) holds beside the store: enough to query it again.
type savedScan struct {
	Result demo.Result
	APIKey string // the bench's own admin key, in a directory the bench made
}

func loadSaved(dir string, traces int) (*savedScan, error) {
	b, err := os.ReadFile(filepath.Join(dir, "scan.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s savedScan
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	if s.Result.Traces != traces {
		return nil, fmt.Errorf("%s holds %d traces, not %d: use another -dir", dir, s.Result.Traces, traces)
	}
	return &s, nil
}

func saveSaved(dir string, s *savedScan) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "scan.json"), b, 0o600)
}

// ingest bootstraps the store's admin and loads n demo traces.
func ingest(ctx context.Context, d app.Deps, getenv func(string) string, n int, out io.Writer) (*savedScan, error) {
	var boot bytes.Buffer
	if err := local.Bootstrap(ctx, d, getenv, &boot); err != nil {
		return nil, err
	}
	m := apiKeyLine.FindStringSubmatch(boot.String())
	if m == nil {
		return nil, errors.New("bootstrap printed no API key")
	}
	admin, _, err := store.UserByEmail(ctx, d.Table, getenv("ADMIN_EMAIL"))
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	res, err := demo.Load(ctx, d.Table, admin.OrgID, admin.ID, demo.Options{Traces: n, Seed: 1, Progress: os.Stderr})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "ingested %d demo traces over %s .. %s into the embedded store in %.1f s (not part of the comparison)\n",
		res.Traces, res.From.Format(time.RFC3339), res.To.Format(time.RFC3339), time.Since(t0).Seconds())
	return &savedScan{Result: res, APIKey: m[1]}, nil
}

// traceRow is one trace as a Parquet row: the columns the search reads, and the texts.
type traceRow struct {
	ID          string   `json:"id"`
	SessionID   *string  `json:"session_id"`
	CreatedAt   string   `json:"created_at"` // UTC, as a TIMESTAMP literal
	Type        string   `json:"type"`
	Name        string   `json:"name"`
	Input       string   `json:"input"`
	Output      string   `json:"output"`
	Tags        []string `json:"tags"`
	StatusCode  *int64   `json:"status_code"`
	Model       *string  `json:"model"`
	Provider    *string  `json:"provider"`
	LatencyMs   *float64 `json:"latency_ms"`
	TotalTokens *int64   `json:"total_tokens"`
	TotalCost   *float64 `json:"total_cost"`
	Correctness *float64 `json:"correctness"`
	CorrErr     *int64   `json:"correctness_error_code"`
	Toxicity    *bool    `json:"toxicity"`
	Tone        *string  `json:"tone"`
}

// exportTraces writes the traces the store holds (read back, so both engines see the very
// same values) as NDJSON, which duckdb_scan.py turns into Parquet.
func exportTraces(ctx context.Context, t store.Table, res demo.Result, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	err = store.ScanTraces(ctx, t, res.LogStreamID, res.From, res.To, store.ScanOptions{Content: true}, func(tr *store.Trace) error {
		r := traceRow{ID: tr.ID, SessionID: tr.SessionID, CreatedAt: tr.CreatedAt.UTC().Format("2006-01-02 15:04:05.999999"),
			Type: tr.Type, Name: tr.Name, Input: tr.Input.Text(), Output: tr.Output.Text(), Tags: tr.Tags, StatusCode: tr.StatusCode,
			Model: tr.Model, Provider: tr.Provider, LatencyMs: tr.LatencyMs, TotalTokens: tr.TotalTokens, TotalCost: tr.TotalCost}
		if v := tr.Metrics["correctness"]; v.Error != nil {
			r.CorrErr = &v.Error.Code
		} else {
			r.Correctness = v.Number
		}
		r.Toxicity, r.Tone = tr.Metrics["toxicity"].Bool, tr.Metrics["tone"].Category
		return enc.Encode(r)
	})
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// duckdbAvailable says why python cannot import duckdb, or nil.
func duckdbAvailable(ctx context.Context, python string) error {
	out, err := exec.CommandContext(ctx, python, "-c", "import duckdb; print(duckdb.__version__)").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s cannot import duckdb: %v %s", python, err, bytes.TrimSpace(out))
	}
	return nil
}

// duckResult is what duckdb_scan.py prints.
type duckResult struct {
	Version string `json:"version"`
	Threads string `json:"threads"`
	Parquet int64  `json:"parquet_bytes"`
	Rows    int64  `json:"rows"`
	Queries []struct {
		Times     []float64      `json:"times_ms"`
		Aggregate map[string]any `json:"aggregate"`
		Buckets   int            `json:"buckets"`
	} `json:"queries"`
}

// runDuckDB converts the NDJSON to Parquet and times the queries' SQL (duckdb_scan.py),
// then checks that both engines computed the same aggregates.
func runDuckDB(ctx context.Context, root, python, ndjson, parquet string, from, to time.Time, runs int, qs []*scanQuery, out io.Writer) error {
	spec := map[string]any{"ndjson": ndjson, "parquet": parquet, "runs": runs, "interval_minutes": 5,
		"start": from.UTC().Format("2006-01-02 15:04:05"), "end": to.UTC().Format("2006-01-02 15:04:05")}
	var filters []string
	for _, q := range qs {
		filters = append(filters, q.filter)
	}
	spec["filters"] = filters
	raw, _ := json.Marshal(spec)
	cmd := exec.CommandContext(ctx, python, filepath.Join(root, "infra", "bench", "duckdb_scan.py"))
	cmd.Stdin = bytes.NewReader(raw)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("duckdb_scan.py: %w", err)
	}
	var res duckResult
	if err := json.Unmarshal(b, &res); err != nil {
		return fmt.Errorf("duckdb_scan.py answered %q: %w", b, err)
	}
	fmt.Fprintf(out, "DuckDB %s, %s threads, Parquet %d rows, %d bytes\n", res.Version, res.Threads, res.Rows, res.Parquet)
	for i, q := range qs {
		q.duck = res.Queries[i].Times
		if diff := compareAggregates(q.result, res.Queries[i].Aggregate); diff != "" {
			return fmt.Errorf("%s: the engines disagree: %s", q.name, diff)
		}
		fmt.Fprintf(out, "%s: same aggregates from both engines (count %v)\n", q.name, q.result["count"])
	}
	return nil
}
