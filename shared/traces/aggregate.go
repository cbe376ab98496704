package traces

import (
	"math"
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// metricCount is the system metric every search reports besides the write model's
// (records.MetricLatency, MetricTotalTokens, MetricTotalCost).
const metricCount = "count"

// metricSpec is one metric a search reports and how it rolls up.
type metricSpec struct {
	name   string
	method string // average, sum, max, min, category_count, percentage_true, percentage_false
}

// metricsFor lists the metrics a search over run reports: the system metrics, then one per
// scorer of the run's settings by its roll-up method (as the column catalog states it).
func metricsFor(run store.Run) []metricSpec {
	out := []metricSpec{{records.MetricLatency, "average"}, {records.MetricTotalTokens, "sum"}, {records.MetricTotalCost, "sum"}}
	seen := map[string]bool{metricCount: true, records.MetricLatency: true, records.MetricTotalTokens: true, records.MetricTotalCost: true}
	for _, cfg := range run.Scorers {
		col := columns.Metric(cfg)
		name := cfg.MetricKey()
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, metricSpec{name, *col.RollUpMethod})
	}
	return out
}

// stat folds the values of one metric in one cell, exactly (shared/fixed), so that the scan
// path and the roll-up path answer the same numbers whatever the order of the values.
type stat struct {
	n        int64
	sum      fixed.Value
	min, max fixed.Value
	cats     map[string]int64
}

// observe folds one value in; a value no sum can hold (never accepted since the bound was
// set) is left out.
func (s *stat) observe(f float64) {
	v, err := fixed.FromFloat(f)
	if err != nil {
		return
	}
	s.observeFixed(v)
}

func (s *stat) observeFixed(v fixed.Value) {
	if s.n == 0 || v.Cmp(s.min) < 0 {
		s.min = v
	}
	if s.n == 0 || v.Cmp(s.max) > 0 {
		s.max = v
	}
	s.n++
	s.sum = s.sum.MustAdd(v)
}

// merge folds o (of the same metric) into s.
func (s *stat) merge(o stat) {
	if o.n > 0 {
		if s.n == 0 || o.min.Cmp(s.min) < 0 {
			s.min = o.min
		}
		if s.n == 0 || o.max.Cmp(s.max) > 0 {
			s.max = o.max
		}
		s.n += o.n
		s.sum = s.sum.MustAdd(o.sum)
	}
	for c, n := range o.cats {
		s.category(c, n)
	}
}

func (s *stat) category(c string, n int64) {
	if s.cats == nil {
		s.cats = map[string]int64{}
	}
	s.cats[c] += n
}

func (s *stat) mergeRollup(m *store.RollupMetric) {
	o := stat{cats: m.Categories}
	if m.N > 0 && m.Min != nil && m.Max != nil {
		o.n, o.sum, o.min, o.max = m.N, m.Sum, *m.Min, *m.Max
	}
	s.merge(o)
}

// value is the roll-up of s by method; nil when s holds nothing the method can use.
func (s *stat) value(method string) any {
	switch method {
	case "average":
		if s.n > 0 {
			return s.sum.Quo(s.n)
		}
	case "sum":
		if s.n > 0 {
			return s.sum.Float64()
		}
	case "min":
		if s.n > 0 {
			return s.min.Float64()
		}
	case "max":
		if s.n > 0 {
			return s.max.Float64()
		}
	case methodExternal:
		if s.n > 0 {
			return s.sum.Quo(s.n)
		}
		return s.value("category_count")
	case "category_count":
		if len(s.cats) > 0 {
			out := make(map[string]int64, len(s.cats))
			for c, n := range s.cats {
				out[c] = n
			}
			return out
		}
	case "percentage_true", "percentage_false":
		t, f := s.cats["true"], s.cats["false"]
		if t+f > 0 {
			if method == "percentage_true" {
				return float64(t) / float64(t+f)
			}
			return float64(f) / float64(t+f)
		}
	}
	return nil
}

// cell is what one bucket (or the whole range) of one group holds.
type cell struct {
	count int64
	stats []stat // by metric index
}

