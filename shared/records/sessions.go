package records

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/ids"
	"github.com/evalobs/evalapi/shared/store"
)

// Session identity: a session named by an external id, and the session of traces logged
// with none, have ids that are a function of their run and that name, so that concurrent
// creations of "the session of user 42" (a session create, an ingestion, an OTLP export)
// make one session and a retried request finds the same one.
//
// The function is ids.Hashed (a UUID4). Before it, these ids were version-5 UUIDs, which the
// original's clients refuse; a run may hold such a session still, and traces that continue
// it must not start a second one. So the id is resolved: the run's claim of the former id
// (store.SessionKey, written with every session) is read first, and only a run without it
// gets the new id. The claim is the stored mapping name → id: it outlives a deleted session,
// as it did before, so that a retried log does not bring the session back.

// sessionNamespace is the UUID namespace of those ids.
var sessionNamespace = uuid.MustParse("3f1c5e7a-9b2d-4c6e-8a0f-1d2e3f4a5b6c")

func sessionName(runID, externalID string) string { return runID + "\x00" + externalID }

func implicitName(traceID string) string { return "implicit:" + traceID }

// ExternalSessionID is the id a new session of run runID named externalID gets.
func ExternalSessionID(runID, externalID string) string {
	return ids.Hashed(sessionNamespace, sessionName(runID, externalID))
}

// LegacyExternalSessionID is the version-5 id the service gave that session before ids
// were UUID4: what a run that had it still holds.
func LegacyExternalSessionID(runID, externalID string) string {
	h := sha256.Sum256([]byte(sessionName(runID, externalID)))
	return uuid.NewHash(sha256.New(), sessionNamespace, h[:], 5).String()
}

// ResolveExternalSessionID is the id of the session of run runID named externalID: the
// former version-5 id when the run has a session of it, else ExternalSessionID.
func ResolveExternalSessionID(ctx context.Context, t store.Table, runID, externalID string) (string, error) {
	legacy := LegacyExternalSessionID(runID, externalID)
	_, err := t.Get(ctx, store.SessionKey(runID, legacy), true)
	switch {
	case err == nil:
		return legacy, nil
	case errors.Is(err, store.ErrNotFound):
		return ExternalSessionID(runID, externalID), nil
	default:
		return "", fmt.Errorf("resolve session %q of run %s: %w", externalID, runID, err)
	}
}

// ImplicitSessionID is the session of traces logged without one, named by the first of
// them: every trace belongs to a session. It is not resolved against a former id: a trace is
// logged once, so only a retry straddling the change could meet one, and a retry finds its
// traces stored and writes nothing.
func ImplicitSessionID(runID, traceID string) string {
	return ExternalSessionID(runID, implicitName(traceID))
}
