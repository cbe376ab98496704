// Package purge is the stream worker that removes what deleted records leave behind.
// Deleting a dataset removes only its META item, deleting a project only its META item
// and name, deleting a log stream only its item and name, so that the cost of a deletion
// does not grow with what it held; the table's stream then reports every removal, and this
// worker deletes the rest in batches: a dataset's rows, row ids and collaborators; a
// project's log streams, experiments, names and signals configurations; a run's traces,
// roll-ups and summaries (the removal of each run of a deleted project is itself reported);
// a trace's spans and the large contents of both (the removal of each trace of a purged
// run is itself reported); a prompt template's home record, versions and collaborators
// (deleting a template removes its record, name and home record; a purged project's
// templates follow the same path).
//
// The Worker is a handler of the stream consumer (shared/stream), which runs it in the cloud
// (functions/stream) and in the local host. Purging is idempotent: a record delivered
// twice, or retried after a failure, finds less or nothing to delete.
package purge

import (
	"context"
	"log/slog"
	"sync"

	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// job is the purge a stream record asks for.
type job struct {
	kind, id string
	run      func(ctx context.Context, t store.Table) (int, error)
}

// jobOf returns the purge r asks for: r reports the removal of a dataset, a project, a run,
// a trace or a prompt template.
func (w *Worker) jobOf(r stream.Record) (job, bool) {
	if r.New != nil {
		return job{}, false
	}
	if id, ok := store.DeletedTraceID(r.Old); ok {
		return job{"trace", id, func(ctx context.Context, t store.Table) (int, error) { return w.purgeTrace(ctx, id, r.Old) }}, true
	}
	if id, ok := store.DeletedDatasetID(r.Old); ok {
		return job{"dataset", id, func(ctx context.Context, t store.Table) (int, error) { return store.PurgeDataset(ctx, t, id) }}, true
	}
	if id, ok := store.DeletedProjectID(r.Old); ok {
		return job{"project", id, func(ctx context.Context, t store.Table) (int, error) { return store.PurgeProject(ctx, t, id) }}, true
	}
	if pid, id, ok := store.DeletedRunID(r.Old); ok {
		return job{"run", id, func(ctx context.Context, t store.Table) (int, error) { return store.PurgeRun(ctx, t, pid, id) }}, true
	}
	if k, id, ok := store.DeletedPromptTemplate(r.Old); ok {
		return job{"prompt_template", id, func(ctx context.Context, t store.Table) (int, error) { return store.PurgePromptTemplate(ctx, t, k) }}, true
	}
	return job{}, false
}

// Accepts says whether r reports the deletion of something to purge.
func (w *Worker) Accepts(r stream.Record) bool {
	_, ok := w.jobOf(r)
	return ok
}

// Worker purges deleted datasets, projects, runs, traces and prompt templates.
type Worker struct {
	table    store.Table
	log      *slog.Logger
	payloads payload.Store
}

// WithPayloads makes the worker delete the large contents of deleted traces and spans
// from ps too (without, they stay).
func (w *Worker) WithPayloads(ps payload.Store) *Worker {
	w.payloads = ps
	return w
}

// purgeTrace deletes the spans of a deleted trace and the payloads of both; old is the
// trace's last image.
func (w *Worker) purgeTrace(ctx context.Context, id string, old store.Item) (int, error) {
	if moved, err := store.TraceMoved(ctx, w.table, old); err != nil || moved {
		return 0, err // a moved trace keeps its spans and contents
	}
	drop := func(it store.Item) error {
		if w.payloads == nil {
			return nil
		}
		c, err := store.RecordContentOf(it)
		if err != nil {
			return err
		}
		for _, k := range payload.Pointers(c) {
			if err := w.payloads.Delete(ctx, k); err != nil {
				return err
			}
		}
		return nil
	}
	n, err := store.PurgeTraceSpans(ctx, w.table, id, drop)
	if err != nil {
		return n, err
	}
	return n, drop(old)
}

// New returns a worker on table that logs to log (discarded when nil).
func New(table store.Table, log *slog.Logger) *Worker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{table: table, log: log}
}

// parallelPurges is how many purges run at once. Each purge already writes with several
// calls at a time; different records are different partitions, so purging a few of them
// side by side spreads the load.
const parallelPurges = 4

// Handle purges what every deletion record reports and returns the IDs of the records it
// could not finish, in record order; it skips the records of anything else.
func (w *Worker) Handle(ctx context.Context, records []stream.Record) []string {
	failed := make([]bool, len(records))
	slots := make(chan struct{}, parallelPurges)
	var wg sync.WaitGroup
	for i, r := range records {
		j, ok := w.jobOf(r)
		if !ok {
			continue
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			n, err := j.run(ctx, w.table)
			if err != nil {
				failed[i] = true
				w.log.ErrorContext(ctx, "purge failed", "kind", j.kind, "id", j.id, "record", r.ID,
					"items_removed", n, "error", err.Error())
				return
			}
			w.log.InfoContext(ctx, "purged", "kind", j.kind, "id", j.id, "items_removed", n)
		})
	}
	wg.Wait()
	var ids []string
	for i, f := range failed {
		if f {
			ids = append(ids, records[i].ID)
		}
	}
	return ids
}
