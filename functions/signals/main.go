// Command signals is the Lambda function of the signals operation group (SignalsFunction in
// template.yaml); its routes are listed in docs/routes.md. Beyond the other HTTP functions it
// starts the signals worker (on-demand runs) and keeps the configurations' EventBridge
// Scheduler schedules, through the ports shared/app/signalscloud installs at cold start.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"

	// IANA zones for the signals' schedules without relying on the Lambda image's zoneinfo;
	// here, not in shared/signals, so that only this function carries them.
	_ "time/tzdata"

	"github.com/evalobs/evalapi/shared/app/signalscloud"
)

func init() { app.OnColdStart(signalscloud.CloudPorts) }

func main() { lambda.Start(app.Handler(groups.Signals)) }
