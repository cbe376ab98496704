package otlp_test

import (
	"testing"

	"github.com/evalobs/evalapi/shared/traces/otlp"
)

func dbl(k string, f float64) otlp.KeyValue {
	return otlp.KeyValue{Key: k, Value: otlp.Value{Kind: otlp.KindDouble, Double: f}}
}

// TestEvaluations: what a gen_ai.evaluation.result becomes: a number from score.value, a
// label from score.label, the value with the label prefixing the explanation when both
// come, nothing without a name or a score; on the span it judges when it is the span's
// event, on the parent when it is a log-style span of its own (by name or by attributes).
func TestEvaluations(t *testing.T) {
	ev := func(kvs ...otlp.KeyValue) otlp.Event {
		return otlp.Event{Time: 7, Name: otlp.EvaluationEvent, Attrs: kvs}
	}
	s := span(str("gen_ai.operation.name", "chat"))
	s.Events = []otlp.Event{
		ev(str("gen_ai.evaluation.name", "relevance"), dbl("gen_ai.evaluation.score.value", 0.75)),
		ev(str("gen_ai.evaluation.name", "tone"), str("gen_ai.evaluation.score.label", "polite"), str("gen_ai.evaluation.explanation", "thanks the user")),
		ev(str("gen_ai.evaluation.name", "faithful"), dbl("gen_ai.evaluation.score.value", 1), str("gen_ai.evaluation.score.label", "pass"),
			str("gen_ai.evaluation.explanation", "cites the tool")),
		ev(str("gen_ai.evaluation.name", "empty")),
		ev(dbl("gen_ai.evaluation.score.value", 1)),
		{Name: "gen_ai.choice"},
	}
	got := otlp.Evaluations(s)
	if len(got) != 3 || otlp.IsEvaluationCarrier(s) {
		t.Fatalf("evaluations: %+v", got)
	}
	for _, e := range got {
		if e.SpanID != s.SpanID || e.Time != 7 || e.Value.JudgedAt != 7 || e.Value.Source != "external" {
			t.Errorf("%s: judges %x at %d (kept: %d), source %q", e.Name, e.SpanID, e.Time, e.Value.JudgedAt, e.Value.Source)
		}
	}
	if v := got[0].Value; *v.Number != 0.75 || v.Category != nil || v.Explanation != "" {
		t.Errorf("numeric: %+v", v)
	}
	if v := got[1].Value; v.Number != nil || *v.Category != "polite" || v.Explanation != "thanks the user" {
		t.Errorf("label: %+v", v)
	}
	if v := got[2].Value; *v.Number != 1 || v.Category != nil || v.Explanation != "pass: cites the tool" {
		t.Errorf("both: %+v", v)
	}

	byName := otlp.Span{TraceID: s.TraceID, SpanID: [8]byte{9}, ParentSpanID: s.SpanID, Name: otlp.EvaluationEvent, Start: 5,
		Attrs: []otlp.KeyValue{str("gen_ai.evaluation.name", "relevance"), dbl("gen_ai.evaluation.score.value", 0.5)}}
	byAttrs := otlp.Span{TraceID: s.TraceID, SpanID: [8]byte{10}, ParentSpanID: s.SpanID, Name: "judge",
		Attrs: []otlp.KeyValue{str("gen_ai.evaluation.name", "tone"), str("gen_ai.evaluation.score.label", "rude")}}
	for _, c := range []otlp.Span{byName, byAttrs} {
		got := otlp.Evaluations(&c)
		if !otlp.IsEvaluationCarrier(&c) || len(got) != 1 || got[0].SpanID != s.SpanID {
			t.Errorf("carrier %s: %+v", c.Name, got)
		}
	}
	root := byName
	root.ParentSpanID = [8]byte{}
	if got := otlp.Evaluations(&root); len(got) != 0 {
		t.Errorf("a root carrier judges nothing: %+v", got)
	}
}
