package records

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// An ingestion stores traces in chunks, each one transaction that also adds them to the
// roll-ups, the run summary, the session claims and the column summary: a trace is stored
// if and only if it is counted, whatever fails and however often the request is retried.

// Bounds of one chunk: DynamoDB takes 100 actions and 4 MB per transaction; the size is
// estimated (store.ItemSize), so a chunk stays at half the limit.
const (
	chunkActions = store.MaxTransactItems
	chunkBytes   = store.MaxTransactBytes / 2
	// fixedActions are the run summary and the column summary, in every chunk.
	fixedActions = 2
	// InlineSpans is how many spans of a trace go in its chunk's transaction; a trace with
	// more has its spans written ahead of it in batches.
	InlineSpans = 20
)

// Retries of one chunk: a concurrent writer that moved a min or max (or stored one of the
// traces) fails a condition and the chunk is rebuilt from a fresh read; a transaction
// conflict is retried after a jittered backoff. Both within the request's deadline.
const (
	maxChunkAttempts = 16
	backoffBase      = 10 * time.Millisecond
	backoffCap       = 400 * time.Millisecond
)

// ErrBusy answers a chunk that could not commit in its attempts: nothing of it was
// written, the chunks before it were, and a retry of the request writes the rest.
var ErrBusy = errors.New("too many concurrent writes to this run")

// ingestion is the state of one Ingest call: what the table holds, as read before the
// first chunk and kept current by each commit.
type ingestion struct {
	t       store.Table
	runID   string
	now     time.Time
	stored  map[store.Key]bool       // traces stored before or by this call
	claimed map[string]bool          // sessions the run has
	cur     map[store.Key]store.Item // roll-ups and run summary as read or written (nil: absent)
	traces  map[store.Key]bool       // the keys of this call's traces
	session map[store.Key]string     // session claim key -> session id
	// newSessions are the sessions to create as the request describes them (by id); others
	// the traces name are created bare.
	newSessions map[string]store.LogSession
}

// read reads keys (traces, session claims, roll-ups, the summary) with one batch read.
func (in *ingestion) read(ctx context.Context, keys []store.Key) error {
	if len(keys) == 0 {
		return nil
	}
	// Strongly consistent: after a lost race the chunk re-reads what the winner wrote.
	items, err := in.t.BatchGet(ctx, keys, true)
	if err != nil {
		return fmt.Errorf("ingest: read: %w", err)
	}
	found := make(map[store.Key]store.Item, len(items))
	for _, it := range items {
		found[it.Key()] = it
	}
	for _, k := range keys {
		it, ok := found[k]
		switch {
		case in.traces[k]:
			in.stored[k] = in.stored[k] || ok
		case in.session[k] != "":
			in.claimed[in.session[k]] = in.claimed[in.session[k]] || ok
		default:
			in.cur[k] = it
		}
	}
	return nil
}

// role is what one action of a chunk's transaction is.
type role struct {
	trace   bool
	session string // a session claim
	key     store.Key
	exs     []store.Extreme // an update's min and max
}

// build makes the transaction of the traces of a chunk not stored yet.
func (in *ingestion) build(live []store.Trace) ([]store.Op, []role, error) {
	ops := make([]store.Op, 0, chunkActions)
	roles := make([]role, 0, chunkActions)
	for _, tr := range live {
		trOps, err := store.TracePutOps(tr)
		if err != nil {
			return nil, nil, fmt.Errorf("ingest: %w", err)
		}
		for _, op := range trOps {
			ops, roles = append(ops, op), append(roles, role{trace: true, key: store.RecordClaimKey(tr.RunID, tr.ID)})
		}
		if len(tr.Spans) <= InlineSpans {
			for _, sp := range tr.Spans {
				it, err := store.SpanItem(sp)
				if err != nil {
					return nil, nil, fmt.Errorf("ingest: %w", err)
				}
				ops, roles = append(ops, store.PutOp(it)), append(roles, role{trace: true, key: store.RecordClaimKey(tr.RunID, tr.ID)})
			}
		}
	}
	var sessions int64
	for _, id := range chunkSessions(live, in.claimed) {
		s := in.newSessions[id]
		if s.ID == "" { // a session the traces name that the run does not have: created bare
			s = store.LogSession{ID: id, RunID: in.runID, ProjectID: live[0].ProjectID, OrgID: live[0].OrgID, CreatedAt: in.now}
		}
		sessionOps, err := store.LogSessionOps(s)
		if err != nil {
			return nil, nil, fmt.Errorf("ingest: %w", err)
		}
		for _, op := range sessionOps {
			ops = append(ops, op)
			roles = append(roles, role{session: id, key: store.SessionKey(in.runID, id)})
		}
		sessions++
	}
	update := func(u store.Update, exs []store.Extreme) {
		ops = append(ops, store.UpdateOp(store.WithExtremes(u, in.cur[u.Key], exs)))
		roles = append(roles, role{key: u.Key, exs: exs})
	}
	for _, d := range rollupDeltas(live) {
		update(store.RollupUpdate(in.runID, d), store.RollupExtremes(d))
	}
	sum := summaryDelta(in.runID, live, sessions)
	update(store.RunSummaryUpdate(in.runID, sum, in.now), store.RunSummaryExtremes(sum))
	update(store.ColumnsFilledUpdate(in.runID, filledColumns(live)), nil)
	return ops, roles, nil
}

