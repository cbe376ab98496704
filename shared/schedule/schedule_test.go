package schedule

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNewWindow(t *testing.T) {
	for _, tc := range []struct {
		name       string
		spec       Spec
		start, end string // RFC 3339, "" for zero
	}{
		{"no dates", Spec{Cron: "0 9 * * *"}, "", ""},
		{"dates in UTC", Spec{Cron: "0 9 * * *", StartDate: "2025-03-01", EndDate: "2025-03-31"},
			"2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z"},
		{"dates read in the zone", Spec{Cron: "0 9 * * *", Timezone: "America/New_York", StartDate: "2025-03-01", EndDate: "2025-03-31"},
			"2025-03-01T05:00:00Z", "2025-04-01T04:00:00Z"},
		{"one day", Spec{Cron: "0 9 * * *", Timezone: "Asia/Kolkata", StartDate: "2025-03-01", EndDate: "2025-03-01"},
			"2025-02-28T18:30:00Z", "2025-03-01T18:30:00Z"},
		{"start on a day without midnight", Spec{Cron: "0 9 * * *", Timezone: "America/Santiago", StartDate: "2025-09-07"},
			"2025-09-07T04:00:00Z", ""},
		{"end on the day before a day without midnight", Spec{Cron: "0 9 * * *", Timezone: "America/Santiago", EndDate: "2025-09-06"},
			"", "2025-09-07T04:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range []struct {
				got  time.Time
				want string
			}{{s.Start, tc.start}, {s.End, tc.end}} {
				if (b.want == "" && !b.got.IsZero()) || (b.want != "" && !b.got.Equal(mustTime(t, b.want))) {
					t.Errorf("bound %s; want %q", b.got, b.want)
				}
			}
		})
	}
}

func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		spec       Spec
		field, msg string
	}{
		{Spec{Cron: "0 0 1 * 1"}, "cron", "both restricted"},
		{Spec{Cron: "* * * * *", Timezone: "Mars/Olympus"}, "timezone", "unknown time zone 'Mars/Olympus'"},
		{Spec{Cron: "* * * * *", Timezone: "Local"}, "timezone", "unknown time zone 'Local'"},
		{Spec{Cron: "* * * * *", StartDate: "2025-02-30"}, "start_date", "start_date '2025-02-30' is not a date (YYYY-MM-DD)"},
		{Spec{Cron: "* * * * *", EndDate: "tomorrow"}, "end_date", "end_date 'tomorrow' is not a date"},
		{Spec{Cron: "* * * * *", StartDate: "2025-03-02", EndDate: "2025-03-01"}, "end_date", "end_date 2025-03-01 is before start_date 2025-03-02"},
	} {
		_, err := New(tc.spec)
		var e *Error
		if !errors.As(err, &e) || e.Field != tc.field || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("New(%+v) = %v; want %s: %q", tc.spec, err, tc.field, tc.msg)
		}
	}
}

// TestScheduleBounds: fires begin at the start date's first instant (inclusive) and stop
// after the end date's last minute.
func TestScheduleBounds(t *testing.T) {
	s, err := New(Spec{Cron: "0 0,12 * * *", Timezone: "Europe/London", StartDate: "2025-03-29", EndDate: "2025-03-31"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Times(mustTime(t, "2025-01-01T00:00:00Z"), 10) {
		got = append(got, f.UTC().Format(time.RFC3339))
	}
	want := []string{ // 30 March: clocks go forward at 01:00, so midnight is GMT, noon BST
		"2025-03-29T00:00:00Z", "2025-03-29T12:00:00Z", "2025-03-30T00:00:00Z", "2025-03-30T11:00:00Z",
		"2025-03-30T23:00:00Z", "2025-03-31T11:00:00Z",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Times = %v\nwant %v", got, want)
	}
	if next, ok := s.Next(mustTime(t, "2025-03-31T11:00:00Z")); ok {
		t.Errorf("Next after the last fire = %s; want none (1 April midnight is past the end date)", next)
	}
}

func TestLoadLocation(t *testing.T) {
	for name, want := range map[string]string{"": "UTC", "UTC": "UTC", "Australia/Lord_Howe": "Australia/Lord_Howe",
		"America/Argentina/Buenos_Aires": "America/Argentina/Buenos_Aires", "Etc/GMT+5": "Etc/GMT+5", "America/Port-au-Prince": "America/Port-au-Prince"} {
		loc, err := LoadLocation(name)
		if err != nil || loc.String() != want {
			t.Errorf("LoadLocation(%q) = %v, %v; want %s", name, loc, err, want)
		}
	}
	for _, name := range []string{"Local", "localtime", "posixrules", "Factory", "posix/Europe/Paris", "right/UTC", "Europe/Nowhere",
		"../etc/passwd", "/Europe/Paris", "Europe//Paris", "Europe/Paris/", "utc ", "Europe/" + strings.Repeat("x", 50)} {
		var e *Error
		if _, err := LoadLocation(name); !errors.As(err, &e) || e.Field != "timezone" || e.Msg != "unknown time zone '"+name+"'" {
			t.Errorf("LoadLocation(%q) = %v; want unknown time zone", name, err)
		}
	}
}
