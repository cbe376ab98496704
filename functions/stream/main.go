// Command stream is the consumer of the table's stream (StreamFunction in template.yaml): it
// hands each change to the background handlers of shared/app/workers.Stream (the purge of
// what deletions leave, and the evaluation dispatcher, which sends to the queue named by
// EVAL_QUEUE_URL). Its dependencies are built in shared/app (workers.StreamLambda).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app/workers"
)

func main() { lambda.Start(workers.StreamLambda()) }
