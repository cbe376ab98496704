// Command signalsworker is the signals worker (SignalsWorkerFunction in template.yaml): it
// runs on-demand runs the API queued (asynchronous invocations), the fires of the
// configurations' EventBridge Scheduler schedules, and the hourly reconcile of those
// schedules (shared/signals.Worker documents the three inputs). Its dependencies are built
// in shared/app (signalscloud.WorkerLambda).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app/signalscloud"
)

func main() { lambda.Start(signalscloud.WorkerLambda()) }
