package signalscloud

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/schedule/ebscheduler"
	"github.com/evalobs/evalapi/shared/schedule/ebscheduler/ebschedulertest"
)

// The signed Scheduler requests do on moto what the SDK's client does (ebschedulertest.Run,
// the scenario ebscheduler's own test runs over the SDK).
func TestRawSchedulerOnMoto(t *testing.T) {
	endpoint := testenv.Moto(t)
	ebschedulertest.Run(t, endpoint, func(string) ebscheduler.API {
		raw := newRawAWS(aws.Config{Region: "us-east-1", Credentials: ebschedulertest.Credentials})
		raw.base = endpoint
		return rawScheduler{raw}
	})
}
