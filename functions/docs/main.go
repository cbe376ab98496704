// Command docs is the Lambda function that serves the OpenAPI document as JSON and the API
// page (shared/docs); it touches neither the table nor any secret.
package main

import (
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
)

func main() { app.Lambda(groups.Docs) }
