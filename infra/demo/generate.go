package demo

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

// generator makes synthetic traces spread evenly over a day: a few names, two models of two
// providers, sessions of a handful of traces, each an agent span with retriever, llm and sometimes tool spans under it, scorer values that depend
// a little on the model, and a scorer error on about one trace in a hundred.
type generator struct {
	rnd     *rand.Rand
	from    time.Time
	step    time.Duration
	session string
}

var (
	names     = []string{"chat", "search", "summarize"}
	models    = []struct{ model, provider string }{{"large-model", "model-vendor"}, {"small-model", "cloud-host"}}
	tones     = []string{"neutral", "friendly", "formal", "curt"}
	questions = []string{"How do I reset my password?", "Summarize this ticket.", "Which plan fits a team of five?",
		"Translate the release notes.", "Why did my deployment fail?"}
)

// next returns traces first .. first+n-1 of the day.
func (g *generator) next(first, n int) []store.Trace {
	out := make([]store.Trace, n)
	for i := range out {
		out[i] = g.trace(first + i)
	}
	return out
}

func (g *generator) trace(i int) store.Trace {
	at := g.from.Add(time.Duration(i) * g.step)
	m := models[g.rnd.IntN(len(models))]
	large := m.model == "large-model"
	if g.session == "" || g.rnd.IntN(5) == 0 {
		g.session = uuid.NewString()
	}
	latency := 200 + g.rnd.ExpFloat64()*300
	tokens := int64(100 + g.rnd.IntN(900))
	cost := float64(tokens) * 0.000002
	correctness := min(1, max(0, 0.7+g.rnd.NormFloat64()*0.15))
	if large {
		latency, cost, correctness = latency*1.8, cost*5, min(1, correctness+0.1)
	}
	status := int64(200)
	if g.rnd.IntN(50) == 0 {
		status = 500
	}
	q := questions[g.rnd.IntN(len(questions))]
	tags := []string{"production"}
	if g.rnd.IntN(10) == 0 {
		tags = append(tags, "beta")
	}
	metrics := map[string]store.MetricValue{
		"correctness": {Number: ptr(correctness)},
		"toxicity":    {Bool: ptr(g.rnd.IntN(40) == 0)},
		"tone":        {Category: ptr(tones[g.rnd.IntN(len(tones))])},
	}
	if g.rnd.IntN(100) == 0 {
		metrics["correctness"] = store.MetricValue{Error: &store.ScorerError{Code: 1006, Message: "The judge model timed out.",
			Severity: "high", ErrorType: "llm_api_error", ErrorGroup: "scorer", Retriable: true}}
	}
	id := uuid.NewString()
	answer := fmt.Sprintf("Here is what I found about %q.", q)
	usage := store.Usage{LatencyMs: &latency, TotalTokens: &tokens, TotalCost: &cost}
	tr := store.Trace{
		ID: id, CreatedAt: at, Type: "trace", Name: names[g.rnd.IntN(len(names))],
		RecordContent: store.RecordContent{Input: store.StringContent(q), Output: store.StringContent(answer)},
		Tags:          tags, StatusCode: &status, IsComplete: true, HasChildren: true, SessionID: ptr(g.session),
		Model: ptr(m.model), Provider: ptr(m.provider), Temperature: ptr(0.2), FinishReason: ptr("stop"),
		Usage: usage, Metrics: metrics,
	}
	// An agent that searches documents, asks the model and sometimes calls a tool: the
	// nested spans a logging client sends, with message-list and document content.
	agent := store.Span{ID: uuid.NewString(), TraceID: id, ParentID: id, Depth: 1, Type: "agent", Name: "assistant",
		AgentType: ptr("default"), CreatedAt: at, HasChildren: true, IsComplete: true,
		RecordContent: store.RecordContent{Input: store.StringContent(q), Output: store.StringContent(answer)}}
	docs := fmt.Sprintf(`[{"content":"Notes on %s.","metadata":{"source":"kb","score":0.92}},{"content":"FAQ entry.","metadata":{"source":"faq","score":0.71}}]`, q)
	retriever := store.Span{ID: uuid.NewString(), TraceID: id, ParentID: agent.ID, Depth: 2, Type: "retriever",
		Name: "search_docs", CreatedAt: at, IsComplete: true,
		RecordContent: store.RecordContent{Input: store.StringContent(q), Output: store.Content(docs)}}
	msgs := fmt.Sprintf(`[{"role":"system","content":"You answer from the documents."},{"role":"user","content":%q}]`, q)
	llm := store.Span{ID: uuid.NewString(), TraceID: id, ParentID: agent.ID, Depth: 2, Type: "llm", Name: "generate",
		CreatedAt: at, IsComplete: true, Model: ptr(m.model), Provider: ptr(m.provider), Temperature: ptr(0.2),
		FinishReason: ptr("stop"), Usage: usage,
		RecordContent: store.RecordContent{Input: store.Content(msgs),
			Output: store.Content(fmt.Sprintf(`{"role":"assistant","content":%q}`, answer))}}
	tr.Spans = []store.Span{agent, retriever, llm}
	if g.rnd.IntN(4) == 0 {
		tr.Spans = append(tr.Spans, store.Span{ID: uuid.NewString(), TraceID: id, ParentID: agent.ID, Depth: 2,
			Type: "tool", Name: "calculator", ToolCallID: ptr("call_" + id[:8]), CreatedAt: at, IsComplete: true,
			RecordContent: store.RecordContent{Input: store.StringContent(`{"expression":"6*7"}`), Output: store.StringContent("42")}})
	}
	tr.NumSpans = int64(len(tr.Spans))
	return tr
}
