package schedule

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// ScheduledTimeAttribute is the context attribute that EventBridge Scheduler replaces, in a
// target's input, by the scheduled time of the invocation, e.g. 2022-03-22T18:59:43Z
// (https://docs.aws.amazon.com/scheduler/latest/UserGuide/managing-schedule-context-attributes.html).
// A retried invocation carries the same scheduled time, which is what makes Fire.Key stable.
const ScheduledTimeAttribute = "<aws.scheduler.scheduled-time>"

// NamePrefix starts every schedule name; the configuration id follows.
const NamePrefix = "signals-"

// validName reports whether EventBridge Scheduler takes name as a schedule name: 1 to 64
// characters of [0-9a-zA-Z-_.] (CreateSchedule, Name).
func validName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		ok := r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_' || r == '.'
		if !ok {
			return false
		}
	}
	return true
}

// CloudSchedule is the EventBridge Scheduler schedule one configuration maps to, in the
// terms of CreateSchedule and UpdateSchedule (which replaces every field). The adapter adds
// what the stack decides: the group, the target's ARN and role, the retry policy.
type CloudSchedule struct {
	Name                       string     // ScheduleName of the configuration id
	ScheduleExpression         string     // cron(...), Cron.EventBridge
	ScheduleExpressionTimezone string     // the IANA name
	StartDate                  *time.Time // nil: from now
	EndDate                    *time.Time // nil: no end
	FlexibleTimeWindowMode     string     // "OFF": fire at the minute, as the local host does
	State                      string     // "ENABLED"
	Input                      string     // the Target's ids and ScheduledTimeAttribute, as JSON
}

// ScheduleName is the name of a configuration's schedule: one name per configuration, so a
// replace (an upsert under the same name) never leaves two schedules.
func ScheduleName(configurationID string) (string, error) {
	name := NamePrefix + configurationID
	if !validName(name) {
		return "", fmt.Errorf("schedule: configuration id %q cannot name a schedule", configurationID)
	}
	return name, nil
}

// Cloud returns the schedule that should exist for a configuration at `now`, or false when
// none should (every fire is behind: the end date has passed). A configuration without
// scheduled runs enabled has no schedule either; that choice is the caller's.
//
// A start date in the past is clamped to now by leaving StartDate out: EventBridge
// Scheduler refuses a StartDate more than five minutes ago, and without one a cron schedule
// begins at once. EndDate is one second before the end (the first instant of the day after
// the end date), so that a fire at that midnight, which the end date excludes, is outside
// the schedule whichever way EventBridge reads "on, or before, the EndDate"
// (CreateSchedule, EndDate).
func Cloud(t Target, s Schedule, now time.Time) (CloudSchedule, bool, error) {
	name, err := ScheduleName(t.ConfigurationID)
	if err != nil {
		return CloudSchedule{}, false, err
	}
	if _, ok := s.Next(now); !ok {
		return CloudSchedule{}, false, nil
	}
	// Not json.Marshal: it writes < and > as \u003c and \u003e, and EventBridge Scheduler
	// would not find the attribute to replace.
	var input strings.Builder
	enc := json.NewEncoder(&input)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Target
		ScheduledTime string `json:"scheduled_time"`
	}{t, ScheduledTimeAttribute}); err != nil {
		return CloudSchedule{}, false, fmt.Errorf("schedule: target input: %w", err)
	}
	cs := CloudSchedule{
		Name:                       name,
		ScheduleExpression:         s.Cron.EventBridge(),
		ScheduleExpressionTimezone: s.Location.String(),
		FlexibleTimeWindowMode:     "OFF",
		State:                      "ENABLED",
		Input:                      strings.TrimSuffix(input.String(), "\n"),
	}
	if s.Start.After(now) {
		start := s.Start.UTC()
		cs.StartDate = &start
	}
	if !s.End.IsZero() {
		end := s.End.Add(-time.Second).UTC()
		cs.EndDate = &end
	}
	return cs, true, nil
}
