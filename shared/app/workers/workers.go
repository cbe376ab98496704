// Package workers builds the background workers of the service from the shared
// dependencies: the worker functions (functions/stream, functions/evaluator) and the local
// host build them here, so that both run the same handlers. It is apart from
// shared/app/groups so that a worker's binary does not link the HTTP groups.
package workers

import (
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/evaluate"
	"github.com/evalobs/evalapi/shared/purge"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/stream"
)

// Stream is the consumer of the table's stream with every handler the service runs on it:
// the purge, and the evaluation dispatcher sending to evalQueue (none when nil).
func Stream(d app.Deps, evalQueue queue.Sender, ec EvalConfig) *stream.Consumer {
	handlers := []stream.Handler{purge.New(d.Table, d.Log).WithPayloads(d.Payloads)}
	if evalQueue != nil {
		handlers = append(handlers, evaluate.NewDispatcher(d.Table, evalQueue, ec.QuietPeriod, d.Log))
	}
	return stream.NewConsumer(d.Log, handlers...)
}

// Evaluator is the consumer of the evaluation queue, judging with j.
func Evaluator(d app.Deps, j evaluate.Judge, ec EvalConfig) *evaluate.Evaluator {
	return evaluate.NewEvaluator(d.Table, d.Payloads, j, evaluate.EvaluatorOptions{MaxReceiveCount: ec.MaxReceiveCount, Log: d.Log})
}
