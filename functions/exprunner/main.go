// Command exprunner is the experiment runner (ExperimentRunnerFunction in template.yaml): it
// takes chunk messages from the ExperimentChunks queue and generates their rows with
// shared/exprun, reporting the chunks that failed (ReportBatchItemFailures). Its
// dependencies are built like every function's (shared/app).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/workers"
)

// The provider client, the evaluator and the price map plug in here once they exist
// (workers.ExperimentRunner's nil model fails rows with configuration_error meanwhile).
func main() {
	d := app.ColdStart()
	model, prices := workers.ExperimentModels(d)
	lambda.Start(workers.ExperimentRunner(d, model, nil, prices).HandleSQS)
}