// group holds one group value's cells: one per bucket, allocated on first use, and the total.
type group struct {
	buckets []*cell
	total   cell
}

// aggregator folds traces (scan path) or roll-ups (roll-up path) into buckets and groups.
// Its memory is bounded by buckets × groups × metrics, not by the number of traces.
type aggregator struct {
	start    time.Time
	end      time.Time
	interval time.Duration
	nBuckets int
	metrics  []metricSpec
	index    map[string]int // metric name → index in metrics
	groups   map[string]*group
	errors   map[int64]store.ScorerError
}

func newAggregator(start, end time.Time, interval time.Duration, metrics []metricSpec) *aggregator {
	a := &aggregator{start: start, end: end, interval: interval, metrics: metrics,
		nBuckets: bucketCount(start, end, interval), index: map[string]int{},
		groups: map[string]*group{}, errors: map[int64]store.ScorerError{}}
	for i, m := range metrics {
		a.index[m.name] = i
	}
	return a
}

// bucketCount is the number of interval buckets [start, end) splits into; the last may be short.
func bucketCount(start, end time.Time, interval time.Duration) int {
	d := end.Sub(start)
	return int((d + interval - 1) / interval)
}

// cells returns the bucket cell and the total cell of group value g for time ts; false when
// ts is outside the range (never for what the range queries return; a guard all the same).
func (a *aggregator) cells(g string, ts time.Time) (*cell, *cell, bool) {
	i := int(ts.Sub(a.start) / a.interval)
	if ts.Before(a.start) || !ts.Before(a.end) || i >= a.nBuckets {
		return nil, nil, false
	}
	gr := a.groups[g]
	if gr == nil {
		gr = &group{buckets: make([]*cell, a.nBuckets), total: cell{stats: make([]stat, len(a.metrics))}}
		a.groups[g] = gr
	}
	c := gr.buckets[i]
	if c == nil {
		c = &cell{stats: make([]stat, len(a.metrics))}
		gr.buckets[i] = c
	}
	return c, &gr.total, true
}

// addTrace folds one trace into group g.
func (a *aggregator) addTrace(g string, tr *store.Trace) {
	b, t, ok := a.cells(g, tr.CreatedAt)
	if !ok {
		return
	}
	for _, c := range []*cell{b, t} {
		c.count++
		for i, m := range a.metrics {
			switch m.name {
			case records.MetricLatency:
				if tr.LatencyMs != nil {
					c.stats[i].observe(*tr.LatencyMs)
				}
			case records.MetricTotalTokens:
				if tr.TotalTokens != nil {
					c.stats[i].observe(float64(*tr.TotalTokens))
				}
			case records.MetricTotalCost:
				if tr.TotalCost != nil {
					c.stats[i].observe(*tr.TotalCost)
				}
			default:
				v, ok := tr.Metrics[m.name]
				switch {
				case !ok:
				case v.Number != nil:
					c.stats[i].observe(*v.Number)
				case v.Category != nil:
					c.stats[i].category(*v.Category, 1)
				case v.Bool != nil:
					c.stats[i].category(strconv.FormatBool(*v.Bool), 1)
				}
			}
		}
	}
}

// addErrors records the scorer errors of a trace that passed the filters.
func (a *aggregator) addErrors(tr *store.Trace) {
	for _, v := range tr.Metrics {
		if v.Error != nil {
			a.errors[v.Error.Code] = *v.Error
		}
	}
}

// addRollup folds one roll-up row into group g.
func (a *aggregator) addRollup(g string, r store.Rollup) {
	b, t, ok := a.cells(g, r.Minute)
	if !ok {
		return
	}
	for _, c := range []*cell{b, t} {
		c.count += r.Count
		for name, m := range r.Metrics {
			if i, ok := a.index[name]; ok {
				c.stats[i].mergeRollup(m)
			}
		}
	}
	for code, e := range r.Errors {
		a.errors[code] = e.Last
	}
}

// round keeps sums of fixed-point roll-ups and float scans comparable in answers.
func round(v any) any {
	if f, ok := v.(float64); ok && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return math.Round(f*1e9) / 1e9
	}
	return v
}
