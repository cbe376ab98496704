package experiments

import (
	"errors"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// The example the events are written against: a project with a log stream and an
// experiment, both runs, listed by operation 12; the experiment's settings are its run's.
// Two more experiments run the example template, one with a finished job.
func TestSeedExampleAndSettings(t *testing.T) {
	h := newHarness(t, nil)
	if err := SeedExample(t.Context(), h.tbl, h.org.ID, h.org.Admin.UserID, testNow); err != nil {
		t.Fatal(err)
	}
	for id, kind := range map[string]string{ExampleLogStreamID: store.RunLogStream, ExampleExperimentID: store.RunExperiment} {
		run, err := store.GetRun(t.Context(), h.tbl, h.org.ID, ExampleProjectID, id)
		if err != nil || run.Kind != kind {
			t.Fatalf("run %s: %+v %v", id, run, err)
		}
	}
	got := h.list(&h.org.User, ExampleProjectID, "")
	byID := map[string]map[string]any{}
	for _, e := range got {
		byID[e["id"].(string)] = e
	}
	if len(got) != 3 || byID[ExampleExperimentID]["name"] != "fixture-experiment" {
		t.Fatalf("list: %v", got)
	}
	// The run with a finished job (every row with an outcome) is at 100%, the other at 0.
	a, b := byID[ExampleRunExperimentID], byID[ExampleRunExperiment2ID]
	if a["job_id"] != ExampleJobID || a["status"].(map[string]any)["log_generation"].(map[string]any)["progress_percent"] != 100.0 ||
		b["job_id"] != nil || b["prompt"].(map[string]any)["prompt_template_id"] != ExampleTemplateID {
		t.Fatalf("runs: %v\n%v", a, b)
	}
	run, err := store.GetRun(t.Context(), h.tbl, h.org.ID, ExampleProjectID, ExampleExperimentID)
	if err != nil || run.Scorers == nil || len(run.Scorers) != 0 {
		t.Fatalf("settings: %+v %v", run.MetricSettings, err)
	}
	if _, err := store.GetRun(t.Context(), h.tbl, h.other.ID, ExampleProjectID, ExampleExperimentID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another organization: %v", err)
	}
}
