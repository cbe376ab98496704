// Command signals is the Lambda function of the signals operation group (SignalsFunction in
// template.yaml); its routes are listed in docs/routes.md. Beyond the other HTTP functions it
// starts the signals worker (on-demand runs) and keeps the configurations' EventBridge
// Scheduler schedules, through the ports shared/app/signalsworker installs at cold start.
package main

import (
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/app/signalsworker"
)

func init() { app.OnColdStart(signalsworker.CloudPorts) }

func main() { app.Lambda(groups.Signals) }
