package signals

import (
	"context"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/store"
)

// Sampling bounds (docs/SIGNALS.md, "Which traces a run reads").
const (
	DefaultMaxScan     = 20000          // trace headers a run scans at most; the rest waits for the next run
	DefaultSampleSize  = 40             // traces whose content the model sees
	DefaultFirstWindow = 24 * time.Hour // a first run looks this far back
	lowScore           = 0.5            // a numeric metric below this is a low score
)

// header is what the scan keeps of each trace: enough to rank it, not its content.
type header struct {
	id        string
	createdAt time.Time
	failed    bool
	lowScore  float64 // the lowest numeric metric; 2 when none is low
	latency   float64
	cost      float64
}

func headerOf(tr *store.Trace) header {
	h := header{id: tr.ID, createdAt: tr.CreatedAt, lowScore: 2}
	h.failed = tr.ErrorMessage != nil || (tr.StatusCode != nil && *tr.StatusCode >= 400)
	for _, m := range tr.Metrics {
		switch {
		case m.Error != nil:
			h.failed = true
		case m.Number != nil && *m.Number < lowScore && *m.Number < h.lowScore:
			h.lowScore = *m.Number
		case m.Bool != nil && !*m.Bool && h.lowScore > 0:
			h.lowScore = 0
		}
	}
	if tr.LatencyMs != nil {
		h.latency = *tr.LatencyMs
	}
	if tr.TotalCost != nil {
		h.cost = *tr.TotalCost
	}
	return h
}

// window is what the scan of a run's window found.
type window struct {
	from, to  time.Time
	scanned   int64
	truncated bool
	sample    []header
}

var errScanFull = errors.New("scan bound reached")

// scanWindow reads the headers of the run's traces created in [from, to), at most maxScan of
// them (then `to` moves to just after the last one read, and the rest is the next run's), and
// picks the sample.
func scanWindow(ctx context.Context, t store.Table, runID string, from, to time.Time, maxScan, size int, seed string) (window, error) {
	w := window{from: from, to: to}
	var all []header
	err := store.ScanTraces(ctx, t, runID, from, to, store.ScanOptions{}, func(tr *store.Trace) error {
		if len(all) == maxScan {
			w.truncated, w.to = true, tr.CreatedAt.UTC()
			return errScanFull
		}
		all = append(all, headerOf(tr))
		return nil
	})
	if err != nil && !errors.Is(err, errScanFull) {
		return window{}, err
	}
	w.scanned = int64(len(all))
	w.sample = pickSample(all, size, seed)
	return w, nil
}

// pickSample chooses up to size traces: a fifth each of the failed ones (newest first), the
// lowest scored, the slowest and the costliest, then random ones (seeded by the run id, so a
// retried run picks the same) until size; each trace once. Returned oldest first.
func pickSample(all []header, size int, seed string) []header {
	if len(all) <= size {
		return all
	}
	chosen := map[int]bool{}
	var out []header
	take := func(idx []int, n int) {
		for _, i := range idx {
			if n == 0 || len(out) == size {
				return
			}
			if !chosen[i] {
				chosen[i] = true
				out = append(out, all[i])
				n--
			}
		}
	}
	quota := max(size/5, 1)
	ranked := func(keep func(header) bool, less func(a, b header) bool) []int {
		var idx []int
		for i, h := range all {
			if keep(h) {
				idx = append(idx, i)
			}
		}
		sort.SliceStable(idx, func(a, b int) bool { return less(all[idx[a]], all[idx[b]]) })
		return idx
	}
	take(ranked(func(h header) bool { return h.failed }, func(a, b header) bool { return a.createdAt.After(b.createdAt) }), quota)
	take(ranked(func(h header) bool { return h.lowScore < lowScore }, func(a, b header) bool { return a.lowScore < b.lowScore }), quota)
	take(ranked(func(h header) bool { return h.latency > 0 }, func(a, b header) bool { return a.latency > b.latency }), quota)
	take(ranked(func(h header) bool { return h.cost > 0 }, func(a, b header) bool { return a.cost > b.cost }), quota)
	hs := fnv.New64a()
	hs.Write([]byte(seed))
	rng := rand.New(rand.NewPCG(hs.Sum64(), 0x5167))
	take(rng.Perm(len(all)), size)
	sort.SliceStable(out, func(a, b int) bool { return out[a].createdAt.Before(out[b].createdAt) })
	return out
}

// loadSample reads the sampled traces with their content (offloaded content resolved).
func loadSample(ctx context.Context, t store.Table, ps payload.Store, runID string, sample []header) ([]store.Trace, error) {
	keys := make([]store.Key, len(sample))
	for i, h := range sample {
		keys[i] = store.TraceKey(runID, h.createdAt, h.id)
	}
	items, err := t.BatchGet(ctx, keys, false)
	if err != nil {
		return nil, err
	}
	byID := map[string]store.Trace{}
	for _, it := range items {
		var tr store.Trace
		if err := store.DecodeTrace(it, &tr); err != nil {
			return nil, err
		}
		if err := store.DecodeTraceContent(it, &tr); err != nil {
			return nil, err
		}
		if ps != nil {
			if err := payload.Resolve(ctx, ps, &tr.RecordContent); err != nil {
				return nil, err
			}
		}
		byID[tr.ID] = tr
	}
	out := make([]store.Trace, 0, len(sample))
	for _, h := range sample {
		if tr, ok := byID[h.id]; ok {
			out = append(out, tr)
		}
	}
	return out, nil
}
