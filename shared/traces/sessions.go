package traces

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Sessions of a run: created by the logging client before it logs their traces
// (POST sessions), found by external id, or created implicitly by the traces that name them.

// sessionRequest is the client's SessionCreateRequest.
type sessionRequest struct {
	run                          runRef
	name, externalID, previousID *string
	metadata                     map[string]string
}

func readSessionCreate(errs *validate.Errors, raw any, present bool) sessionRequest {
	var q sessionRequest
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return q
	}
	before := errs.Len()
	fields := []string{"log_stream_id", "experiment_id"}
	run, one := readRun(o, fields)
	q.run = run
	readClientFields(o)
	q.name = optStr(o, "name", validate.MaxLen(1000))
	q.externalID = optStr(o, "external_id", validate.MinLen(1), validate.MaxLen(255))
	q.previousID = optUUID(o, "previous_session_id")
	q.metadata = optStringMap(o, "user_metadata")
	if errs.Len() == before && !one {
		errs.Add(oneRunError(o, fields))
	}
	return q
}

// sessionCreated is the client's SessionCreateResponse.
type sessionCreated struct {
	ID                string  `json:"id"`
	Name              *string `json:"name"`
	ProjectID         string  `json:"project_id"`
	ProjectName       string  `json:"project_name"`
	PreviousSessionID *string `json:"previous_session_id"`
	ExternalID        *string `json:"external_id"`
}

// createSession is POST /v2/projects/{project_id}/sessions. A session with an external id
// is the one session of the run with it: creating it again answers the same session.
func (h *handlers) createSession(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Write: true}, base.ByID("project_id", 4, readSessionCreate))
	if err != nil {
		return err
	}
	c, projectID, q := call.Caller, call.In.ID, call.In.Req
	resolved := h.resolveSession(r.Context(), q.run.id, q.externalID)
	project, run, err := h.findProjectRun(r.Context(), c, projectID, q.run)
	if err != nil {
		return err
	}
	s := store.LogSession{ID: uuid.NewString(), RunID: run.ID, ProjectID: run.ProjectID, OrgID: run.OrgID,
		Name: q.name, ExternalID: q.externalID, PreviousSessionID: q.previousID, Metadata: q.metadata, CreatedAt: h.Stamp()}
	if q.externalID != nil {
		if s.ID, err = resolved(); err != nil {
			return err
		}
	}
	created, err := store.PutLogSession(r.Context(), h.Table, s)
	if err != nil {
		return err
	}
	if !created { // the session of this external id exists: answer it as it is
		if s, err = h.sessionByID(r.Context(), c, projectID, s.ID); err != nil {
			return err
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, sessionCreated{ID: s.ID, Name: s.Name, ProjectID: project.ID,
		ProjectName: project.Name, PreviousSessionID: s.PreviousSessionID, ExternalID: s.ExternalID})
	return nil
}

// requestSession is the session an ingestion request names for its traces: session_id, or
// the session of session_external_id (whose id is a function of it, resolved against the
// run's sessions), or none; and how the ingestion creates the latter when the run has none
// yet.
func (h *handlers) requestSession(run store.Run, id, externalID *string, resolved func() (string, error)) (*string, map[string]store.LogSession, error) {
	if id != nil || externalID == nil {
		return id, nil, nil
	}
	sid, err := resolved()
	if err != nil {
		return nil, nil, err
	}
	s := store.LogSession{ID: sid, RunID: run.ID, ProjectID: run.ProjectID, OrgID: run.OrgID, ExternalID: externalID, CreatedAt: h.Stamp()}
	return &s.ID, map[string]store.LogSession{s.ID: s}, nil
}

// resolveSession starts resolving the id of the session of run runID (as the request names
// it) named externalID, beside the reads of the project and the run: its key is a function
// of the request, so the lookup costs no round trip of its own. The returned func waits for
// it; a request whose run turns out not to be the caller's never calls it. With no external
// id it reads nothing.
func (h *handlers) resolveSession(ctx context.Context, runID string, externalID *string) func() (string, error) {
	if externalID == nil {
		return func() (string, error) { return "", nil }
	}
	type result struct {
		id  string
		err error
	}
	done := make(chan result, 1)
	go func() {
		id, err := records.ResolveExternalSessionID(ctx, h.Table, runID, *externalID)
		done <- result{id, err}
	}()
	return sync.OnceValues(func() (string, error) {
		r := <-done
		return r.id, r.err
	})
}

// sessionByID reads a session of the caller's project, or answers 404.
func (h *handlers) sessionByID(ctx context.Context, c auth.Caller, projectID, id string) (store.LogSession, error) {
	it, err := store.RecordItem(ctx, h.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.LogSession{}, httpapi.NotFound("Session")
	}
	if err != nil {
		return store.LogSession{}, err
	}
	var s store.LogSession
	if it[store.AttrEntity] != store.EntityLogSession || store.DecodeLogSession(it, &s) != nil ||
		s.OrgID != c.OrgID || s.ProjectID != projectID {
		return store.LogSession{}, httpapi.NotFound("Session")
	}
	return s, nil
}
