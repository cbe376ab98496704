// Package workers builds the background workers of the service from the shared
// dependencies: the worker functions (functions/stream, functions/evaluator,
// functions/exprunner, through the *Lambda handlers of lambda.go) and the local host build
// them here, so that both run the same handlers. It is apart from shared/app/groups so that
// a worker's binary does not link the HTTP groups.
package workers

import (
	"context"
	"errors"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/evaluate"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/purge"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/stream"
)

// Stream is the consumer of the table's stream with every handler the service runs on it:
// the purge, the repair of the extremes a trace's revision left (records.Repairer), and the
// evaluation dispatcher sending to evalQueue (none when nil).
func Stream(d app.Deps, evalQueue queue.Sender, ec EvalConfig) *stream.Consumer {
	handlers := []stream.Handler{purge.New(d.Table, d.Log).WithPayloads(d.Payloads), records.NewRepairer(d.Table, d.Log)}
	if evalQueue != nil {
		handlers = append(handlers, evaluate.NewDispatcher(d.Table, evalQueue, ec.QuietPeriod, d.Log))
	}
	return stream.NewConsumer(d.Log, handlers...)
}

// Evaluator is the consumer of the evaluation queue, judging with j.
func Evaluator(d app.Deps, j evaluate.Judge, ec EvalConfig) *evaluate.Evaluator {
	return evaluate.NewEvaluator(d.Table, d.Payloads, j, evaluate.EvaluatorOptions{MaxReceiveCount: ec.MaxReceiveCount, Log: d.Log})
}

// ExperimentRunner is the worker of experiment chunks (functions/exprunner, and in-process
// on the local hosts). model answers the rows and scoring scores them: the provider client
// and the evaluator plug in here (nil model: every row fails with configuration_error
// naming the missing client, so a job still ends with true counters; nil scoring: traces
// are written unscored).
func ExperimentRunner(d app.Deps, model exprun.Model, scoring exprun.Scoring, prices exprun.Prices) *exprun.Worker {
	if model == nil {
		model = unwiredModel{}
	}
	return &exprun.Worker{Table: d.Table, Model: model, Scoring: scoring, Prices: prices,
		Traces: records.RunnerTraces{Table: d.Table, Now: d.Now}, Now: d.Now, Log: d.Log}
}

// unwiredModel stands for the provider client where a host has none.
type unwiredModel struct{}

func (unwiredModel) Complete(context.Context, exprun.Completion) (exprun.Answer, error) {
	return exprun.Answer{}, &exprun.ModelError{Type: exprun.ErrConfiguration,
		Message: errors.New("no model provider client is configured on this deployment").Error()}
}
