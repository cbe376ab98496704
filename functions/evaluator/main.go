// Command evaluator is the consumer of the evaluation queue (EvaluatorFunction in
// template.yaml): an SQS event source mapping with ReportBatchItemFailures and a
// MaximumConcurrency cap delivers (record, scorer) messages, which shared/evaluate judges
// and writes exactly once. Its dependencies are built like every function's (shared/app).
package main

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/workers"
	"github.com/evalobs/evalapi/shared/queue/sqsqueue"
)

func main() {
	d := app.ColdStart()
	ec, err := workers.ReadEvalConfig(os.Getenv)
	if err != nil {
		d.Log.Error("init failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(sqsqueue.Handle(workers.Evaluator(d, workers.LLMJudge(d), ec).Handle))
}
