package workers

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/queue/sqsqueue"
	"github.com/evalobs/evalapi/shared/stream"
)

// The handlers of the worker functions, which their mains give to lambda.Start. Each builds
// its dependencies once per cold start (app.ColdStart) and ends the process on a bad
// configuration (app.FailInit), so that a main has nothing to wire. They return the handler
// rather than start it: this package is linked by the local host too, which must not link
// the Lambda runtime client (app.Handler).

// StreamLambda is the handler of the table's stream function (functions/stream): Stream, its
// evaluation dispatcher sending to the queue EVAL_QUEUE_URL names (no dispatcher when unset).
func StreamLambda() func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	d := app.ColdStart()
	c, err := cloudStream(d, os.Getenv)
	if err != nil {
		app.FailInit(d.Log, err)
	}
	return c.HandleDynamoDBEvent
}

// cloudStream is the stream consumer of the cloud, configured by getenv.
func cloudStream(d app.Deps, getenv func(string) string) (*stream.Consumer, error) {
	ec, err := ReadEvalConfig(getenv)
	if err != nil {
		return nil, err
	}
	// The errors are returned as they are: each names its variable or the queue URL already.
	var sender queue.Sender
	if ec.QueueURL != "" {
		awsCfg, err := app.LambdaAWSConfig(getenv)
		if err != nil {
			return nil, err
		}
		s, err := sqsqueue.NewSigned(awsCfg, ec.QueueURL)
		if err != nil {
			return nil, err
		}
		sender = s
	}
	return Stream(d, sender, ec), nil
}

// EvaluatorLambda is the handler of the evaluation queue's consumer (functions/evaluator):
// Evaluator judging with LLMJudge, its failed messages reported for redelivery.
func EvaluatorLambda() func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	d := app.ColdStart()
	ec, err := ReadEvalConfig(os.Getenv)
	if err != nil {
		app.FailInit(d.Log, err)
	}
	return sqsqueue.Handle(Evaluator(d, LLMJudge(d), ec).Handle)
}

// ExperimentRunnerLambda is the handler of the experiment chunks' consumer
// (functions/exprunner): rows asked and priced through ExperimentModels, and no scoring port,
// since the stream's evaluation dispatcher scores the experiment's traces.
func ExperimentRunnerLambda() func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	d := app.ColdStart()
	model, prices := ExperimentModels(d)
	return ExperimentRunner(d, model, nil, prices).HandleSQS
}
