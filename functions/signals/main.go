// Command signals is the Lambda function of the signals operation group (SignalsFunction in
// template.yaml); its routes are listed in docs/routes.md. Beyond the other HTTP functions it
// starts the signals worker (on-demand runs) and keeps the configurations' EventBridge
// Scheduler schedules, through the ports shared/app/signalsworker fills.
package main

import (
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/app/signalsworker"
)

func main() {
	d := app.ColdStart()
	if _, err := signalsworker.Cloud(&d, os.Getenv); err != nil {
		d.Log.Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(app.Proxy(app.NewRouter(d, groups.Signals)))
}
