// Package stream is the consumer of the table's change stream. DynamoDB Streams allows two
// readers per shard, so one consumer reads it and hands each record to the handlers that
// accept it (shared/purge, the evaluation dispatcher, the extremes repair of
// shared/records; shared/app/workers.Stream lists them).
//
// The same Consumer runs in the cloud (functions/stream: a Lambda on the DynamoDB stream,
// see HandleDynamoDBEvent) and in the local host (shared/app/local.Stream, fed by the
// embedded store's commits). Handlers must be idempotent: a record is delivered at least
// once, and a batch is retried from its first failed record.
package stream

import (
	"context"
	"log/slog"

	"github.com/evalobs/evalapi/shared/store"
)

// Record is one change of the table's stream, whatever its source: Old is the item before
// the change (nil for a create), New the item after it (nil for a removal). ID names the
// record to its source in failure reports (a DynamoDB stream record's sequence number).
type Record struct {
	ID  string
	Old store.Item
	New store.Item
}

// Handler is one piece of background work driven by the stream.
type Handler interface {
	// Accepts says whether the handler has work for r; it must be cheap and read nothing.
	Accepts(r Record) bool
	// Handle does the work of records (all accepted) and returns the IDs of those it could
	// not finish.
	Handle(ctx context.Context, records []Record) (failed []string)
}

// Consumer routes records to its handlers.
type Consumer struct {
	handlers []Handler
	log      *slog.Logger
}

// NewConsumer returns a consumer of handlers that logs to log (discarded when nil).
func NewConsumer(log *slog.Logger, handlers ...Handler) *Consumer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Consumer{handlers: handlers, log: log}
}

// Accepts says whether any handler has work for r.
func (c *Consumer) Accepts(r Record) bool {
	for _, h := range c.handlers {
		if h.Accepts(r) {
			return true
		}
	}
	return false
}

// Handle gives every handler the records it accepts and returns the IDs of the records some
// handler could not finish, in record order. Records no handler accepts are skipped.
func (c *Consumer) Handle(ctx context.Context, records []Record) []string {
	failed := map[string]bool{}
	for _, h := range c.handlers {
		var mine []Record
		for _, r := range records {
			if h.Accepts(r) {
				mine = append(mine, r)
			}
		}
		if len(mine) == 0 {
			continue
		}
		for _, id := range h.Handle(ctx, mine) {
			failed[id] = true
		}
	}
	var out []string
	for _, r := range records {
		if failed[r.ID] {
			out = append(out, r.ID)
			delete(failed, r.ID) // a repeated ID is reported once
		}
	}
	return out
}
