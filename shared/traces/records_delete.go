package traces

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// POST traces/delete and sessions/delete (the client's LogRecordsDeleteRequest): the records
// the filters select go, with their contributions to the roll-ups and the run's counts, in
// one transaction per trace (revise.go, exact and repeatable: a trace already gone counts
// nothing). A deleted trace's spans and large contents are removed by the stream consumer
// when it sees the trace's item go (shared/purge), so that the answer does not wait on a
// 2,000-span trace. A session takes its traces with it. Ids stay claimed: a retried batch
// of a deleted trace does not bring it back.

// maxDeleteRecords bounds the records one delete request removes; the answer says when more
// remain, and the same request again removes the next ones.
const maxDeleteRecords = 1000

type deleteResponse struct {
	Message string `json:"message"`
}

// errDeleteNeedsFilter refuses a delete that selects every record of the run.
var errDeleteNeedsFilter = validate.Single(validate.ValueError([]any{"body"}, nil,
	"a delete selects its records with filters or filter_tree (an id filter for given records); "+
		"to remove every record, delete the log stream"))

func (h *handlers) deleteTraces(w http.ResponseWriter, r *http.Request) error {
	return h.deleteRecords(w, r, store.EntityTrace)
}

func (h *handlers) deleteSessions(w http.ResponseWriter, r *http.Request) error {
	return h.deleteRecords(w, r, store.EntityLogSession)
}

func (h *handlers) deleteRecords(w http.ResponseWriter, r *http.Request, entity string) error {
	qd, err := h.readQueried(r, partFilters)
	if err != nil {
		return err
	}
	if qd.q.unfiltered() {
		return errDeleteNeedsFilter
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	ctx := r.Context()
	var rows []*row
	more := false
	err = newEngine(h.Table, h.Payloads, h.RecordScanBound, entity, qd.run.ID, qd.q).scan(ctx, false, nil, func(r *row) error {
		if len(rows) == maxDeleteRecords {
			more = true
			return errStopScan
		}
		rows = append(rows, r)
		return nil
	})
	if errors.Is(err, errRecordBound) {
		return errRecordsTooWide(qd.q.raw, h.RecordScanBound)
	}
	if err != nil && !errors.Is(err, errStopScan) {
		return err
	}
	traces, sessions := 0, 0
	for _, rw := range rows {
		if rw.se != nil {
			n, err := h.deleteSession(ctx, rw)
			if err != nil {
				return err
			}
			traces += n
			sessions++
			continue
		}
		if err := h.deleteTrace(ctx, rw.it); err != nil {
			return err
		}
		traces++
	}
	msg := fmt.Sprintf("Deleted %d traces", traces)
	if entity == store.EntityLogSession {
		msg = fmt.Sprintf("Deleted %d sessions and their %d traces", sessions, traces)
	}
	if more {
		msg += fmt.Sprintf("; more than %d records matched: send the request again to delete the next ones", maxDeleteRecords)
	}
	httpapi.WriteJSON(w, http.StatusOK, deleteResponse{Message: msg})
	return nil
}

// deleteTrace removes one trace (read again strongly, so that a concurrent change is seen)
// and its contributions; a trace already gone is done.
func (h *handlers) deleteTrace(ctx context.Context, found store.Item) error {
	return h.retryRevision(ctx, func(ctx context.Context) error {
		it, err := h.Table.Get(ctx, found.Key(), true)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		var tr store.Trace
		if err := store.DecodeTrace(it, &tr); err != nil {
			return err
		}
		rv := records.Revision{RunID: tr.RunID, Before: &tr, BeforeItem: it, Now: h.Stamp(), SpansChange: -tr.NumSpans}
		return rv.Apply(ctx, h.Table)
	})
}

// deleteSession removes a session's traces, then the session; it answers how many traces.
func (h *handlers) deleteSession(ctx context.Context, rw *row) (int, error) {
	n := 0
	q := store.SessionTracesQuery(rw.se.ID)
	for {
		p, err := h.Table.Query(ctx, q)
		if err != nil {
			return n, fmt.Errorf("traces of session %s: %w", rw.se.ID, err)
		}
		for _, it := range p.Items {
			if err := h.deleteTrace(ctx, it); err != nil {
				return n, err
			}
			n++
		}
		if p.Next == nil {
			break
		}
		q.Start = p.Next
	}
	return n, store.DeleteLogSession(ctx, h.Table, rw.it, h.Stamp())
}
