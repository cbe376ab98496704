// Package ebschedulertest is the scenario that holds an ebscheduler.API to EventBridge
// Scheduler's behaviour on moto: the SDK's client (ebscheduler's own test) and the signals
// functions' signed requests (shared/app/signalsworker) run the same one. Test code.
package ebschedulertest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"

	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/schedule/ebscheduler"
)

// Credentials are the static credentials the scenario's clients sign with.
var Credentials = credentials.NewStaticCredentialsProvider("AKIDMOTOTEST", "moto-test-secret", "")

// Run makes a schedule group of its own at endpoint (moto), then, through the Schedules
// over api: writes a schedule and reads it back with the SDK as written (expression, zone,
// dates, state, target, retry policy, input), replaces it under its name, lists it, deletes
// it twice (the second is not an error) and lists none.
func Run(t *testing.T, endpoint string, api func(group string) ebscheduler.API) {
	t.Helper()
	sdk := scheduler.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: Credentials},
		func(o *scheduler.Options) { o.BaseEndpoint = aws.String(endpoint) })
	ctx := context.Background()
	group := fmt.Sprintf("evalapi-test-%d", time.Now().UnixNano())
	if _, err := sdk.CreateScheduleGroup(ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String(group)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = sdk.DeleteScheduleGroup(context.Background(), &scheduler.DeleteScheduleGroupInput{Name: aws.String(group)})
	})
	cfg := ebscheduler.Config{GroupName: group, TargetARN: "arn:aws:lambda:us-east-1:123456789012:function:signals-worker",
		RoleARN: "arn:aws:iam::123456789012:role/scheduler-invoke-signals", MaxRetryAttempts: aws.Int32(3), MaxEventAgeSeconds: aws.Int32(3600)}
	s, err := ebscheduler.New(api(group), cfg)
	if err != nil {
		t.Fatal(err)
	}

	now := time.Now()
	sch, err := schedule.New(schedule.Spec{Cron: "*/10 9-17 * * MON-FRI", Timezone: "America/New_York",
		StartDate: now.AddDate(0, 1, 0).Format(time.DateOnly), EndDate: now.AddDate(0, 2, 0).Format(time.DateOnly)})
	if err != nil {
		t.Fatal(err)
	}
	target := schedule.Target{ConfigurationID: "0b9c6f43-2c1d-4e0a-a2c4-7d1d8f3e5a10", OrgID: "o", ProjectID: "p", RunID: "r"}
	cs, ok, err := schedule.Cloud(target, sch, now)
	if err != nil || !ok {
		t.Fatalf("Cloud = %v, %v", ok, err)
	}
	if err := s.Sync(ctx, cs.Name, cs, true); err != nil {
		t.Fatal(err)
	}
	got, err := sdk.GetSchedule(ctx, &scheduler.GetScheduleInput{Name: aws.String(cs.Name), GroupName: aws.String(group)})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(got.ScheduleExpression) != "cron(0/10 9-17 ? * 2-6 *)" || aws.ToString(got.ScheduleExpressionTimezone) != "America/New_York" ||
		string(got.State) != "ENABLED" || got.FlexibleTimeWindow == nil || string(got.FlexibleTimeWindow.Mode) != "OFF" {
		t.Errorf("GetSchedule = %+v", got)
	}
	if got.StartDate == nil || !got.StartDate.Equal(*cs.StartDate) || got.EndDate == nil || !got.EndDate.Equal(*cs.EndDate) {
		t.Errorf("dates = %v, %v; want %v, %v", got.StartDate, got.EndDate, cs.StartDate, cs.EndDate)
	}
	if got.Target == nil || aws.ToString(got.Target.Arn) != cfg.TargetARN || aws.ToString(got.Target.RoleArn) != cfg.RoleARN ||
		got.Target.RetryPolicy == nil || aws.ToInt32(got.Target.RetryPolicy.MaximumRetryAttempts) != 3 ||
		aws.ToInt32(got.Target.RetryPolicy.MaximumEventAgeInSeconds) != 3600 {
		t.Fatalf("target = %+v", got.Target)
	}
	var input map[string]string
	if err := json.Unmarshal([]byte(aws.ToString(got.Target.Input)), &input); err != nil || input["configuration_id"] != target.ConfigurationID ||
		input["scheduled_time"] != schedule.ScheduledTimeAttribute {
		t.Errorf("target input = %s (%v)", aws.ToString(got.Target.Input), err)
	}

	// A replace under the same name: still one schedule, the new expression.
	sch.Cron, _ = schedule.Parse("0 8 * * *")
	cs2, _, _ := schedule.Cloud(target, sch, now)
	if err := s.Upsert(ctx, cs2); err != nil {
		t.Fatal(err)
	}
	names, err := s.Names(ctx)
	if err != nil || !slices.Equal(names, []string{cs.Name}) {
		t.Fatalf("Names = %v, %v; want just %s", names, err, cs.Name)
	}
	got, err = sdk.GetSchedule(ctx, &scheduler.GetScheduleInput{Name: aws.String(cs.Name), GroupName: aws.String(group)})
	if err != nil || aws.ToString(got.ScheduleExpression) != "cron(0 8 * * ? *)" {
		t.Errorf("after the replace: %v, %v", got, err)
	}

	// Absent: deleted, and deleting again is not an error.
	for range 2 {
		if err := s.Sync(ctx, cs.Name, schedule.CloudSchedule{}, false); err != nil {
			t.Fatal(err)
		}
	}
	if names, err := s.Names(ctx); err != nil || len(names) != 0 {
		t.Errorf("Names after delete = %v, %v", names, err)
	}
}
