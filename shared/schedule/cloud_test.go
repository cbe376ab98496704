package schedule

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

var testTarget = Target{ConfigurationID: "3f0c8f0e-6a43-4b1e-9a57-0c2f4d3b9e11", OrgID: "org-1", ProjectID: "p-1", RunID: "r-1"}

func TestCloud(t *testing.T) {
	now := mustTime(t, "2025-06-15T10:00:00Z")
	s, err := New(Spec{Cron: "*/10 9-17 * * MON-FRI", Timezone: "America/New_York", StartDate: "2025-07-01", EndDate: "2025-07-31"})
	if err != nil {
		t.Fatal(err)
	}
	cs, ok, err := Cloud(testTarget, s, now)
	if err != nil || !ok {
		t.Fatalf("Cloud = %v, %v", ok, err)
	}
	if cs.Name != "signals-3f0c8f0e-6a43-4b1e-9a57-0c2f4d3b9e11" || cs.ScheduleExpression != "cron(0/10 9-17 ? * 2-6 *)" ||
		cs.ScheduleExpressionTimezone != "America/New_York" || cs.FlexibleTimeWindowMode != "OFF" || cs.State != "ENABLED" {
		t.Errorf("Cloud = %+v", cs)
	}
	if cs.StartDate == nil || !cs.StartDate.Equal(mustTime(t, "2025-07-01T04:00:00Z")) || cs.StartDate.Location() != time.UTC {
		t.Errorf("StartDate = %v; want 1 July midnight in New York, in UTC", cs.StartDate)
	}
	if cs.EndDate == nil || !cs.EndDate.Equal(mustTime(t, "2025-08-01T03:59:59Z")) {
		t.Errorf("EndDate = %v; want the last second of 31 July in New York", cs.EndDate)
	}
	if !strings.Contains(cs.Input, `"scheduled_time":"<aws.scheduler.scheduled-time>"`) {
		t.Errorf("Input = %s; want the context attribute written as is, for EventBridge Scheduler to replace", cs.Input)
	}
	var input map[string]string
	if err := json.Unmarshal([]byte(cs.Input), &input); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"configuration_id": testTarget.ConfigurationID, "org_id": "org-1", "project_id": "p-1", "run_id": "r-1",
		"scheduled_time": "<aws.scheduler.scheduled-time>"}
	if len(input) != len(want) {
		t.Errorf("Input = %s; want exactly %v", cs.Input, want)
	}
	for k, v := range want {
		if input[k] != v {
			t.Errorf("Input[%s] = %q; want %q", k, input[k], v)
		}
	}

	// What EventBridge Scheduler sends the worker: the attribute replaced.
	sent := strings.Replace(cs.Input, ScheduledTimeAttribute, "2025-07-01T13:00:00Z", 1)
	f, err := ParseFire([]byte(sent))
	if err != nil {
		t.Fatal(err)
	}
	if f.Target != testTarget || !f.ScheduledTime.Equal(mustTime(t, "2025-07-01T13:00:00Z")) {
		t.Errorf("ParseFire = %+v", f)
	}
	if f.Key() != testTarget.ConfigurationID+"@2025-07-01T13:00:00Z" {
		t.Errorf("Key = %q", f.Key())
	}
}

// TestCloudClamp: a start date in the past means "from now" and leaves StartDate out, which
// EventBridge Scheduler would refuse more than five minutes back; a schedule with no fire
// left maps to none.
func TestCloudClamp(t *testing.T) {
	now := mustTime(t, "2025-06-15T10:00:00Z")
	for _, tc := range []struct {
		name  string
		spec  Spec
		ok    bool
		start bool
	}{
		{"start in the past", Spec{Cron: "0 9 * * *", StartDate: "2025-01-01"}, true, false},
		{"start today, already begun", Spec{Cron: "0 9 * * *", StartDate: "2025-06-15"}, true, false},
		{"start tomorrow", Spec{Cron: "0 9 * * *", StartDate: "2025-06-16"}, true, true},
		{"no dates", Spec{Cron: "0 9 * * *"}, true, false},
		{"ended", Spec{Cron: "0 9 * * *", EndDate: "2025-06-14"}, false, false},
		{"ends today after the last fire", Spec{Cron: "0 9 * * *", EndDate: "2025-06-15"}, false, false},
		{"ends today before the last fire", Spec{Cron: "0 11 * * *", EndDate: "2025-06-15"}, true, false},
		{"no fire inside the dates", Spec{Cron: "0 0 29 2 *", StartDate: "2026-01-01", EndDate: "2027-12-31"}, false, false},
	} {
		s, err := New(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		cs, ok, err := Cloud(testTarget, s, now)
		if err != nil || ok != tc.ok || (cs.StartDate != nil) != tc.start {
			t.Errorf("%s: Cloud = %+v, %v, %v; want ok %v, StartDate set %v", tc.name, cs, ok, err, tc.ok, tc.start)
		}
	}
}

func TestScheduleName(t *testing.T) {
	if _, err := ScheduleName("has space"); err == nil {
		t.Error("ScheduleName accepted a space")
	}
	if _, err := ScheduleName(strings.Repeat("a", 57)); err == nil {
		t.Error("ScheduleName accepted a 65-character name")
	}
	if n, err := ScheduleName(strings.Repeat("a", 56)); err != nil || len(n) != 64 {
		t.Errorf("ScheduleName(56 a) = %q, %v", n, err)
	}
	if _, _, err := Cloud(Target{ConfigurationID: "a/b"}, Schedule{}, time.Now()); err == nil {
		t.Error("Cloud accepted an id that cannot name a schedule")
	}
}

func TestParseFireRefuses(t *testing.T) {
	for _, in := range []string{
		`not json`,
		`{"org_id":"o","scheduled_time":"2025-07-01T13:00:00Z"}`,
		`{"configuration_id":"c","scheduled_time":"<aws.scheduler.scheduled-time>"}`,
		`{"configuration_id":"c"}`,
	} {
		if f, err := ParseFire([]byte(in)); err == nil {
			t.Errorf("ParseFire(%s) = %+v; want an error", in, f)
		}
	}
}
