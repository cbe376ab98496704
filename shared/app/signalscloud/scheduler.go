package signalscloud

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/google/uuid"
)

// rawScheduler is ebscheduler.API over signed requests of EventBridge Scheduler's REST
// protocol (rawAWS), for the same reason as the other calls of awsraw.go: the SDK's client,
// for its four operations, took the signals function past the bootstrap cap on amd64. It
// takes and returns the SDK's types, so ebscheduler and its tests are unchanged; only the
// client's code is not linked.
type rawScheduler struct{ raw *rawAWS }

// scheduleBody is the body of CreateSchedule and UpdateSchedule (the same fields).
type scheduleBody struct {
	ClientToken                string
	GroupName                  *string     `json:",omitempty"`
	ScheduleExpression         *string     `json:",omitempty"`
	ScheduleExpressionTimezone *string     `json:",omitempty"`
	StartDate                  *float64    `json:",omitempty"` // epoch seconds
	EndDate                    *float64    `json:",omitempty"`
	State                      string      `json:",omitempty"`
	FlexibleTimeWindow         *windowBody `json:",omitempty"`
	Target                     *targetBody `json:",omitempty"`
}

type windowBody struct {
	Mode                   string
	MaximumWindowInMinutes *int32 `json:",omitempty"`
}

type targetBody struct {
	Arn              *string
	RoleArn          *string
	Input            *string           `json:",omitempty"`
	RetryPolicy      *retryBody        `json:",omitempty"`
	DeadLetterConfig *deadLetterConfig `json:",omitempty"`
}

type retryBody struct {
	MaximumEventAgeInSeconds *int32 `json:",omitempty"`
	MaximumRetryAttempts     *int32 `json:",omitempty"`
}

type deadLetterConfig struct{ Arn *string }

func epochSeconds(t *time.Time) *float64 {
	if t == nil {
		return nil
	}
	s := float64(t.UnixMilli()) / 1e3
	return &s
}

func newScheduleBody(group, expr, tz *string, start, end *time.Time, state types.ScheduleState,
	w *types.FlexibleTimeWindow, t *types.Target) scheduleBody {
	b := scheduleBody{ClientToken: uuid.NewString(), GroupName: group, ScheduleExpression: expr,
		ScheduleExpressionTimezone: tz, StartDate: epochSeconds(start), EndDate: epochSeconds(end), State: string(state)}
	if w != nil {
		b.FlexibleTimeWindow = &windowBody{Mode: string(w.Mode), MaximumWindowInMinutes: w.MaximumWindowInMinutes}
	}
	if t != nil {
		b.Target = &targetBody{Arn: t.Arn, RoleArn: t.RoleArn, Input: t.Input}
		if r := t.RetryPolicy; r != nil {
			b.Target.RetryPolicy = &retryBody{MaximumEventAgeInSeconds: r.MaximumEventAgeInSeconds, MaximumRetryAttempts: r.MaximumRetryAttempts}
		}
		if d := t.DeadLetterConfig; d != nil {
			b.Target.DeadLetterConfig = &deadLetterConfig{Arn: d.Arn}
		}
	}
	return b
}

func (s rawScheduler) CreateSchedule(ctx context.Context, in *scheduler.CreateScheduleInput, _ ...func(*scheduler.Options)) (*scheduler.CreateScheduleOutput, error) {
	b := newScheduleBody(in.GroupName, in.ScheduleExpression, in.ScheduleExpressionTimezone, in.StartDate, in.EndDate,
		in.State, in.FlexibleTimeWindow, in.Target)
	_, err := s.call(ctx, http.MethodPost, schedulePath(in.Name), nil, b)
	return &scheduler.CreateScheduleOutput{}, err
}

func (s rawScheduler) UpdateSchedule(ctx context.Context, in *scheduler.UpdateScheduleInput, _ ...func(*scheduler.Options)) (*scheduler.UpdateScheduleOutput, error) {
	b := newScheduleBody(in.GroupName, in.ScheduleExpression, in.ScheduleExpressionTimezone, in.StartDate, in.EndDate,
		in.State, in.FlexibleTimeWindow, in.Target)
	_, err := s.call(ctx, http.MethodPut, schedulePath(in.Name), nil, b)
	return &scheduler.UpdateScheduleOutput{}, err
}

func (s rawScheduler) DeleteSchedule(ctx context.Context, in *scheduler.DeleteScheduleInput, _ ...func(*scheduler.Options)) (*scheduler.DeleteScheduleOutput, error) {
	q := url.Values{"clientToken": {uuid.NewString()}}
	if in.GroupName != nil {
		q.Set("groupName", *in.GroupName)
	}
	_, err := s.call(ctx, http.MethodDelete, schedulePath(in.Name), q, nil)
	return &scheduler.DeleteScheduleOutput{}, err
}

func (s rawScheduler) ListSchedules(ctx context.Context, in *scheduler.ListSchedulesInput, _ ...func(*scheduler.Options)) (*scheduler.ListSchedulesOutput, error) {
	q := url.Values{}
	for k, v := range map[string]*string{"ScheduleGroup": in.GroupName, "NamePrefix": in.NamePrefix, "NextToken": in.NextToken} {
		if v != nil && *v != "" {
			q.Set(k, *v)
		}
	}
	resp, err := s.call(ctx, http.MethodGet, "/schedules", q, nil)
	if err != nil {
		return nil, err
	}
	var page struct {
		NextToken *string
		Schedules []struct{ Name *string }
	}
	if err := json.Unmarshal(resp, &page); err != nil {
		return nil, fmt.Errorf("scheduler: ListSchedules: %w", err)
	}
	out := &scheduler.ListSchedulesOutput{NextToken: page.NextToken}
	for _, sc := range page.Schedules {
		out.Schedules = append(out.Schedules, types.ScheduleSummary{Name: sc.Name})
	}
	return out, nil
}

func schedulePath(name *string) string { return "/schedules/" + url.PathEscape(aws.ToString(name)) }

// call sends one request and turns a refusal into the SDK's error types for the two codes
// ebscheduler tells apart (ResourceNotFoundException, ConflictException).
func (s rawScheduler) call(ctx context.Context, method, path string, q url.Values, body any) ([]byte, error) {
	var b []byte
	headers := map[string]string{}
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return nil, err
		}
		headers["Content-Type"] = "application/json"
	}
	u := s.raw.endpoint("scheduler") + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	status, resp, header, err := s.raw.doHeader(ctx, "scheduler", method, u, headers, b)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %s %s: %w", method, path, err)
	}
	if status < 300 {
		return resp, nil
	}
	code := header.Get("X-Amzn-ErrorType")
	if code == "" {
		code = errorCode(resp)
	}
	// Codes may carry a namespace before '#' or a URL after ':' (restjson's error codes).
	code, _, _ = strings.Cut(code, ":")
	if i := strings.LastIndex(code, "#"); i >= 0 {
		code = code[i+1:]
	}
	switch code {
	case "ResourceNotFoundException":
		return nil, &types.ResourceNotFoundException{Message: aws.String(code)}
	case "ConflictException":
		return nil, &types.ConflictException{Message: aws.String(code)}
	}
	return nil, fmt.Errorf("scheduler: %s %s: status %d: %s", method, path, status, code)
}