// chunkSessions are the sessions of traces that the run does not have yet, once each.
func chunkSessions(traces []store.Trace, claimed map[string]bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, tr := range traces {
		if tr.SessionID == nil || claimed[*tr.SessionID] || seen[*tr.SessionID] {
			continue
		}
		seen[*tr.SessionID] = true
		out = append(out, *tr.SessionID)
	}
	return out
}

// commit writes a chunk and returns how many of its traces it stored (those stored before
// are left out, and so is their count).
func (in *ingestion) commit(ctx context.Context, chunk []store.Trace) (int, error) {
	for attempt := 1; ; attempt++ {
		live := make([]store.Trace, 0, len(chunk))
		for _, tr := range chunk {
			if !in.stored[store.RecordClaimKey(tr.RunID, tr.ID)] {
				live = append(live, tr)
			}
		}
		if len(live) == 0 {
			return 0, nil
		}
		ops, roles, err := in.build(live)
		if err != nil {
			return 0, err
		}
		err = in.t.Transact(ctx, ops)
		if err == nil {
			in.committed(roles)
			return len(live), nil
		}
		var tx *store.TxCanceledError
		switch {
		case errors.As(err, &tx) && errors.Is(err, store.ErrConditionFailed):
			if err := in.settle(ctx, tx, roles); err != nil {
				return 0, err
			}
		case errors.Is(err, store.ErrConflict):
			if err := backoff(ctx, attempt); err != nil {
				return 0, err
			}
		default:
			return 0, fmt.Errorf("ingest: transact %d actions: %w", len(ops), err)
		}
		if attempt >= maxChunkAttempts {
			return 0, ErrBusy
		}
	}
}

// committed records what a transaction wrote: the traces and sessions now exist, and the
// min and max it set are the items' current ones (the next chunk builds on them unread).
func (in *ingestion) committed(roles []role) {
	for _, r := range roles {
		switch {
		case r.trace:
			in.stored[r.key] = true
		case r.session != "":
			in.claimed[r.session] = true
		default:
			for _, e := range r.exs {
				in.cur[r.key] = store.ApplyExtreme(in.cur[r.key], e)
			}
		}
	}
}

// settle learns from a canceled transaction which conditions failed: a trace stored by a
// concurrent duplicate, a session claimed by another request, a min or max moved by another
// writer (read again). An adapter may name only the first failed action: the next attempt
// finds the others.
func (in *ingestion) settle(ctx context.Context, tx *store.TxCanceledError, roles []role) error {
	var stale []store.Key
	for i, reason := range tx.Reasons {
		if reason != "ConditionalCheckFailed" || i >= len(roles) {
			continue
		}
		switch r := roles[i]; {
		case r.trace:
			in.stored[r.key] = true
		case r.session != "":
			in.claimed[r.session] = true
		default:
			stale = append(stale, r.key)
		}
	}
	return in.read(ctx, stale)
}

// backoff waits before retrying a conflicting transaction, or answers 503 when the wait
// would pass the request's deadline.
func backoff(ctx context.Context, attempt int) error {
	d := min(backoffCap, backoffBase<<min(attempt-1, 10))
	d = d/2 + rand.N(d/2+1)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return ErrBusy
	}
	select {
	case <-ctx.Done():
		return fmt.Errorf("ingest: %w", ctx.Err())
	case <-time.After(d):
		return nil
	}
}
