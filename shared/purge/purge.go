// Package purge is the stream worker that removes what deleted datasets leave behind. Bulk
// deletion removes only each dataset's META item, so that its cost does not grow with the
// dataset; the table's stream then reports every removal, and this worker deletes the
// dataset's rows, row ids and collaborators in batches.
//
// The Worker is a handler of the stream consumer (shared/stream), which runs it in the cloud
// (functions/stream) and in the local host. Purging is idempotent: a record delivered
// twice, or retried after a failure, finds less or nothing to delete.
package purge

import (
	"context"
	"log/slog"
	"sync"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// deletedDataset returns the id of the dataset whose deletion r reports.
func deletedDataset(r stream.Record) (string, bool) {
	if r.New != nil {
		return "", false
	}
	return store.DeletedDatasetID(r.Old)
}

// Accepts says whether r reports the deletion of a dataset.
func (w *Worker) Accepts(r stream.Record) bool {
	_, ok := deletedDataset(r)
	return ok
}

// Worker purges deleted datasets.
type Worker struct {
	table store.Table
	log   *slog.Logger
}

// New returns a worker on table that logs to log (discarded when nil).
func New(table store.Table, log *slog.Logger) *Worker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{table: table, log: log}
}

// parallelPurges is how many datasets are purged at once. Each purge already writes with
// several calls at a time; different datasets are different partitions, so purging a few
// of them side by side spreads the load.
const parallelPurges = 4

// Handle purges every dataset whose deletion records report and returns the IDs of the
// records it could not finish, in record order; it skips the records of anything else.
func (w *Worker) Handle(ctx context.Context, records []stream.Record) []string {
	failed := make([]bool, len(records))
	slots := make(chan struct{}, parallelPurges)
	var wg sync.WaitGroup
	for i, r := range records {
		id, ok := deletedDataset(r)
		if !ok {
			continue
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			n, err := store.PurgeDataset(ctx, w.table, id)
			if err != nil {
				failed[i] = true
				w.log.ErrorContext(ctx, "purge of a deleted dataset failed", "dataset_id", id, "record", r.ID,
					"items_removed", n, "error", err.Error())
				return
			}
			w.log.InfoContext(ctx, "purged a deleted dataset", "dataset_id", id, "items_removed", n)
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
