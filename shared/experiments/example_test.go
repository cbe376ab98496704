package experiments

import (
	"errors"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// The example the events are written against: a project with a log stream and an
// experiment, both runs, listed by operation 12; the experiment's settings are its run's.
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
	if len(got) != 1 || got[0]["id"] != ExampleExperimentID || got[0]["name"] != "fixture-experiment" {
		t.Fatalf("list: %v", got)
	}
	run, err := store.GetRun(t.Context(), h.tbl, h.org.ID, ExampleProjectID, ExampleExperimentID)
	if err != nil || run.Scorers == nil || len(run.Scorers) != 0 {
		t.Fatalf("settings: %+v %v", run.MetricSettings, err)
	}
	if _, err := store.GetRun(t.Context(), h.tbl, h.other.ID, ExampleProjectID, ExampleExperimentID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another organization: %v", err)
	}
}
