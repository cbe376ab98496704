package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// config is one load run.
type config struct {
	URL, APIKey string
	Clients     int           // concurrent clients
	Requests    int           // requests of the mix, in all
	Timeout     time.Duration // the whole run, setup and checks included
	Tag         string        // makes the setup's names unique
}

// routeStats are the outcomes of one route.
type routeStats struct {
	Route      string
	Count      int
	Unexpected int // a status outside the route's expectation, or no answer
	Other      int // expected statuses other than 200 (409, 423: contention)
	P50, P99   time.Duration
}

// report is what a run measured.
type report struct {
	Requests   int
	Elapsed    time.Duration
	Routes     []routeStats
	Unexpected int
	Problems   []string // unexpected answers (the first few) and failed write checks
}

// RPS is the requests per second of the mix.
func (r report) RPS() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

// run sets up, sends cfg.Requests requests of the mix from cfg.Clients clients, and checks
// the writes.
func run(ctx context.Context, cfg config) (report, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	c := newClient(cfg.URL, cfg.APIKey, cfg.Clients)
	f, err := setup(ctx, c, cfg.Tag)
	if err != nil {
		return report{}, fmt.Errorf("setup: %w", err)
	}
	ops := f.ops(c)
	var wheel []int // op of each slot of the mix
	for i, o := range ops {
		for range o.weight {
			wheel = append(wheel, i)
		}
	}

	results := make([]result, cfg.Requests)
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	note := func(p string) {
		mu.Lock()
		if len(problems) < 20 {
			problems = append(problems, p)
		}
		mu.Unlock()
	}
	start := time.Now()
	for range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= cfg.Requests || ctx.Err() != nil {
					return
				}
				oi := wheel[i%len(wheel)]
				o := ops[oi]
				t := time.Now()
				status, body, err := o.call(ctx, i)
				results[i] = result{op: oi, status: status, took: time.Since(t), err: err}
				switch {
				case err != nil:
					note(fmt.Sprintf("%s: %v", o.route, err))
				case !slices.Contains(o.expect, status):
					results[i].err = fmt.Errorf("status %d", status)
					note(fmt.Sprintf("%s: unexpected %d %.300s", o.route, status, body))
				case status == 200 && o.record != nil:
					if err := o.record(i, status, body); err != nil {
						results[i].err = err
						note(fmt.Sprintf("%s: %v", o.route, err))
					}
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		return report{}, fmt.Errorf("the run did not finish within %s", cfg.Timeout)
	}
	rep := summarize(ops, results, elapsed)
	rep.Problems = append(problems, f.verify(ctx, c)...)
	return rep, nil
}

func summarize(ops []op, results []result, elapsed time.Duration) report {
	rep := report{Requests: len(results), Elapsed: elapsed}
	took := make([][]time.Duration, len(ops))
	stats := make([]routeStats, len(ops))
	for i, o := range ops {
		stats[i].Route = o.route
	}
	for _, r := range results {
		s := &stats[r.op]
		s.Count++
		took[r.op] = append(took[r.op], r.took)
		switch {
		case r.err != nil:
			s.Unexpected++
			rep.Unexpected++
		case r.status != 200:
			s.Other++
		}
	}
	for i := range stats {
		ts := took[i]
		if len(ts) == 0 {
			continue
		}
		slices.Sort(ts)
		stats[i].P50 = ts[len(ts)/2]
		stats[i].P99 = ts[min(len(ts)-1, len(ts)*99/100)]
	}
	rep.Routes = stats
	return rep
}

// print writes the report as a table.
func (r report) print(w io.Writer, cfg config) {
	fmt.Fprintf(w, "%d requests, %d clients, %.2f s: %.0f requests/s, %d unexpected\n",
		r.Requests, cfg.Clients, r.Elapsed.Seconds(), r.RPS(), r.Unexpected)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "route\tcount\tp50 ms\tp99 ms\tbusy\tunexpected\t")
	for _, s := range r.Routes {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%d\t%d\t\n", s.Route, s.Count,
			float64(s.P50.Microseconds())/1000, float64(s.P99.Microseconds())/1000, s.Other, s.Unexpected)
	}
	tw.Flush()
	for _, p := range r.Problems {
		fmt.Fprintln(w, "problem:", p)
	}
}
