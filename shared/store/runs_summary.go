package store

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
)

// Run summaries: one item per run (RUN#<run id> | SUMMARY) with its trace counts and the
// statistics of every metric, laid out like a roll-up so that writers fold into it with
// atomic ADDs (alone, or as one action of the transaction that stores the traces) and never
// read it first:
//
//	num_traces, num_spans, num_sessions  counts
//	mc#<metric>            numeric values observed
//	s0#, s1#, s2#<metric>  their exact sum in three limbs, as in roll-ups (a legacy ms#<metric>,
//	                       in millionths, still reads)
//	mn#<metric>, mx#<metric>  min and max as exact decimal text, kept by compare-and-set (extremes.go)
//	k#<metric>#<category>  categorical values per category
//	updated_at             time of the last write
//
// Metric names and categories are query-escaped in attribute names, as in roll-ups.

// EntityRunSummary names the run summary records.
const EntityRunSummary = "run_summary"

// RunSummaryKey is the key of the summary of a run.
func RunSummaryKey(runID string) Key { return Key{PK: "RUN#" + runID, SK: "SUMMARY"} }

// RunSummary is what a run's list entry shows without reading its traces: counts and
// per-metric statistics, kept current by the writers of traces.
type RunSummary struct {
	RunID       string `json:"run_id"`
	NumTraces   int64  `json:"num_traces"`
	NumSpans    int64  `json:"num_spans"`
	NumSessions int64  `json:"num_sessions"`
	// Metrics is keyed by metric name: the scorer's name for scorer metrics, and
	// "latency_ms", "total_tokens", "total_cost" for the system metrics.
	Metrics   map[string]MetricStats `json:"metrics"`
	UpdatedAt time.Time              `json:"updated_at"`
}

// MetricStats are the statistics of one metric over a run: numeric values fold into
// Count, Sum, Min and Max; categorical values count per category in Categories (Count
// counts them too). Sums are exact (shared/fixed).
type MetricStats struct {
	Count      int64            `json:"count"`
	Sum        fixed.Value      `json:"sum"`
	Min        *fixed.Value     `json:"min"`
	Max        *fixed.Value     `json:"max"`
	Categories map[string]int64 `json:"categories,omitempty"`
}

// Observe folds one numeric value into s.
func (s *MetricStats) Observe(v fixed.Value) {
	s.Count++
	s.Sum = s.Sum.MustAdd(v)
	if s.Min == nil || v.Cmp(*s.Min) < 0 {
		s.Min = &v
	}
	if s.Max == nil || v.Cmp(*s.Max) > 0 {
		s.Max = &v
	}
}

// Negated is what taking a summary delta's traces out adds: counts and sums negated, no
// min or max.
func (s RunSummary) Negated() RunSummary {
	out := RunSummary{RunID: s.RunID, NumTraces: -s.NumTraces, NumSpans: -s.NumSpans, NumSessions: -s.NumSessions,
		Metrics: map[string]MetricStats{}}
	for name, m := range s.Metrics {
		n := MetricStats{Count: -m.Count, Sum: m.Sum.Neg()}
		for c, k := range m.Categories {
			if n.Categories == nil {
				n.Categories = map[string]int64{}
			}
			n.Categories[c] = -k
		}
		out.Metrics[name] = n
	}
	return out
}

// Plus folds o into s (counts and sums; extremes are kept from either).
func (s *RunSummary) Plus(o RunSummary) {
	s.NumTraces += o.NumTraces
	s.NumSpans += o.NumSpans
	s.NumSessions += o.NumSessions
	if s.Metrics == nil {
		s.Metrics = map[string]MetricStats{}
	}
	for name, m := range o.Metrics {
		cur := s.Metrics[name]
		cur.Count += m.Count
		cur.Sum = cur.Sum.MustAdd(m.Sum)
		if m.Min != nil && (cur.Min == nil || m.Min.Cmp(*cur.Min) < 0) {
			cur.Min = m.Min
		}
		if m.Max != nil && (cur.Max == nil || m.Max.Cmp(*cur.Max) > 0) {
			cur.Max = m.Max
		}
		for c, k := range m.Categories {
			if cur.Categories == nil {
				cur.Categories = map[string]int64{}
			}
			cur.Categories[c] += k
		}
		s.Metrics[name] = cur
	}
}

// ObserveCategory folds one categorical value into s.
func (s *MetricStats) ObserveCategory(c string) {
	s.Count++
	if s.Categories == nil {
		s.Categories = map[string]int64{}
	}
	s.Categories[c]++
}

// numeric is the number of numeric values among Count.
func (s MetricStats) numeric() int64 {
	n := s.Count
	for _, c := range s.Categories {
		n -= c
	}
	return n
}

