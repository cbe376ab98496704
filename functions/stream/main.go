// Command stream is the consumer of the table's stream (StreamFunction in template.yaml): it
// hands each change to the background handlers of shared/app/workers.Stream (today the purge
// of deleted datasets' rows and collaborators). Its dependencies are built like every
// function's (shared/app).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/workers"
)

func main() { lambda.Start(workers.Stream(app.ColdStart()).HandleDynamoDBEvent) }
