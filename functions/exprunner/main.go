// Command exprunner is the experiment runner (ExperimentRunnerFunction in template.yaml): it
// takes chunk messages from the ExperimentChunks queue and generates their rows with
// shared/exprun, reporting the chunks that failed (ReportBatchItemFailures). Its
// dependencies are built in shared/app (workers.ExperimentRunnerLambda).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app/workers"
)

func main() { lambda.Start(workers.ExperimentRunnerLambda()) }
