// Command docs is the Lambda function that serves the OpenAPI document as JSON and the API
// page (shared/docs); it touches neither the table nor any secret.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
)

func main() { lambda.Start(app.Handler(groups.Docs)) }
