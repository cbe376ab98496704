package traces

import (
	"net/http"
	"testing"

	idgen "github.com/evalobs/evalapi/shared/ids"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// A session of an external id gets a UUID4 (the original's client drops a whole batch
// naming any other version); a run that holds the session under the version-5 id the
// service gave it before keeps it: creating it again, and logging traces with its external
// id, find that session and start no second one.
func TestExternalSessionIDs(t *testing.T) {
	h := newHarness(t, 0)
	h.legacyIDs = true // its answers hold the former ids, on purpose
	ctx := t.Context()
	run, err := store.GetRun(ctx, h.tbl, h.org.ID, ExampleProjectID, ExampleLogStreamID)
	if err != nil {
		t.Fatal(err)
	}
	const old = "user-before"
	legacyID := records.LegacyExternalSessionID(run.ID, old)
	if _, err := store.PutLogSession(ctx, h.tbl, store.LogSession{ID: legacyID, RunID: run.ID, ProjectID: run.ProjectID,
		OrgID: run.OrgID, ExternalID: ptr(old), CreatedAt: testNow}); err != nil {
		t.Fatal(err)
	}
	sessions := func() int {
		return h.count("sessions", `{"log_stream_id":"`+ExampleLogStreamID+`"}`)
	}
	before := sessions()

	for _, tc := range []struct {
		ext      string
		want     string
		sessions int // added
	}{
		{old, legacyID, 0},
		{"user-after", records.ExternalSessionID(run.ID, "user-after"), 1},
		{"user-after", records.ExternalSessionID(run.ID, "user-after"), 0},
	} {
		var created struct {
			ID string `json:"id"`
		}
		h.call("POST", projectPath+"/sessions", `{"log_stream_id":"`+ExampleLogStreamID+`","external_id":"`+tc.ext+`"}`, http.StatusOK, &created)
		if created.ID != tc.want {
			t.Errorf("session of %s: id %s, want %s", tc.ext, created.ID, tc.want)
		}
		if n := sessions(); n != before+tc.sessions {
			t.Errorf("after the session of %s: %d sessions, want %d", tc.ext, n, before+tc.sessions)
		}
		before += tc.sessions
	}
	if id := records.ExternalSessionID(run.ID, "user-after"); !idgen.IsUUID4(id) {
		t.Errorf("ExternalSessionID = %s, not a UUID4", id)
	}

	for _, tc := range []struct{ ext, want string }{
		{old, legacyID},
		{"user-new", records.ExternalSessionID(run.ID, "user-new")},
	} {
		var got struct {
			SessionID string `json:"session_id"`
		}
		h.call("POST", ingestPath, `{"log_stream_id":"`+ExampleLogStreamID+`","session_external_id":"`+tc.ext+`",
			"traces":[{"created_at":"2026-01-01T05:00:00Z","name":"n"}]}`, http.StatusOK, &got)
		if got.SessionID != tc.want {
			t.Errorf("ingestion with session %s: session_id %s, want %s", tc.ext, got.SessionID, tc.want)
		}
	}
	if n := sessions(); n != before+1 {
		t.Errorf("after the ingestions: %d sessions, want %d (one new)", n, before+1)
	}
}