// RunSummaryUpdate is the additive part of folding delta into the run's summary, as one
// update (alone, or one action of a transaction): ADD of the counts and of the sums' limbs,
// SET of updated_at. Min and max are not in it:
// see RunSummaryExtremes.
func RunSummaryUpdate(runID string, delta RunSummary, now time.Time) Update {
	add := map[string]int64{"num_traces": delta.NumTraces, "num_spans": delta.NumSpans,
		"num_sessions": delta.NumSessions}
	for name, m := range delta.Metrics {
		// As in a roll-up: a replaced value moves the sum alone, a removed one both down.
		if n := m.numeric(); n != 0 || !m.Sum.IsZero() {
			add["mc#"+esc(name)] = n
			addSum(add, name, m.Sum)
		}
		for c, n := range m.Categories {
			add["k#"+esc(name)+"#"+esc(c)] = n
		}
	}
	set := map[string]any{AttrEntity: EntityRunSummary, "run_id": runID,
		"updated_at": now.UTC().Format(time.RFC3339Nano)}
	return Update{Key: RunSummaryKey(runID), Set: set, Add: add}
}

// RunSummaryExtremes are the min and max that delta brings to the run's summary.
func RunSummaryExtremes(delta RunSummary) []Extreme {
	var out []Extreme
	for name, m := range delta.Metrics {
		if m.Min != nil {
			out = append(out, Extreme{Attr: "mn#" + esc(name), Value: *m.Min, Min: true},
				Extreme{Attr: "mx#" + esc(name), Value: *m.Max})
		}
	}
	return out
}

// AddToRunSummary folds delta into the run's summary: one atomic update adds the counts
// and sums (concurrent writers never conflict), then a compare-and-set writes the min and
// max that delta improves. It is not idempotent: a caller must not fold the same traces
// twice (trace ingestion folds in the transaction that stores them instead).
func AddToRunSummary(ctx context.Context, t Table, runID string, delta RunSummary, now time.Time) error {
	u := RunSummaryUpdate(runID, delta, now)
	it, err := t.Update(ctx, u)
	if err != nil {
		return fmt.Errorf("add to summary of run %s: %w", runID, err)
	}
	if err := SetExtremes(ctx, t, u.Key, it, RunSummaryExtremes(delta)); err != nil {
		return fmt.Errorf("add to summary of run %s: %w", runID, err)
	}
	return nil
}

// GetRunSummaries reads the summaries of the runs with one batch read; a run with no
// trace yet has no entry.
func GetRunSummaries(ctx context.Context, t Table, runIDs []string) (map[string]RunSummary, error) {
	keys := make([]Key, len(runIDs))
	for i, id := range runIDs {
		keys[i] = RunSummaryKey(id)
	}
	items, err := t.BatchGet(ctx, keys, false)
	if err != nil {
		return nil, fmt.Errorf("read run summaries: %w", err)
	}
	out := make(map[string]RunSummary, len(items))
	for _, it := range items {
		s, err := ParseRunSummary(it)
		if err != nil {
			return nil, fmt.Errorf("read run summaries: %w", err)
		}
		out[s.RunID] = s
	}
	return out, nil
}

// ParseRunSummary reads a run summary item.
func ParseRunSummary(it Item) (RunSummary, error) {
	s := RunSummary{Metrics: map[string]MetricStats{}}
	s.RunID, _ = it["run_id"].(string)
	if at, ok := it["updated_at"].(string); ok {
		ts, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			return s, fmt.Errorf("run summary %v: updated_at: %w", it.Key(), err)
		}
		s.UpdatedAt = ts
	}
	s.NumTraces, _ = it["num_traces"].(int64)
	s.NumSpans, _ = it["num_spans"].(int64)
	s.NumSessions, _ = it["num_sessions"].(int64)
	for name, v := range it {
		kind, rest, ok := strings.Cut(name, "#")
		if !ok {
			continue
		}
		if err := s.parseAttr(kind, rest, v); err != nil {
			return s, fmt.Errorf("run summary %v: %s: %w", it.Key(), name, err)
		}
	}
	return s, nil
}

func (s *RunSummary) parseAttr(kind, rest string, v any) error {
	metric, cat, _ := strings.Cut(rest, "#")
	name, err := url.QueryUnescape(metric)
	if err != nil {
		return err
	}
	m := s.Metrics[name]
	f, _ := v.(int64)
	switch kind {
	case "mc":
		m.Count += f
	case "ms", "s0", "s1", "s2":
		m.Sum = m.Sum.MustAdd(limbValue(kind, f))
	case "mn", "mx":
		x, err := decimalAttr(v)
		if err != nil {
			return err
		}
		if kind == "mn" {
			m.Min = &x
		} else {
			m.Max = &x
		}
	case "k":
		c, err := url.QueryUnescape(cat)
		if err != nil {
			return err
		}
		if m.Categories == nil {
			m.Categories = map[string]int64{}
		}
		m.Categories[c] = f
		m.Count += f
	default:
		return nil
	}
	s.Metrics[name] = m
	return nil
}
