package records

import (
	"crypto/sha256"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

// Session identity: a session named by an external id, and the session of traces logged
// with none, have ids that are a function of their run and that name, so that concurrent
// creations of "the session of user 42" (a session create, an ingestion, an OTLP export)
// make one session and a retried request finds the same one.

// sessionNamespace is the UUID namespace of those ids.
var sessionNamespace = uuid.MustParse("3f1c5e7a-9b2d-4c6e-8a0f-1d2e3f4a5b6c")

// ExternalSessionID is the id of the session of run runID named externalID.
func ExternalSessionID(runID, externalID string) string {
	h := sha256.Sum256([]byte(runID + "\x00" + externalID))
	return uuid.NewHash(sha256.New(), sessionNamespace, h[:], 5).String()
}

// ImplicitSessionID is the session of traces logged without one, named by the first of
// them: every trace belongs to a session.
func ImplicitSessionID(runID, traceID string) string {
	return ExternalSessionID(runID, "implicit:"+traceID)
}

// ExternalSession is the session of run named externalID, as an ingestion creates it when
// the run has none yet.
func ExternalSession(run store.Run, externalID string, now time.Time) store.LogSession {
	return store.LogSession{ID: ExternalSessionID(run.ID, externalID), RunID: run.ID, ProjectID: run.ProjectID,
		OrgID: run.OrgID, ExternalID: &externalID, CreatedAt: now}
}
