package projects

import (
	"encoding/json"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

const (
	mineScorer = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
	expID      = "6f1e2d3c-4b5a-4968-8776-554433221100"
)

// runSettingsWorld is a project of the org with a log stream, an experiment and one scorer
// of the org's.
func runSettingsWorld(t *testing.T, h *harness) (pid, lsid string) {
	t.Helper()
	user := &h.org.User
	pid = h.project(user, "p")
	lsid = h.logStream(user, pid, "ls")
	exp := store.Experiment{ID: expID, ProjectID: pid, OrgID: h.org.ID, Name: "exp", TaskType: 16,
		CreatedBy: user.UserID, CreatedAt: h.now, UpdatedAt: h.now}
	if err := store.CreateExperiment(t.Context(), h.tbl, exp); err != nil {
		t.Fatal(err)
	}
	s := store.Scorer{ID: mineScorer, OrgID: h.org.ID, Name: "mine", ScorerType: "llm"}
	if err := store.CreateScorer(t.Context(), h.tbl, s); err != nil {
		t.Fatal(err)
	}
	return pid, lsid
}

func scorerSettingsPath(pid, runID string) string {
	return "/v2/projects/" + pid + "/runs/" + runID + "/scorer-settings"
}

// Enabling a scorer through the client's route sets the run's metric settings: the log
// stream's metric_settings read shows it, and for an experiment a later GET does.
func TestScorerSettingsAreTheMetricSettings(t *testing.T) {
	h := newHarness(t)
	user := &h.org.User
	pid, lsid := runSettingsWorld(t, h)
	// The body as the client sends it: a scorer response turned ScorerConfig, with fields
	// this service does not know.
	body := func(run string) string {
		return `{"run_id":"` + run + `","scorers":[{"id":"` + mineScorer + `","name":"mine","scorer_type":"llm",` +
			`"tags":[],"created_at":"2026-01-01T00:00:00Z","label":"mine"}]}`
	}
	for _, method := range []string{"POST", "PATCH"} {
		for _, run := range []string{lsid, expID} {
			t.Run(method+" "+run, func(t *testing.T) {
				h.must(user, method, scorerSettingsPath(pid, run), `{"run_id":"`+run+`","scorers":[]}`, nil)
				var got scorerSettingsResponse
				h.must(user, method, scorerSettingsPath(pid, run), body(run), &got)
				if got.RunID != run || len(got.Scorers) != 1 || got.Scorers[0].ID != mineScorer ||
					got.Scorers[0].ScorerType == nil || *got.Scorers[0].ScorerType != "llm" || got.SegmentFilters != nil {
					t.Fatalf("answer %+v", got)
				}
				var read scorerSettingsResponse
				h.must(user, "GET", scorerSettingsPath(pid, run), "", &read)
				apitest.SameJSON(t, asJSON(t, read), asJSON(t, got))
				if run == lsid {
					var ms settingsResponse
					h.must(user, "GET", "/v2/projects/"+pid+"/log_streams/"+lsid+"/metric_settings", "", &ms)
					if len(ms.Scorers) != 1 || ms.Scorers[0].ID != mineScorer {
						t.Fatalf("metric_settings after %s: %+v", method, ms)
					}
				}
				stored, err := store.GetRun(t.Context(), h.tbl, h.org.ID, pid, run)
				if err != nil || len(stored.Scorers) != 1 || stored.SettingsBy != user.UserID {
					t.Fatalf("stored run %+v, %v", stored, err)
				}
			})
		}
	}

	// segment_filters alone leaves the scorers as they are.
	var got scorerSettingsResponse
	h.must(user, "PATCH", scorerSettingsPath(pid, lsid), `{"run_id":"`+lsid+`","segment_filters":[{"sample_rate":0.5}]}`, &got)
	if len(got.Scorers) != 1 || len(got.SegmentFilters) != 1 || got.SegmentFilters[0].SampleRate != 0.5 {
		t.Fatalf("after segment_filters: %+v", got)
	}
}

// A run that was never configured answers an empty list of scorers and null filters.
func TestScorerSettingsEmpty(t *testing.T) {
	h := newHarness(t)
	pid, lsid := runSettingsWorld(t, h)
	for _, run := range []string{lsid, expID} {
		code, body := h.do(&h.org.User, "GET", scorerSettingsPath(pid, run), "")
		if code != 200 {
			t.Fatalf("GET %s: %d %s", run, code, body)
		}
		apitest.SameJSON(t, body, `{"run_id":"`+run+`","scorers":[],"segment_filters":null}`)
	}
}

func TestScorerSettingsErrors(t *testing.T) {
	h := newHarness(t)
	user, stranger := &h.org.User, &h.other.User
	pid, lsid := runSettingsWorld(t, h)
	otherPid := h.project(user, "p2")
	strangerPid := h.project(stranger, "theirs")
	strangerLs := h.logStream(stranger, strangerPid, "ls")
	ok := `{"run_id":"` + lsid + `","scorers":[{"id":"` + mineScorer + `"}]}`
	for _, tc := range []struct {
		name, method, path, body string
		who                      *authtest.User
		status                   int
		want                     string
	}{
		{"no credentials", "GET", scorerSettingsPath(pid, lsid), "", nil, 401, ""},
		{"no credentials, POST", "POST", scorerSettingsPath(pid, lsid), ok, nil, 401, ""},
		{"read-only POST", "POST", scorerSettingsPath(pid, lsid), ok, &h.org.ReadOnly, 403, `{"detail":"Read-only users cannot perform this action"}`},
		{"read-only PATCH", "PATCH", scorerSettingsPath(pid, lsid), ok, &h.org.ReadOnly, 403, `{"detail":"Read-only users cannot perform this action"}`},
		{"run of another project", "GET", scorerSettingsPath(otherPid, lsid), "", user, 404, `{"detail":"Run not found"}`},
		{"unknown run", "POST", scorerSettingsPath(pid, unknown), `{"run_id":"` + unknown + `","scorers":[]}`, user, 404, `{"detail":"Run not found"}`},
		{"unknown project", "GET", scorerSettingsPath(unknown, lsid), "", user, 404, `{"detail":"Project not found"}`},
		{"another org's run", "GET", scorerSettingsPath(strangerPid, strangerLs), "", user, 404, `{"detail":"Project not found"}`},
		{"another org's run, POST", "POST", scorerSettingsPath(strangerPid, strangerLs), `{"run_id":"` + strangerLs + `","scorers":[]}`, user, 404, `{"detail":"Project not found"}`},
		{"unknown scorer", "POST", scorerSettingsPath(pid, lsid), `{"run_id":"` + lsid + `","scorers":[{"id":"` + mineScorer + `"},{"id":"` + unknown + `"}]}`, user, 422,
			`{"detail":[{"type":"value_error","loc":["body","scorers",1,"id"],"msg":"Value error, scorer ` + unknown + ` not found","input":"` + unknown + `","ctx":{"error":{}}}]}`},
		{"another org's scorer", "PATCH", scorerSettingsPath(strangerPid, strangerLs), `{"run_id":"` + strangerLs + `","scorers":[{"id":"` + mineScorer + `"}]}`, stranger, 422,
			`{"detail":[{"type":"value_error","loc":["body","scorers",0,"id"],"msg":"Value error, scorer ` + mineScorer + ` not found","input":"` + mineScorer + `","ctx":{"error":{}}}]}`},
		{"run_id missing", "POST", scorerSettingsPath(pid, lsid), `{"scorers":[]}`, user, 422,
			`{"detail":[{"type":"missing","loc":["body","run_id"],"msg":"Field required","input":{"scorers":[]}}]}`},
		{"run_id of another run", "POST", scorerSettingsPath(pid, lsid), `{"run_id":"` + expID + `","scorers":[]}`, user, 422,
			`{"detail":[{"type":"value_error","loc":["body","run_id"],"msg":"Value error, run_id must be the run_id of the path","input":"` + expID + `","ctx":{"error":{}}}]}`},
		{"bad run id in path", "GET", scorerSettingsPath(pid, v1UUID), "", user, 422,
			`{"detail":[{"type":"uuid_version","loc":["path","run_id"],"msg":"UUID version 4 expected","input":"` + v1UUID + `","ctx":{"expected_version":4}}]}`},
		{"body not an object", "POST", scorerSettingsPath(pid, lsid), `[]`, user, 422, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.do(tc.who, tc.method, tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("status %d %s, want %d", code, body, tc.status)
			}
			if tc.want != "" {
				apitest.SameJSON(t, body, tc.want)
			}
		})
	}
	// Nothing refused was stored.
	var got scorerSettingsResponse
	h.must(user, "GET", scorerSettingsPath(pid, lsid), "", &got)
	if len(got.Scorers) != 0 {
		t.Fatalf("a refused request changed the settings: %+v", got)
	}
	if b, _ := json.Marshal(got); len(b) == 0 {
		t.Fatal("empty answer")
	}
}
