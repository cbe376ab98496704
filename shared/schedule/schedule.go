package schedule

import (
	"fmt"
	"strings"
	"time"
)

// Spec is what a signals configuration says about when it runs.
type Spec struct {
	Cron      string // five-field cron expression
	Timezone  string // IANA name; "" means UTC
	StartDate string // YYYY-MM-DD read in Timezone, "" for none: the first day that may run
	EndDate   string // YYYY-MM-DD read in Timezone, "" for none: the last day that may run
}

// Schedule is a cron expression in a time zone, bounded by a start and an end.
type Schedule struct {
	Cron     Cron
	Location *time.Location
	Start    time.Time // the first instant a fire may have (inclusive); zero: no bound
	End      time.Time // the instant fires stop before (exclusive); zero: no bound
}

// New checks a Spec and builds its Schedule. The start date's day begins at its first local
// instant (midnight, or the end of a gap that swallows midnight); the end date is inclusive,
// so End is the first instant of the day after it. Every refusal is an *Error.
func New(s Spec) (Schedule, error) {
	c, err := Parse(s.Cron)
	if err != nil {
		return Schedule{}, err
	}
	loc, err := LoadLocation(s.Timezone)
	if err != nil {
		return Schedule{}, err
	}
	sch := Schedule{Cron: c, Location: loc}
	if s.StartDate != "" {
		if sch.Start, err = dayStart(loc, s.StartDate, 0, "start_date"); err != nil {
			return Schedule{}, err
		}
	}
	if s.EndDate != "" {
		if sch.End, err = dayStart(loc, s.EndDate, 1, "end_date"); err != nil {
			return Schedule{}, err
		}
	}
	if !sch.Start.IsZero() && !sch.End.IsZero() && !sch.Start.Before(sch.End) {
		return Schedule{}, &Error{Field: "end_date", Msg: fmt.Sprintf("end_date %s is before start_date %s", s.EndDate, s.StartDate)}
	}
	return sch, nil
}

// LoadLocation reads an IANA time zone name; "" is UTC. Refused like an unknown name:
// "Local" (the server's zone, which no caller can mean), the files of a system zoneinfo
// directory that are not zones of the embedded database (posix/..., right/..., localtime,
// posixrules), which would load on a developer machine and not in a Lambda, and names
// longer than EventBridge Scheduler's 50 characters (ScheduleExpressionTimezone).
func LoadLocation(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	unknown := &Error{Field: "timezone", Msg: fmt.Sprintf("unknown time zone '%s'", name)}
	if len(name) > 50 || !zoneName(name) {
		return nil, unknown
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, unknown
	}
	return loc, nil
}

// zoneName reports whether name has the shape of a zone of the IANA database (Area/Place,
// Etc/GMT+5, UTC) and is none of the special names above.
func zoneName(name string) bool {
	switch name {
	case "Local", "localtime", "posixrules", "Factory":
		return false
	}
	if strings.HasPrefix(name, "posix/") || strings.HasPrefix(name, "right/") {
		return false
	}
	for part := range strings.SplitSeq(name, "/") {
		if part == "" || !(part[0] >= 'A' && part[0] <= 'Z' || part[0] >= 'a' && part[0] <= 'z') {
			return false
		}
		for _, r := range part {
			if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '+') {
				return false
			}
		}
	}
	return true
}

// dayStart is the first instant of the local day `addDays` after the date.
func dayStart(loc *time.Location, date string, addDays int, field string) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return time.Time{}, &Error{Field: field, Msg: fmt.Sprintf("%s '%s' is not a date (YYYY-MM-DD)", field, date)}
	}
	d = d.AddDate(0, 0, addDays)
	y, m, day := d.Date()
	t := time.Date(y, m, day, 0, 0, 0, 0, loc)
	if ty, tm, td := t.Date(); ty != y || tm != m || td != day {
		// Midnight fell in a forward gap and time.Date answered in the day before: the day
		// begins where that zone ends.
		_, t = t.ZoneBounds()
	} else if t.Hour() != 0 || t.Minute() != 0 {
		// Midnight fell in a gap and time.Date answered after it: the day begins at the
		// transition, the start of t's zone.
		t, _ = t.ZoneBounds()
	}
	return t, nil
}

// Next returns the first fire strictly after `after` within [Start, End), and false when
// there is none left.
func (s Schedule) Next(after time.Time) (time.Time, bool) {
	if !s.Start.IsZero() && after.Before(s.Start) {
		after = s.Start.Add(-time.Nanosecond)
	}
	t, ok := s.Cron.Next(after, s.Location)
	if !ok || (!s.End.IsZero() && !t.Before(s.End)) {
		return time.Time{}, false
	}
	return t, true
}

// Times returns up to n fires after `after`, in order.
func (s Schedule) Times(after time.Time, n int) []time.Time {
	var out []time.Time
	for len(out) < n {
		t, ok := s.Next(after)
		if !ok {
			break
		}
		out = append(out, t)
		after = t
	}
	return out
}
