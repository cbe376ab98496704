package ebscheduler_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/schedule/ebscheduler"
	"github.com/evalobs/evalapi/shared/schedule/ebscheduler/ebschedulertest"
)

// TestMoto runs the adapter over the SDK's client against moto's EventBridge Scheduler.
func TestMoto(t *testing.T) {
	endpoint := testenv.Moto(t)
	ebschedulertest.Run(t, endpoint, func(string) ebscheduler.API {
		return scheduler.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: ebschedulertest.Credentials},
			func(o *scheduler.Options) { o.BaseEndpoint = aws.String(endpoint) })
	})
}
