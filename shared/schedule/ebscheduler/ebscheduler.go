// Package ebscheduler keeps one EventBridge Scheduler schedule per signals configuration:
// it writes the schedule.CloudSchedule a configuration maps to, under the configuration's
// own name, so that creating and replacing are the same call and a replace never leaves two.
package ebscheduler

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"

	"github.com/evalobs/evalapi/shared/schedule"
)

// API is the part of the EventBridge Scheduler client used here; *scheduler.Client has it.
type API interface {
	CreateSchedule(ctx context.Context, in *scheduler.CreateScheduleInput, opts ...func(*scheduler.Options)) (*scheduler.CreateScheduleOutput, error)
	UpdateSchedule(ctx context.Context, in *scheduler.UpdateScheduleInput, opts ...func(*scheduler.Options)) (*scheduler.UpdateScheduleOutput, error)
	DeleteSchedule(ctx context.Context, in *scheduler.DeleteScheduleInput, opts ...func(*scheduler.Options)) (*scheduler.DeleteScheduleOutput, error)
	ListSchedules(ctx context.Context, in *scheduler.ListSchedulesInput, opts ...func(*scheduler.Options)) (*scheduler.ListSchedulesOutput, error)
}

// Config is what the stack decides for every schedule.
type Config struct {
	// GroupName is the stack's schedule group, so that two stacks in one account and
	// region never share a name; "" is the account's default group.
	GroupName string
	// TargetARN is the signals worker function the schedules invoke.
	TargetARN string
	// RoleARN is the role EventBridge Scheduler assumes to invoke it (allowed to invoke
	// only the worker).
	RoleARN string
	// DeadLetterARN, if set, is the SQS queue that receives invocations that failed every
	// retry.
	DeadLetterARN string
	// MaxRetryAttempts and MaxEventAgeSeconds bound EventBridge Scheduler's retries of a
	// failed invocation; nil keeps the service's defaults (185 attempts, 24 hours).
	MaxRetryAttempts   *int32
	MaxEventAgeSeconds *int32
}

// Schedules writes and deletes the schedules of configurations.
type Schedules struct {
	api API
	cfg Config
}

// New returns Schedules over api. The target and the role are required.
func New(api API, cfg Config) (*Schedules, error) {
	if cfg.TargetARN == "" || cfg.RoleARN == "" {
		return nil, errors.New("ebscheduler: the target ARN and the role ARN are required")
	}
	return &Schedules{api: api, cfg: cfg}, nil
}

// Sync makes the configuration's schedule what schedule.Cloud said: present (cs written
// under cs.Name) or absent (the schedule called name deleted). Both are idempotent, so a
// failed Sync is repaired by the next one.
func (s *Schedules) Sync(ctx context.Context, name string, cs schedule.CloudSchedule, present bool) error {
	if !present {
		return s.Delete(ctx, name)
	}
	if cs.Name != name {
		return fmt.Errorf("ebscheduler: schedule %q written under the name %q", cs.Name, name)
	}
	return s.Upsert(ctx, cs)
}

// Upsert writes the schedule: an update, or a create if it does not exist yet (and an
// update again if a concurrent writer created it in between).
func (s *Schedules) Upsert(ctx context.Context, cs schedule.CloudSchedule) error {
	_, err := s.api.UpdateSchedule(ctx, s.updateInput(cs))
	if isNotFound(err) {
		_, err = s.api.CreateSchedule(ctx, s.createInput(cs))
		var conflict *types.ConflictException
		if errors.As(err, &conflict) {
			_, err = s.api.UpdateSchedule(ctx, s.updateInput(cs))
		}
	}
	if err != nil {
		return fmt.Errorf("ebscheduler: writing schedule %s: %w", cs.Name, err)
	}
	return nil
}

// Delete removes the schedule called name; one that does not exist is already removed.
func (s *Schedules) Delete(ctx context.Context, name string) error {
	_, err := s.api.DeleteSchedule(ctx, &scheduler.DeleteScheduleInput{Name: aws.String(name), GroupName: s.group()})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("ebscheduler: deleting schedule %s: %w", name, err)
	}
	return nil
}

// Names lists the names of the configurations' schedules in the group, for a reconcile
// that deletes the schedules of configurations that no longer exist.
func (s *Schedules) Names(ctx context.Context) ([]string, error) {
	var names []string
	in := &scheduler.ListSchedulesInput{GroupName: s.group(), NamePrefix: aws.String(schedule.NamePrefix)}
	for {
		out, err := s.api.ListSchedules(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("ebscheduler: listing schedules: %w", err)
		}
		for _, sc := range out.Schedules {
			names = append(names, aws.ToString(sc.Name))
		}
		if aws.ToString(out.NextToken) == "" {
			return names, nil
		}
		in.NextToken = out.NextToken
	}
}

func (s *Schedules) group() *string {
	if s.cfg.GroupName == "" {
		return nil
	}
	return aws.String(s.cfg.GroupName)
}

func (s *Schedules) target(cs schedule.CloudSchedule) *types.Target {
	t := &types.Target{Arn: aws.String(s.cfg.TargetARN), RoleArn: aws.String(s.cfg.RoleARN), Input: aws.String(cs.Input)}
	if s.cfg.MaxRetryAttempts != nil || s.cfg.MaxEventAgeSeconds != nil {
		t.RetryPolicy = &types.RetryPolicy{MaximumRetryAttempts: s.cfg.MaxRetryAttempts, MaximumEventAgeInSeconds: s.cfg.MaxEventAgeSeconds}
	}
	if s.cfg.DeadLetterARN != "" {
		t.DeadLetterConfig = &types.DeadLetterConfig{Arn: aws.String(s.cfg.DeadLetterARN)}
	}
	return t
}

// The two inputs have the same fields; UpdateSchedule replaces every one of them.

func (s *Schedules) createInput(cs schedule.CloudSchedule) *scheduler.CreateScheduleInput {
	return &scheduler.CreateScheduleInput{
		Name: aws.String(cs.Name), GroupName: s.group(),
		ScheduleExpression: aws.String(cs.ScheduleExpression), ScheduleExpressionTimezone: aws.String(cs.ScheduleExpressionTimezone),
		StartDate: cs.StartDate, EndDate: cs.EndDate, State: types.ScheduleState(cs.State),
		FlexibleTimeWindow: &types.FlexibleTimeWindow{Mode: types.FlexibleTimeWindowMode(cs.FlexibleTimeWindowMode)},
		Target:             s.target(cs),
	}
}

func (s *Schedules) updateInput(cs schedule.CloudSchedule) *scheduler.UpdateScheduleInput {
	c := s.createInput(cs)
	return &scheduler.UpdateScheduleInput{
		Name: c.Name, GroupName: c.GroupName, ScheduleExpression: c.ScheduleExpression,
		ScheduleExpressionTimezone: c.ScheduleExpressionTimezone, StartDate: c.StartDate, EndDate: c.EndDate,
		State: c.State, FlexibleTimeWindow: c.FlexibleTimeWindow, Target: c.Target,
	}
}

func isNotFound(err error) bool {
	var nf *types.ResourceNotFoundException
	return errors.As(err, &nf)
}
