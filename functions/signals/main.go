// Command signals is the Lambda function of the signals operation group (SignalsFunction in
// template.yaml); its routes are listed in docs/routes.md.
package main

import (
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"

	// IANA zones for the signals' schedules without relying on the Lambda image's zoneinfo;
	// here, not in shared/signals, so that only this function carries them.
	_ "time/tzdata"
)

func main() { app.Lambda(groups.Signals) }
