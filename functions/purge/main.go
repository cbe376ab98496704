// Command purge is the stream worker of the table (PurgeFunction in template.yaml): it
// removes the rows and collaborators of deleted datasets as DynamoDB Streams reports the
// deletions (shared/purge). Its dependencies are built like every function's (shared/app).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/purge"
)

func main() {
	d := app.ColdStart()
	lambda.Start(purge.New(d.Table, d.Log).HandleDynamoDBEvent)
}
