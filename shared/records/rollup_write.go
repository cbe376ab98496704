package records

import (
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/store"
)

// bucket names one roll-up item of a run: its level, its group column and value, its minute.
type bucket struct {
	level        store.RollupLevel
	group, value string
	minute       time.Time
}

// bucketOf is the bucket of a roll-up delta.
func bucketOf(d store.Rollup) bucket { return bucket{d.Level, d.Group, d.Value, d.Minute} }

// rollupDeltas folds traces into one delta per roll-up item they touch: the totals of their
// minute and of their hour, and one row per group column and value of each. Folding first keeps a request to one
// update per item however many of its traces share it.
func rollupDeltas(traces []store.Trace) []store.Rollup {
	byKey := map[bucket]*store.Rollup{}
	var order []bucket
	var buf []string
	for i := range traces {
		tr := &traces[i]
		fold := func(group, value string) {
			for _, level := range []store.RollupLevel{store.RollupMinute, store.RollupHour} {
				minute := tr.CreatedAt.UTC().Truncate(level.Period())
				k := bucket{level, group, value, minute}
				r := byKey[k]
				if r == nil {
					r = &store.Rollup{Level: level, Minute: minute, Group: group, Value: value}
					byKey[k] = r
					order = append(order, k)
				}
				foldTrace(r, tr)
			}
		}
		fold(store.RollupAll, "")
		for _, id := range RollupColumns {
			col, _ := columns.Lookup(id)
			buf = GroupValues(tr, col, buf)
			for _, v := range buf {
				fold(id, v)
			}
		}
	}
	out := make([]store.Rollup, len(order))
	for i, k := range order {
		out[i] = *byKey[k]
	}
	return out
}

// Rollups are the roll-up items traces make on their own, at every level, group and value:
// what recomputing a bucket from its traces yields. The fault matrix holds the stored
// extremes to them.
func Rollups(traces []store.Trace) []store.Rollup { return rollupDeltas(traces) }

// Dedupe drops repeated values (a trace tagged twice with one tag counts once in its group).
func Dedupe(vs []string) []string {
	if len(vs) < 2 {
		return vs
	}
	seen := make(map[string]bool, len(vs))
	out := vs[:0]
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func foldTrace(r *store.Rollup, tr *store.Trace) {
	r.Count++
	num := func(name string, f float64) {
		if v, err := fixed.FromFloat(f); err == nil { // always, for values within the bound
			r.Metric(name).Observe(v)
		}
	}
	cat := func(name, c string) {
		m := r.Metric(name)
		if m.Categories == nil {
			m.Categories = map[string]int64{}
		}
		m.Categories[c]++
	}
	if tr.LatencyMs != nil {
		num(MetricLatency, *tr.LatencyMs)
	}
	if tr.TotalTokens != nil {
		num(MetricTotalTokens, float64(*tr.TotalTokens))
	}
	if tr.TotalCost != nil {
		num(MetricTotalCost, *tr.TotalCost)
	}
	for name, v := range tr.Metrics {
		switch {
		case v.Number != nil:
			num(name, *v.Number)
		case v.Category != nil:
			cat(name, *v.Category)
		case v.Bool != nil:
			cat(name, strconv.FormatBool(*v.Bool))
		case v.Error != nil:
			if r.Errors == nil {
				r.Errors = map[int64]store.RollupError{}
			}
			e := r.Errors[v.Error.Code]
			e.Count++
			e.Last = *v.Error
			r.Errors[v.Error.Code] = e
		}
	}
}
