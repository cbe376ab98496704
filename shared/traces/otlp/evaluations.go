package otlp

import (
	"encoding/hex"
	"math"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// Evaluations of the 2026 GenAI conventions: a gen_ai.evaluation.result event carries
// gen_ai.evaluation.name (required), gen_ai.evaluation.score.value and .score.label,
// gen_ai.evaluation.explanation and gen_ai.response.id, and is parented to the span it
// judges. It arrives in two forms:
//   - as an event of the evaluated span itself (an evaluator running inside the operation,
//     or an SDK that attaches log-based events to the current span);
//   - log-style, as a span of its own parented to the evaluated span (an evaluator running
//     after the operation ended cannot add events to it): a span named
//     gen_ai.evaluation.result, or one whose own attributes carry gen_ai.evaluation.name.
//     Such a span is the event's carrier, not a step of the application: it is not stored.

// EvaluationEvent is the event's name.
const EvaluationEvent = "gen_ai.evaluation.result"

// maxExplanation bounds an explanation kept on a span's header (a judge's reasoning can be
// long; the header shares an item's 400 KB with every metric of the span).
const maxExplanation = 4096

// Evaluation is one external judgment of one span.
type Evaluation struct {
	TraceID [16]byte
	SpanID  [8]byte // the evaluated span
	Name    string  // gen_ai.evaluation.name
	Value   store.MetricValue
	Time    uint64 // when it was judged (the event's time), Unix nanoseconds
}

// IsEvaluationCarrier reports whether s is a log-style evaluation event exported as a span.
func IsEvaluationCarrier(s *Span) bool {
	if s.Name == EvaluationEvent {
		return true
	}
	for _, kv := range s.Attrs {
		if kv.Key == "gen_ai.evaluation.name" {
			return true
		}
	}
	return false
}

// Evaluations are the judgments s carries, in their order: its gen_ai.evaluation.result
// events, and for a carrier its own attributes. A carrier's judgments are of its parent (a
// root carrier judges nothing it names, and yields none). An event without a name or
// without a score is not a judgment and is left out.
func Evaluations(s *Span) []Evaluation {
	target := s.SpanID
	carrier := IsEvaluationCarrier(s)
	if carrier {
		if s.IsRoot() {
			return nil
		}
		target = s.ParentSpanID
	}
	var out []Evaluation
	add := func(kvs []KeyValue, at uint64) {
		if ev, ok := evaluation(index(kvs)); ok {
			ev.TraceID, ev.SpanID, ev.Time = s.TraceID, target, at
			ev.Value.JudgedAt = int64(min(at, math.MaxInt64)) // stored: a later, older judgment does not replace it
			out = append(out, ev)
		}
	}
	if carrier {
		add(s.Attrs, s.Start)
	}
	for _, e := range s.Events {
		if e.Name == EvaluationEvent {
			add(e.Attrs, e.Time)
		}
	}
	return out
}

// evaluation reads one event's attributes: a numeric value from score.value, else a
// categorical one from score.label; with both, the value, the label prefixing the
// explanation ("label: explanation") so it is not lost.
func evaluation(a attrs) (Evaluation, bool) {
	name, _ := a.str("gen_ai.evaluation.name")
	name = strings.TrimSpace(name)
	if name == "" {
		return Evaluation{}, false
	}
	label, _ := a.str("gen_ai.evaluation.score.label")
	expl, _ := a.str("gen_ai.evaluation.explanation")
	v := store.MetricValue{Source: store.SourceExternal}
	if f, ok := a.float("gen_ai.evaluation.score.value"); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
		v.Number = &f
		if label != "" {
			expl = strings.TrimSuffix(label+": "+expl, ": ")
		}
	} else if label != "" {
		v.Category = &label
	} else {
		return Evaluation{}, false
	}
	if len(expl) > maxExplanation {
		expl = strings.ToValidUTF8(expl[:maxExplanation], "") // no rune cut in half
	}
	v.Explanation = expl
	return Evaluation{Name: name, Value: v}, true
}

// PendingMark is the metadata mark of a placeholder span.
const PendingMark = "otel.placeholder"

// PendingSpan is the placeholder of a span judged before it arrived: not complete, marked
// in its metadata, hanging under the trace, created when it was judged (else at fallback).
// It holds the judgments until the span itself arrives and takes its place (same id).
func PendingSpan(runID string, ev Evaluation, fallback time.Time) store.Span {
	return IDs{Run: runID}.PendingSpan(ev, fallback)
}

// PendingSpan is PendingSpan in the run of d, with its ids.
func (d IDs) PendingSpan(ev Evaluation, fallback time.Time) store.Span {
	runID := d.Run
	traceID := d.Trace(ev.TraceID)
	at := fallback
	if ev.Time > 0 {
		at = nanoTime(ev.Time)
	}
	return store.Span{Pending: true, ID: d.Span(ev.TraceID, ev.SpanID), TraceID: traceID, ParentID: traceID, RunID: runID,
		Type: "workflow", Name: "pending " + hex.EncodeToString(ev.SpanID[:]), CreatedAt: at,
		Metadata: map[string]string{PendingMark: "true", "otel.trace_id": hex.EncodeToString(ev.TraceID[:]),
			"otel.span_id": hex.EncodeToString(ev.SpanID[:])}}
}

// IsPending reports whether sp is a placeholder span.
func IsPending(sp *store.Span) bool { return sp.Pending || sp.Metadata[PendingMark] == "true" }
