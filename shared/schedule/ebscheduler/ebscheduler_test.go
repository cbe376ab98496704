package ebscheduler

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/evalobs/evalapi/shared/schedule"
)

// fakeAPI answers from a map, and can fail the next call of an operation once.
type fakeAPI struct {
	schedules map[string]*scheduler.CreateScheduleInput
	calls     []string
	failNext  map[string]error
}

func newFake() *fakeAPI {
	return &fakeAPI{schedules: map[string]*scheduler.CreateScheduleInput{}, failNext: map[string]error{}}
}

func (f *fakeAPI) fail(op string) error {
	f.calls = append(f.calls, op)
	err := f.failNext[op]
	delete(f.failNext, op)
	return err
}

func (f *fakeAPI) CreateSchedule(_ context.Context, in *scheduler.CreateScheduleInput, _ ...func(*scheduler.Options)) (*scheduler.CreateScheduleOutput, error) {
	if err := f.fail("create"); err != nil {
		return nil, err
	}
	if _, ok := f.schedules[*in.Name]; ok {
		return nil, &types.ConflictException{Message: aws.String("exists")}
	}
	f.schedules[*in.Name] = in
	return &scheduler.CreateScheduleOutput{}, nil
}

func (f *fakeAPI) UpdateSchedule(_ context.Context, in *scheduler.UpdateScheduleInput, _ ...func(*scheduler.Options)) (*scheduler.UpdateScheduleOutput, error) {
	if err := f.fail("update"); err != nil {
		return nil, err
	}
	if _, ok := f.schedules[*in.Name]; !ok {
		return nil, &types.ResourceNotFoundException{Message: aws.String("no such schedule")}
	}
	f.schedules[*in.Name] = &scheduler.CreateScheduleInput{Name: in.Name, ScheduleExpression: in.ScheduleExpression, Target: in.Target}
	return &scheduler.UpdateScheduleOutput{}, nil
}

func (f *fakeAPI) DeleteSchedule(_ context.Context, in *scheduler.DeleteScheduleInput, _ ...func(*scheduler.Options)) (*scheduler.DeleteScheduleOutput, error) {
	if err := f.fail("delete"); err != nil {
		return nil, err
	}
	if _, ok := f.schedules[*in.Name]; !ok {
		return nil, &types.ResourceNotFoundException{Message: aws.String("no such schedule")}
	}
	delete(f.schedules, *in.Name)
	return &scheduler.DeleteScheduleOutput{}, nil
}

func (f *fakeAPI) ListSchedules(_ context.Context, in *scheduler.ListSchedulesInput, _ ...func(*scheduler.Options)) (*scheduler.ListSchedulesOutput, error) {
	if err := f.fail("list"); err != nil {
		return nil, err
	}
	var out scheduler.ListSchedulesOutput
	for name := range f.schedules {
		if strings.HasPrefix(name, aws.ToString(in.NamePrefix)) {
			out.Schedules = append(out.Schedules, types.ScheduleSummary{Name: aws.String(name)})
		}
	}
	return &out, nil
}

var testConfig = Config{TargetARN: "arn:aws:lambda:us-east-1:123456789012:function:signals-worker",
	RoleARN: "arn:aws:iam::123456789012:role/scheduler-invoke-signals"}

func cloudSchedule(t *testing.T, id, cron string) schedule.CloudSchedule {
	t.Helper()
	s, err := schedule.New(schedule.Spec{Cron: cron, Timezone: "Europe/London"})
	if err != nil {
		t.Fatal(err)
	}
	cs, ok, err := schedule.Cloud(schedule.Target{ConfigurationID: id, OrgID: "o", ProjectID: "p", RunID: "r"}, s, time.Now())
	if err != nil || !ok {
		t.Fatalf("Cloud = %v, %v", ok, err)
	}
	return cs
}

func TestUpsertCreatesThenUpdates(t *testing.T) {
	api := newFake()
	s, err := New(api, testConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Upsert(ctx, cloudSchedule(t, "c1", "0 9 * * *")); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, cloudSchedule(t, "c1", "0 10 * * *")); err != nil {
		t.Fatal(err)
	}
	if strings.Join(api.calls, ",") != "update,create,update" || len(api.schedules) != 1 ||
		*api.schedules["signals-c1"].ScheduleExpression != "cron(0 10 * * ? *)" {
		t.Errorf("calls %v, schedules %v", api.calls, api.schedules)
	}
	if got := api.schedules["signals-c1"].Target; *got.Arn != testConfig.TargetARN || *got.RoleArn != testConfig.RoleARN {
		t.Errorf("target = %+v", got)
	}
}

// TestUpsertRace: a create that loses to a concurrent writer's create becomes an update.
func TestUpsertRace(t *testing.T) {
	api := newFake()
	s, _ := New(api, testConfig)
	api.schedules["signals-c1"] = &scheduler.CreateScheduleInput{Name: aws.String("signals-c1")}
	api.failNext["update"] = &types.ResourceNotFoundException{Message: aws.String("not yet")}
	if err := s.Upsert(context.Background(), cloudSchedule(t, "c1", "0 9 * * *")); err != nil {
		t.Fatal(err)
	}
	if strings.Join(api.calls, ",") != "update,create,update" || *api.schedules["signals-c1"].ScheduleExpression != "cron(0 9 * * ? *)" {
		t.Errorf("calls %v", api.calls)
	}
}

func TestErrorsAreWrapped(t *testing.T) {
	api := newFake()
	s, _ := New(api, testConfig)
	denied := errors.New("AccessDenied")
	api.failNext["update"] = denied
	if err := s.Upsert(context.Background(), cloudSchedule(t, "c1", "0 9 * * *")); !errors.Is(err, denied) || !strings.Contains(err.Error(), "signals-c1") {
		t.Errorf("Upsert = %v", err)
	}
	api.failNext["delete"] = denied
	if err := s.Delete(context.Background(), "signals-c1"); !errors.Is(err, denied) {
		t.Errorf("Delete = %v", err)
	}
	if err := s.Delete(context.Background(), "signals-absent"); err != nil {
		t.Errorf("Delete of an absent schedule = %v; want nil", err)
	}
	if err := s.Sync(context.Background(), "signals-c2", cloudSchedule(t, "c1", "0 9 * * *"), true); err == nil {
		t.Error("Sync under another name succeeded")
	}
	if _, err := New(api, Config{TargetARN: "x"}); err == nil {
		t.Error("New without a role succeeded")
	}
}
