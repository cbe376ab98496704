package traces

import (
	"sort"
	"strconv"
	"time"
)

// searchResponse is the answer of operation 10 (LogRecordsMetricsResponse).
type searchResponse struct {
	GroupByColumns   []string                    `json:"group_by_columns"`
	AggregateMetrics map[string]any              `json:"aggregate_metrics"`
	BucketedMetrics  map[string][]map[string]any `json:"bucketed_metrics"`
	EMSCapturedError bool                        `json:"ems_captured_error"`
	StandardErrors   map[string]standardError    `json:"standard_errors"`
}

// standardError is a scorer error as the answer reports it, keyed by its code.
type standardError struct {
	ErrorCode  int64  `json:"error_code"`
	ErrorType  string `json:"error_type"`
	ErrorGroup string `json:"error_group"`
	Severity   string `json:"severity"`
	Message    string `json:"message"`
	Retriable  bool   `json:"retriable"`
	Blocking   bool   `json:"blocking"`
}

const bucketTimeLayout = time.RFC3339

// metricValue is the value of metric i (or count, i = -1) in c; nil for an empty cell.
func (a *aggregator) metricValue(c *cell, i int) any {
	if c == nil || c.count == 0 {
		return nil
	}
	if i < 0 {
		return c.count
	}
	return round(c.stats[i].value(a.metrics[i].method))
}

// response shapes what a holds. Without group_by each bucket carries `value` and each
// aggregate is the metric's value; with it, each bucket carries one key per group value and
// each aggregate is a {group value: value} map.
func (a *aggregator) response(grouped bool) *searchResponse {
	res := &searchResponse{GroupByColumns: []string{}, AggregateMetrics: map[string]any{},
		BucketedMetrics: map[string][]map[string]any{}, StandardErrors: map[string]standardError{}}
	names := make([]string, 0, len(a.groups))
	for g := range a.groups {
		names = append(names, g)
	}
	sort.Strings(names)
	if grouped {
		res.GroupByColumns = names
	}
	all := append([]string{metricCount}, make([]string, len(a.metrics))...)
	for i, m := range a.metrics {
		all[i+1] = m.name
	}
	for k, name := range all {
		i := k - 1
		buckets := make([]map[string]any, a.nBuckets)
		for b := range buckets {
			from := a.start.Add(time.Duration(b) * a.interval)
			to := from.Add(a.interval)
			if to.After(a.end) {
				to = a.end
			}
			buckets[b] = map[string]any{"start_bucket_time": from.Format(bucketTimeLayout), "end_bucket_time": to.Format(bucketTimeLayout)}
			if !grouped {
				buckets[b]["value"] = a.metricValue(a.bucket("", b), i)
				continue
			}
			for _, g := range names {
				buckets[b][g] = a.metricValue(a.bucket(g, b), i)
			}
		}
		res.BucketedMetrics[name] = buckets
		if !grouped {
			res.AggregateMetrics[name] = a.aggregate("", i)
			continue
		}
		per := make(map[string]any, len(names))
		for _, g := range names {
			per[g] = a.aggregate(g, i)
		}
		res.AggregateMetrics[name] = per
	}
	for code, e := range a.errors {
		res.StandardErrors[strconv.FormatInt(code, 10)] = standardError{ErrorCode: code, ErrorType: e.ErrorType,
			ErrorGroup: e.ErrorGroup, Severity: e.Severity, Message: e.Message, Retriable: e.Retriable, Blocking: e.Blocking}
	}
	res.EMSCapturedError = len(a.errors) > 0
	return res
}

func (a *aggregator) bucket(g string, b int) *cell {
	if gr := a.groups[g]; gr != nil {
		return gr.buckets[b]
	}
	return nil
}

// aggregate is metric i over the whole range for group g: count is 0, not null, when no
// trace matched.
func (a *aggregator) aggregate(g string, i int) any {
	gr := a.groups[g]
	if gr == nil {
		if i < 0 {
			return int64(0)
		}
		return nil
	}
	return a.metricValue(&gr.total, i)
}
