// Package workers builds the background workers of the service from the shared
// dependencies: the worker functions (functions/stream, ...) and the local host build them
// here, so that both run the same handlers. It is apart from shared/app/groups so that a
// worker's binary does not link the HTTP groups.
package workers

import (
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/purge"
	"github.com/evalobs/evalapi/shared/stream"
)

// Stream is the consumer of the table's stream with every handler the service runs on it.
func Stream(d app.Deps) *stream.Consumer {
	return stream.NewConsumer(d.Log, purge.New(d.Table, d.Log).WithPayloads(d.Payloads))
}
