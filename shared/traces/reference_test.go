package traces

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// reference is the naive aggregation the property test holds both paths to: it keeps every
// matching trace in memory per group and bucket, and computes each metric from the list. It
// reads the filters from the JSON body, not from the parsed filters.
func reference(run store.Run, traces []store.Trace, q searchRequest, body map[string]any) map[string]any {
	filters, _ := body["filters"].([]any)
	groupBy, _ := body["group_by"].(string)
	nb := int((q.end.Sub(q.start) + q.interval - 1) / q.interval)
	type key struct {
		g string
		b int
	}
	cells := map[key][]*store.Trace{}
	totals := map[string][]*store.Trace{}
	errs := map[string]any{}
	for i := range traces {
		tr := &traces[i]
		if tr.CreatedAt.Before(q.start) || !tr.CreatedAt.Before(q.end) {
			continue
		}
		ok := true
		for _, f := range filters {
			ok = ok && refMatch(tr, f.(map[string]any))
		}
		if !ok {
			continue
		}
		groups := []string{""}
		if groupBy != "" {
			groups = refGroups(tr, groupBy)
		}
		if len(groups) > 0 {
			for _, v := range tr.Metrics {
				if v.Error != nil {
					errs[strconv.FormatInt(v.Error.Code, 10)] = map[string]any{"error_code": float64(v.Error.Code),
						"error_type": v.Error.ErrorType, "error_group": v.Error.ErrorGroup, "severity": v.Error.Severity,
						"message": v.Error.Message, "retriable": v.Error.Retriable, "blocking": v.Error.Blocking}
				}
			}
		}
		b := int(tr.CreatedAt.Sub(q.start) / q.interval)
		for _, g := range groups {
			cells[key{g, b}] = append(cells[key{g, b}], tr)
			totals[g] = append(totals[g], tr)
		}
	}
	names := make([]string, 0, len(totals))
	for g := range totals {
		names = append(names, g)
	}
	sort.Strings(names)
	metrics := []metricSpec{{"count", "count"}, {"latency_ms", "average"}, {"total_tokens", "sum"}, {"total_cost", "sum"}}
	seen := map[string]bool{}
	for _, s := range run.Scorers {
		if !seen[*s.Name] {
			seen[*s.Name] = true
			metrics = append(metrics, metricSpec{*s.Name, *s.RollUpMethod})
		}
	}
	agg, buckets := map[string]any{}, map[string]any{}
	for _, m := range metrics {
		list := make([]any, nb)
		for b := range nb {
			from := q.start.Add(time.Duration(b) * q.interval)
			to := from.Add(q.interval)
			if to.After(q.end) {
				to = q.end
			}
			bk := map[string]any{"start_bucket_time": from.Format(time.RFC3339), "end_bucket_time": to.Format(time.RFC3339)}
			if groupBy == "" {
				bk["value"] = refValue(cells[key{"", b}], m)
			} else {
				for _, g := range names {
					bk[g] = refValue(cells[key{g, b}], m)
				}
			}
			list[b] = bk
		}
		buckets[m.name] = list
		if groupBy == "" {
			v := refValue(totals[""], m)
			if m.name == "count" && v == nil {
				v = 0.0
			}
			agg[m.name] = v
		} else {
			per := map[string]any{}
			for _, g := range names {
				per[g] = refValue(totals[g], m)
			}
			agg[m.name] = per
		}
	}
	cols := []any{}
	if groupBy != "" {
		for _, g := range names {
			cols = append(cols, g)
		}
	}
	return map[string]any{"group_by_columns": cols, "aggregate_metrics": agg, "bucketed_metrics": buckets,
		"ems_captured_error": len(errs) > 0, "standard_errors": errs}
}

func refValue(trs []*store.Trace, m metricSpec) any {
	if len(trs) == 0 {
		return nil
	}
	var nums []float64
	cats := map[string]any{}
	counts := map[string]float64{}
	for _, tr := range trs {
		switch m.name {
		case "count":
		case "latency_ms":
			if tr.LatencyMs != nil {
				nums = append(nums, *tr.LatencyMs)
			}
		case "total_tokens":
			if tr.TotalTokens != nil {
				nums = append(nums, float64(*tr.TotalTokens))
			}
		case "total_cost":
			if tr.TotalCost != nil {
				nums = append(nums, *tr.TotalCost)
			}
		default:
			v := tr.Metrics[m.name]
			switch {
			case v.Number != nil:
				nums = append(nums, *v.Number)
			case v.Category != nil:
				counts[*v.Category]++
			case v.Bool != nil:
				counts[strconv.FormatBool(*v.Bool)]++
			}
		}
	}
	sum := 0.0
	for _, n := range nums {
		sum += n
	}
	switch m.method {
	case "count":
		return float64(len(trs))
	case "average", "sum", "min", "max":
		if len(nums) == 0 {
			return nil
		}
		switch m.method {
		case "average":
			return sum / float64(len(nums))
		case "sum":
			return sum
		case "min":
			return slices.Min(nums)
		}
		return slices.Max(nums)
	case "category_count":
		if len(counts) == 0 {
			return nil
		}
		for c, n := range counts {
			cats[c] = n
		}
		return cats
	}
	t, f := counts["true"], counts["false"]
	if t+f == 0 {
		return nil
	}
	if m.method == "percentage_true" {
		return t / (t + f)
	}
	return f / (t + f)
}

