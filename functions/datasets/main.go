// Command datasets is the Lambda function of the datasets operation group (DatasetsFunction in
// template.yaml); its routes are listed in docs/routes.md.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
)

func main() { lambda.Start(app.Handler(groups.Datasets)) }
