package evaluate

import (
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// An experiment's row is a trace without spans: a scorer of llm spans judges it there, as
// the trace-level scorers do; a log stream's trace, or an experiment trace with spans, is
// left to its spans.
func TestPlanLLMScorerOnExperimentRow(t *testing.T) {
	name := "m"
	for _, tc := range []struct {
		name     string
		kind     string
		nodes    []string
		children bool
		want     int
	}{
		{"experiment row, llm scorer", store.RunExperiment, []string{"llm"}, false, 1},
		{"experiment row, trace scorer", store.RunExperiment, []string{"trace"}, false, 1},
		{"experiment row, unset node types", store.RunExperiment, nil, false, 1},
		{"experiment row, tool scorer", store.RunExperiment, []string{"tool"}, false, 0},
		{"experiment trace with spans, llm scorer", store.RunExperiment, []string{"llm"}, true, 0},
		{"log stream trace, llm scorer", store.RunLogStream, []string{"llm"}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := store.ScorerConfig{ID: scorerID, Name: &name, ScoreableNodeTypes: tc.nodes}
			run := &store.Run{ID: runID, Kind: tc.kind, MetricSettings: store.MetricSettings{Scorers: []store.ScorerConfig{sc}}}
			tr := store.Trace{ID: traceID(1), Name: "row 1", HasChildren: tc.children}
			p := Plan(run, &tr)
			if len(p.Selected) != tc.want {
				t.Fatalf("%d scorers selected, want %d (marks %v)", len(p.Selected), tc.want, p.Marks)
			}
			if _, marked := p.Marks[name]; marked != (tc.want == 1) {
				t.Fatalf("marks %v", p.Marks)
			}
		})
	}
}
