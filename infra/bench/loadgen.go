package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

// target is one request the generator repeats, and what a good answer is.
type target struct {
	url     string
	header  http.Header
	wantLen int // body length of a good answer (the captured one)
}

// runStats are one load run against one server.
type runStats struct {
	Requests int           // answered 200 with the expected length
	Errors   int           // anything else
	FirstErr string        // the first error, for the report
	Elapsed  time.Duration // wall time of the run
	P50, P99 time.Duration
	CPU      time.Duration // server process CPU over the run
}

func (r runStats) RPS() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

// CPUPerReq is the server's CPU time per good request, in µs.
func (r runStats) CPUPerReq() float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(r.CPU.Microseconds()) / float64(r.Requests)
}

// newLoadClient keeps one connection per worker alive, and asks for no compression (neither
// server compresses; the header would be one more thing to differ).
func newLoadClient(conns int) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: conns, MaxIdleConnsPerHost: conns, DisableCompression: true, IdleConnTimeout: time.Minute}}
}

// load is a closed loop: c workers each send t's request, read the whole answer, and send
// the next, until d has passed (a request under way at d is finished and counted). One
// request's latency starts just before client.Do and stops once its body is read to EOF.
// The run's wall time starts when the workers are released and stops when the last one
// returns; the server's CPU is read from /proc before the release and after the return.
func load(ctx context.Context, c *http.Client, t target, workers int, d time.Duration, server *proc) (runStats, error) {
	lats := make([][]time.Duration, workers)
	errs := make([]int, workers)
	var firstErr string
	var mu sync.Mutex
	noteErr := func(w int, msg string) {
		errs[w]++
		mu.Lock()
		if firstErr == "" {
			firstErr = msg
		}
		mu.Unlock()
	}
	cpu0, err := server.cpu()
	if err != nil {
		return runStats{}, err
	}
	var wg sync.WaitGroup
	start := time.Now()
	stopAt := start.Add(d)
	for w := range workers {
		lats[w] = make([]time.Duration, 0, 4096)
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url, nil)
			if err != nil {
				noteErr(w, err.Error())
				return
			}
			req.Header = t.header.Clone()
			for time.Now().Before(stopAt) && ctx.Err() == nil {
				t0 := time.Now()
				resp, err := c.Do(req)
				if err != nil {
					noteErr(w, err.Error())
					continue
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				took := time.Since(t0)
				switch {
				case err != nil:
					noteErr(w, err.Error())
				case resp.StatusCode != http.StatusOK || int(n) != t.wantLen:
					noteErr(w, fmt.Sprintf("status %d, %d bytes (want 200, %d bytes)", resp.StatusCode, n, t.wantLen))
				default:
					lats[w] = append(lats[w], took)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, err := server.cpu()
	if err != nil {
		return runStats{}, err
	}
	all := slices.Concat(lats...)
	slices.Sort(all)
	r := runStats{Requests: len(all), Elapsed: elapsed, CPU: cpu1 - cpu0, FirstErr: firstErr,
		P50: percentile(all, 50), P99: percentile(all, 99)}
	for _, n := range errs {
		r.Errors += n
	}
	return r, ctx.Err()
}

// percentile is the nearest-rank p-th percentile of sorted (0 when empty).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 × n), 1-based
	return sorted[max(rank, 1)-1]
}

// median is the middle value (the mean of the two middle ones for an even count).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}
