package traces

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// External evaluations (docs/OTEL.md): each gen_ai.evaluation.result becomes a metric value
// of the span it judges, named by gen_ai.evaluation.name, marked external. A span holds one
// value per name, so a re-export finds it and writes nothing, and a new value for the same
// (span, name) replaces the old; the trace's value is the roll-up of its spans' values,
// recomputed (not added) by records.RollUpSpanScores, whose revision moves the run's
// roll-ups by exactly the difference. A judgment of a span not stored yet waits on a
// placeholder span of the same id, which the span takes over when it arrives.

// otelExternalSuffix names an external value whose name a scorer of the run's metric
// settings also produces: the scorer's own judgment keeps the name, the external value
// takes name + suffix, so the two are never summed nor overwrite each other.
const otelExternalSuffix = "_external"

// otelEvalKey returns the metric key of an external evaluation in run: its name, or its
// name with otelExternalSuffix when one of the run's scorers writes that name or it is a
// system metric's.
func (h *handlers) otelEvalKey(ctx context.Context, run store.Run) (func(string) string, error) {
	full, err := store.GetRun(ctx, h.Table, run.OrgID, run.ProjectID, run.ID)
	if err != nil {
		return nil, fmt.Errorf("otlp: read the metric settings of run %s: %w", run.ID, err)
	}
	// The system metrics' names are taken too: a judgment named latency_ms would otherwise
	// be folded into the latency's roll-ups and summary.
	scorers := map[string]bool{records.MetricLatency: true, records.MetricTotalTokens: true, records.MetricTotalCost: true}
	for _, sc := range full.Scorers {
		scorers[sc.MetricKey()] = true
	}
	return func(name string) string {
		if scorers[name] {
			return name + otelExternalSuffix
		}
		return name
	}, nil
}

// otelApplyEvals puts a group's judgments on its spans: on the span of the export when it
// is there, else on a placeholder span of the evaluated span's id. Of two judgments of one
// (span, name) in one export, the one that supersedes the other wins (the later by its
// time; at equal times, store.MetricValue.Supersedes' rule), as between exports.
func otelApplyEvals(run store.Run, g *otelTrace, key func(string) string, now time.Time) {
	if len(g.evals) == 0 {
		return
	}
	for _, ev := range g.evals {
		id := g.ids.Span(ev.TraceID, ev.SpanID)
		k := key(ev.Name)
		i := g.spanIndex(id)
		if i >= 0 {
			if cur, ok := g.spans[i].Span.Metrics[k]; ok && !ev.Value.Supersedes(cur) {
				continue
			}
		}
		if i < 0 {
			sp := g.ids.PendingSpan(ev, now)
			sp.ProjectID, sp.OrgID = run.ProjectID, run.OrgID
			g.spans = append(g.spans, otlp.Mapped{Span: sp})
			g.seen[id] = true
			i = len(g.spans) - 1
		}
		sp := &g.spans[i].Span
		if sp.Metrics == nil {
			sp.Metrics = map[string]store.MetricValue{}
		}
		sp.Metrics[k] = ev.Value
		if g.rollups == nil {
			g.rollups = map[string]string{}
		}
		g.rollups[k] = rollUpOf(ev.Value)
	}
}

// rollUpOf is how a trace rolls up its spans' external values: numbers by their average,
// labels (which have no average) by the latest span's.
func rollUpOf(v store.MetricValue) string {
	if v.Number != nil {
		return records.RollUpAvg
	}
	return records.RollUpLast
}

func (g *otelTrace) spanIndex(id string) int {
	for i := range g.spans {
		if g.spans[i].Span.ID == id {
			return i
		}
	}
	return -1
}

// changedValues are the external values of values that a span holding have would take:
// those it does not hold as they are and that supersede what it holds (a late retry of an
// older judgment changes nothing).
func changedValues(have, values map[string]store.MetricValue) map[string]store.MetricValue {
	var out map[string]store.MetricValue
	for k, v := range values {
		if cur, ok := have[k]; ok && (reflect.DeepEqual(cur, v) || !v.Supersedes(cur)) {
			continue
		}
		if out == nil {
			out = map[string]store.MetricValue{}
		}
		out[k] = v
	}
	return out
}

// otelScoreSpans writes the changed external values on stored spans, through the write
// model's span scores.
func (h *handlers) otelScoreSpans(ctx context.Context, g *otelTrace, scores map[string]map[string]store.MetricValue) error {
	for spanID, values := range scores {
		_, err := records.WriteSpanScore(ctx, h.Table, records.ScoreWrite{Key: store.SpanKey(g.id, spanID), Values: values, Now: h.Stamp()})
		if errors.Is(err, records.ErrScoreRecordGone) {
			continue // the span left meanwhile (its trace deleted)
		}
		if err != nil {
			return writeError(err)
		}
		for k := range values { // written now or by an attempt that failed after: roll up either way
			g.markChanged(k)
		}
	}
	return nil
}

func (g *otelTrace) markChanged(k string) {
	if g.changed == nil {
		g.changed = map[string]bool{}
	}
	g.changed[k] = true
}

// mergedValues is have with the values that supersede it set over it (changedValues).
func mergedValues(have, values map[string]store.MetricValue) map[string]store.MetricValue {
	if len(have) == 0 && len(values) == 0 {
		return nil
	}
	out := make(map[string]store.MetricValue, len(have)+len(values))
	maps.Copy(out, have)
	maps.Copy(out, changedValues(have, values))
	return out
}

// otelRollUp sets the trace's value of each changed metric from its spans'.
func (h *handlers) otelRollUp(ctx context.Context, run store.Run, g *otelTrace) error {
	for k := range g.changed {
		if err := records.RollUpSpanScores(ctx, h.Table, run.ID, g.id, k, g.rollups[k]); err != nil {
			return writeError(err)
		}
	}
	return nil
}

// methodExternal rolls up an external metric in the metrics search: the average of its
// numbers, else the counts of its labels (the column catalog cannot know which an
// evaluator sends).
const methodExternal = "average_or_categories"

// summaryColumns are the metric columns a run summary holds values of (its system metrics
// aside), as FilledColumns names them: what withExternal reads the external metrics from
// when the summary is at hand.
func summaryColumns(sum store.RunSummary) map[string]bool {
	out := make(map[string]bool, len(sum.Metrics))
	for name := range sum.Metrics {
		switch name {
		case records.MetricLatency, records.MetricTotalTokens, records.MetricTotalCost:
		default:
			out[columns.MetricPrefix+name] = true
		}
	}
	return out
}

// withExternal is scorers with one more config per metric column the run has filled that
// no scorer of it produces: the external evaluators' metrics, so the catalog lists them and
// the metrics search reports them like any scorer's. rollUp, when set, is their roll-up
// method (the search's); else the catalog's default.
func withExternal(scorers []store.ScorerConfig, filled map[string]bool, rollUp *string) []store.ScorerConfig {
	own := map[string]bool{}
	for _, sc := range scorers {
		own[sc.MetricKey()] = true
	}
	var names []string
	for id, ok := range filled {
		if name, isMetric := strings.CutPrefix(id, columns.MetricPrefix); ok && isMetric && !own[name] {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return scorers
	}
	slices.Sort(names)
	out := slices.Clip(scorers)
	for _, name := range names {
		out = append(out, store.ScorerConfig{ID: name, Name: &name, RollUpMethod: rollUp})
	}
	return out
}
