// Command signalsworker is the signals worker (SignalsWorkerFunction in template.yaml): it
// runs on-demand runs the API queued (asynchronous invocations), the fires of the
// configurations' EventBridge Scheduler schedules, and the hourly reconcile of those
// schedules (shared/signals.Worker documents the three inputs).
package main

import (
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/signalscloud"
	"github.com/evalobs/evalapi/shared/app/signalsworker"
)

func main() {
	d := app.ColdStart()
	w, err := signalscloud.Cloud(&d, os.Getenv, signalsworker.Model(d))
	if err != nil {
		d.Log.Error("init failed", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(w.Handle)
}
