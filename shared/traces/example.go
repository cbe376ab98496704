package traces

import (
	"context"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// The example project, log stream and traces the sample events under events/traces are
// written against. Ids are fixed so that an event can name them; the traces sit at fixed
// times on 2026-01-01 between 00:00 and 00:10 UTC.
const (
	ExampleProjectID   = "6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b60"
	ExampleLogStreamID = "6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b61"
	// ExampleSessionID is the session of the example traces; ExampleTraceID the first of
	// them, with one llm span, ExampleSpanID.
	ExampleSessionID = "6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b62"
	ExampleTraceID   = "6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b80"
	ExampleSpanID    = "6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b90"
)

var exampleStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// exampleScorers are the metric settings of the example log stream: one scorer per kind of
// roll-up a search reports.
var exampleScorers = []store.ScorerConfig{
	{ID: "6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b70", Name: ptr("correctness"), RollUpMethod: ptr("average")},
	{ID: "6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b71", Name: ptr("toxic"), RollUpMethod: ptr("percentage_true")},
	{ID: "6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b72", Name: ptr("tone"), RollUpMethod: ptr("category_count")},
}

// exampleTraces are four traces over two models, one with a scorer error.
func exampleTraces() []store.Trace {
	mk := func(i int, model string, latency float64, tokens int64, cost float64, metrics map[string]store.MetricValue) store.Trace {
		return store.Trace{ID: fmt.Sprintf("6a1f0c3e-8b2d-4e5f-9a7c-1d2e3f4a5b8%d", i), Type: "trace",
			CreatedAt: exampleStart.Add(time.Duration(i*2+1) * time.Minute), Name: "chat",
			RecordContent: store.RecordContent{Input: store.StringContent(fmt.Sprintf("question %d", i)),
				Output: store.StringContent(fmt.Sprintf("answer %d", i))}, IsComplete: true,
			Tags: []string{"example"}, StatusCode: ptr(int64(200)), Model: ptr(model), Provider: ptr("openai"),
			Usage: store.Usage{LatencyMs: ptr(latency), TotalTokens: ptr(tokens), TotalCost: ptr(cost)}, Metrics: metrics}
	}
	num := func(f float64) store.MetricValue { return store.MetricValue{Number: &f} }
	b := func(v bool) store.MetricValue { return store.MetricValue{Bool: &v} }
	cat := func(s string) store.MetricValue { return store.MetricValue{Category: &s} }
	traces := []store.Trace{
		mk(0, "gpt-4o", 100, 50, 0.5, map[string]store.MetricValue{"correctness": num(1), "toxic": b(false), "tone": cat("neutral")}),
		mk(1, "gpt-4o", 300, 150, 1.5, map[string]store.MetricValue{"correctness": num(0.5), "toxic": b(true), "tone": cat("angry")}),
		mk(2, "gpt-4o-mini", 200, 100, 0.25, map[string]store.MetricValue{"correctness": num(0), "toxic": b(false), "tone": cat("neutral")}),
		mk(3, "gpt-4o-mini", 400, 200, 0.75, map[string]store.MetricValue{"correctness": {Error: &store.ScorerError{
			Code: 1006, Message: "The judge model timed out.", Severity: "high", ErrorType: "llm_api_error",
			ErrorGroup: "scorer", Retriable: true}}}),
	}
	for i := range traces {
		traces[i].SessionID = ptr(ExampleSessionID)
	}
	tr := &traces[0]
	tr.Spans = []store.Span{{ID: ExampleSpanID, TraceID: tr.ID, ParentID: tr.ID, Depth: 1, Type: "llm", Name: "openai.chat",
		CreatedAt: tr.CreatedAt, IsComplete: true, Model: tr.Model, Provider: tr.Provider, Usage: tr.Usage,
		RecordContent: store.RecordContent{Input: store.Content(`[{"role":"user","content":"question 0"}]`),
			Output: store.Content(`{"role":"assistant","content":"answer 0"}`)}}}
	tr.HasChildren, tr.NumSpans = true, 1
	return traces
}

// SeedExample writes the example project, its log stream with three scorers, and four traces
// into organization orgID for user userID: what the event runner's fixture calls.
func SeedExample(ctx context.Context, t store.Table, orgID, userID string, now time.Time) error {
	now = now.UTC().Truncate(time.Microsecond)
	p := store.Project{ID: ExampleProjectID, OrgID: orgID, Name: "fixture-observability", CreatedBy: userID,
		CreatedAt: now, UpdatedAt: now}
	if err := store.CreateProject(ctx, t, p); err != nil {
		return fmt.Errorf("example traces: %w", err)
	}
	ls := store.LogStream{ID: ExampleLogStreamID, ProjectID: p.ID, OrgID: orgID, Name: "fixture-production",
		CreatedBy: userID, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateLogStream(ctx, t, ls); err != nil {
		return fmt.Errorf("example traces: %w", err)
	}
	scorers := exampleScorers
	settings, err := store.SetMetricSettings(ctx, t, ls, &scorers, nil, now)
	if err != nil {
		return fmt.Errorf("example traces: %w", err)
	}
	run := store.Run{ID: ls.ID, ProjectID: p.ID, OrgID: orgID, Name: ls.Name, Kind: store.RunLogStream, MetricSettings: settings}
	if _, err := records.Ingest(ctx, t, run, exampleTraces(), now); err != nil {
		return fmt.Errorf("example traces: %w", err)
	}
	return nil
}
