// Command stream is the consumer of the table's stream (StreamFunction in template.yaml): it
// hands each change to the background handlers of shared/app/workers.Stream (the purge of
// what deletions leave, and the evaluation dispatcher, which sends to the queue named by
// EVAL_QUEUE_URL). Its dependencies are built like every function's (shared/app).
package main

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/workers"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/queue/sqsqueue"
)

func main() {
	d := app.ColdStart()
	ec, err := workers.ReadEvalConfig(os.Getenv)
	var sender queue.Sender
	if err == nil && ec.QueueURL != "" {
		sender, err = sqsqueue.NewSigned(app.LambdaAWSConfigOrExit(os.Getenv, d.Log), ec.QueueURL)
	}
	if err != nil {
		d.Log.Error("init failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(workers.Stream(d, sender, ec).HandleDynamoDBEvent)
}
