package demo

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
)

func TestLoad(t *testing.T) {
	tbl := testenv.Embedded(t)
	var bar bytes.Buffer
	end := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	res, err := Load(t.Context(), tbl, "org-1", "user-1", Options{Traces: 2500, End: end, Seed: 7, Progress: &bar})
	if err != nil {
		t.Fatal(err)
	}
	if res.Traces != 2500 || !res.To.Equal(end) || !res.From.Equal(end.Add(-24*time.Hour)) {
		t.Fatalf("result %+v", res)
	}
	if !strings.HasSuffix(bar.String(), "100%  2500 / 2500 traces\n") || strings.Count(bar.String(), "\r") != 3 {
		t.Errorf("progress bar %q: want three draws (1000, 2000, 2500) ending at 100%%", bar.String())
	}
	sums, err := store.GetRunSummaries(t.Context(), tbl, []string{res.LogStreamID})
	if err != nil {
		t.Fatal(err)
	}
	s := sums[res.LogStreamID]
	// every trace has an agent span with a retriever and an llm span under it, a quarter a tool call too
	if s.NumTraces != 2500 || s.NumSpans < 3*2500 || s.NumSpans > 4*2500 || s.NumSessions == 0 || s.NumSessions >= 2500 {
		t.Errorf("summary counts %d traces, %d spans, %d sessions", s.NumTraces, s.NumSpans, s.NumSessions)
	}
	for _, m := range []string{"correctness", "toxicity", "tone", "latency_ms", "total_tokens", "total_cost"} {
		if s.Metrics[m].Count == 0 {
			t.Errorf("metric %s has no values", m)
		}
	}
	if errs := 2500 - s.Metrics["correctness"].Count; errs == 0 {
		t.Error("no scorer errors among the demo traces")
	}
	run, err := store.GetRun(t.Context(), tbl, "org-1", res.ProjectID, res.LogStreamID)
	if err != nil || len(run.Scorers) != 3 {
		t.Fatalf("run %+v, %v: want the log stream with 3 scorers", run, err)
	}
}

// TestLoadExperiments: the demo pair ends completed, every row a trace scored by both
// scorers, and the second prompt and model beat the first on correctness.
func TestLoadExperiments(t *testing.T) {
	tbl := testenv.Embedded(t)
	ctx := t.Context()
	now := time.Now().UTC()
	p := store.Project{ID: uuid.NewString(), OrgID: "org", Name: "p", CreatedBy: "u", CreatedAt: now, UpdatedAt: now}
	if err := store.CreateProject(ctx, tbl, p); err != nil {
		t.Fatal(err)
	}
	res, err := LoadExperiments(ctx, tbl, "org", "u", p.ID)
	if err != nil {
		t.Fatal(err)
	}
	sums, err := store.GetRunSummaries(ctx, tbl, res.ExperimentIDs[:])
	if err != nil {
		t.Fatal(err)
	}
	var correct [2]float64
	for i, id := range res.ExperimentIDs {
		jobID, err := store.ExperimentJobID(ctx, tbl, p.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		j, err := store.GetExperimentJob(ctx, tbl, "org", jobID)
		if err != nil || j.State != store.JobCompleted || j.Done != demoRows {
			t.Fatalf("job of %s: %+v %v", id, j, err)
		}
		st := sums[id].Metrics["correctness"]
		if sums[id].NumTraces != demoRows || st.Count != demoRows || sums[id].Metrics["conciseness"].Count != demoRows {
			t.Fatalf("summary of %s: %+v", id, sums[id])
		}
		correct[i] = st.Sum.Float64() / float64(st.Count)
	}
	if correct[1] <= correct[0] {
		t.Errorf("correctness: v0 %v, v1 %v", correct[0], correct[1])
	}
}
