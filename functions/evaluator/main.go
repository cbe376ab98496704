// Command evaluator is the consumer of the evaluation queue (EvaluatorFunction in
// template.yaml): an SQS event source mapping with ReportBatchItemFailures and a
// MaximumConcurrency cap delivers (record, scorer) messages, which shared/evaluate judges
// and writes exactly once. Its dependencies are built in shared/app (workers.EvaluatorLambda).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app/workers"
)

func main() { lambda.Start(workers.EvaluatorLambda()) }
