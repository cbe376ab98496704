package schedule

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Target names what a fire runs: ids only, never a secret, so a fire can travel through
// EventBridge Scheduler's target input, logs and queues.
type Target struct {
	ConfigurationID string `json:"configuration_id"`
	OrgID           string `json:"org_id"`
	ProjectID       string `json:"project_id"`
	RunID           string `json:"run_id"`
}

// Fire is one firing of a configuration's schedule, as both hosts hand it to the worker:
// the cloud as the JSON input of the Lambda that EventBridge Scheduler invokes, `make run`
// as the value the in-process scheduler passes. The scheduler invokes at least once, so a
// worker keys what it starts by Key: a second fire with the same key is a duplicate.
type Fire struct {
	Target
	ScheduledTime time.Time `json:"scheduled_time"`
}

// Key identifies the fire: the configuration and the scheduled time, in UTC to the second
// (EventBridge Scheduler writes scheduled times to the second).
func (f Fire) Key() string {
	return f.ConfigurationID + "@" + f.ScheduledTime.UTC().Format(time.RFC3339)
}

// ParseFire reads a worker's input: a Fire whose scheduled time EventBridge Scheduler
// filled in (see ScheduledTimeAttribute). An input whose attribute was not replaced, or
// that lacks the configuration id, is refused.
func ParseFire(input []byte) (Fire, error) {
	var raw struct {
		Target
		ScheduledTime string `json:"scheduled_time"`
	}
	if err := json.Unmarshal(input, &raw); err != nil {
		return Fire{}, fmt.Errorf("schedule: reading a fire: %w", err)
	}
	if raw.ConfigurationID == "" {
		return Fire{}, errors.New("schedule: reading a fire: no configuration_id")
	}
	t, err := time.Parse(time.RFC3339, raw.ScheduledTime)
	if err != nil {
		return Fire{}, fmt.Errorf("schedule: reading a fire: scheduled_time %q is not an RFC 3339 time", raw.ScheduledTime)
	}
	return Fire{Target: raw.Target, ScheduledTime: t.UTC()}, nil
}