func refGroups(tr *store.Trace, col string) []string {
	switch col {
	case "tags":
		var out []string
		for _, t := range tr.Tags {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		return out
	case "is_complete":
		return []string{strconv.FormatBool(tr.IsComplete)}
	}
	if v, ok := refText(tr, col); ok {
		return []string{v}
	}
	if v, ok := refNumber(tr, col); ok {
		return []string{strconv.FormatFloat(v, 'f', -1, 64)}
	}
	return nil
}

func refText(tr *store.Trace, col string) (string, bool) {
	in, out := refContentText(tr.Input), refContentText(tr.Output)
	p := map[string]*string{"input": &in, "output": &out, "name": &tr.Name, "type": &tr.Type,
		"model": tr.Model, "provider": tr.Provider, "external_id": tr.ExternalID, "session_id": tr.SessionID,
		"id": &tr.ID, "trace_id": &tr.ID, "run_id": &tr.RunID}[col]
	if p == nil {
		return "", false
	}
	return *p, true
}

// refContentText is a content's text as the catalog defines it, decoded by encoding/json: a
// string's text, any other value's JSON, nothing for no content.
func refContentText(c store.Content) string {
	if len(c) == 0 || string(c) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	return string(c)
}

func refNumber(tr *store.Trace, col string) (float64, bool) {
	switch col {
	case "status_code":
		if tr.StatusCode != nil {
			return float64(*tr.StatusCode), true
		}
	case "temperature":
		if tr.Temperature != nil {
			return *tr.Temperature, true
		}
	default:
		if name, ok := strings.CutPrefix(col, "metrics/"); ok && tr.Metrics[name].Number != nil {
			return *tr.Metrics[name].Number, true
		}
	}
	return 0, false
}

func refStrings(v any) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// refMatch evaluates one JSON filter on a trace, written independently of filter.match.
func refMatch(tr *store.Trace, f map[string]any) bool {
	col, _ := f["name"].(string)
	if col == "" {
		col, _ = f["column_id"].(string)
	}
	op, _ := f["operator"].(string)
	if op == "" {
		op = "eq"
	}
	ci := f["case_sensitive"] == false || f["type"] == "id"
	norm := func(s string) string {
		if ci {
			return strings.ToLower(s)
		}
		return s
	}
	switch f["type"] {
	case "text", "id":
		v, ok := refText(tr, col)
		if !ok {
			return false
		}
		vals := refStrings(f["value"])
		eqAny, containsAny := false, false
		for _, w := range vals {
			eqAny = eqAny || norm(v) == norm(w)
			containsAny = containsAny || strings.Contains(norm(v), norm(w))
		}
		return map[string]bool{"eq": eqAny, "one_of": eqAny, "ne": !eqAny, "not_in": !eqAny, "contains": containsAny}[op]
	case "number":
		v, ok := refNumber(tr, col)
		if !ok {
			return false
		}
		if op == "between" {
			b := f["value"].([]any)
			return v >= b[0].(float64) && v <= b[1].(float64)
		}
		w := f["value"].(float64)
		return map[string]bool{"eq": v == w, "ne": v != w, "gt": v > w, "gte": v >= w, "lt": v < w, "lte": v <= w}[op]
	case "boolean":
		v := tr.IsComplete
		if col == "has_children" {
			v = len(tr.Spans) > 0
		}
		return (v == f["value"].(bool)) == (op == "eq")
	case "date":
		v := tr.CreatedAt
		if col == "updated_at" {
			if tr.UpdatedAt == nil {
				return false
			}
			v = *tr.UpdatedAt
		}
		w, _ := time.Parse(time.RFC3339Nano, f["value"].(string))
		return map[string]bool{"eq": v.Equal(w), "ne": !v.Equal(w), "gt": v.After(w), "gte": !v.Before(w),
			"lt": v.Before(w), "lte": !v.After(w)}[op]
	case "collection":
		has := map[string]bool{}
		for _, t := range tr.Tags {
			has[norm(t)] = true
		}
		vals := map[string]bool{}
		for _, w := range refStrings(f["value"]) {
			vals[norm(w)] = true
		}
		all, some := true, false
		for w := range vals {
			all = all && has[w]
			some = some || has[w]
		}
		switch op {
		case "eq":
			return all && len(has) == len(vals)
		case "contains":
			return all
		case "one_of":
			return some
		}
		return !some
	}
	return false
}
