package schedule

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestNextAcrossDST: expressions × time zones across daylight-saving changes, with the times
// EventBridge Scheduler's documented behaviour gives (a skipped local time does not run, a
// repeated one runs once, at its first instant). Every expected time is worked out by hand
// from the zone's transitions (2025: New York 9 Mar 02:00->03:00 and 2 Nov 02:00->01:00;
// London 30 Mar 01:00->02:00 and 26 Oct 02:00->01:00; Lord Howe, a 30-minute change, 6 Apr
// 02:00->01:30 and 5 Oct 02:00->02:30; Santiago 7 Sep 00:00->01:00).
func TestNextAcrossDST(t *testing.T) {
	for _, tc := range []struct {
		name, expr, tz, after string
		want                  []string
	}{
		{"spring gap skips the day's only time", "30 2 * * *", "America/New_York", "2025-03-08T12:00:00Z",
			[]string{"2025-03-10T06:30:00Z", "2025-03-11T06:30:00Z"}},
		{"spring gap skips times inside it", "*/20 * * * *", "America/New_York", "2025-03-09T06:30:00Z",
			[]string{"2025-03-09T06:40:00Z", "2025-03-09T07:00:00Z", "2025-03-09T07:20:00Z"}},
		{"fall back runs a repeated time once, first", "30 1 * * *", "America/New_York", "2025-11-01T12:00:00Z",
			[]string{"2025-11-02T05:30:00Z", "2025-11-03T06:30:00Z"}},
		{"fall back: no second pass", "*/20 * * * *", "America/New_York", "2025-11-02T05:00:00Z",
			[]string{"2025-11-02T05:20:00Z", "2025-11-02T05:40:00Z", "2025-11-02T07:00:00Z", "2025-11-02T07:20:00Z"}},
		{"fall back: hourly", "0 * * * *", "America/New_York", "2025-11-02T04:30:00Z",
			[]string{"2025-11-02T05:00:00Z", "2025-11-02T07:00:00Z", "2025-11-02T08:00:00Z"}},
		{"asked from inside the second pass", "*/20 * * * *", "America/New_York", "2025-11-02T06:10:00Z",
			[]string{"2025-11-02T07:00:00Z"}},
		{"asked from inside the first pass", "*/20 * * * *", "America/New_York", "2025-11-02T05:25:00Z",
			[]string{"2025-11-02T05:40:00Z", "2025-11-02T07:00:00Z"}},
		{"weekday in the zone, not in UTC", "0 0 * * MON", "America/New_York", "2025-03-08T00:00:00Z",
			[]string{"2025-03-10T04:00:00Z", "2025-03-17T04:00:00Z"}},
		{"London spring gap", "30 1 * * *", "Europe/London", "2025-03-29T12:00:00Z",
			[]string{"2025-03-31T00:30:00Z"}},
		{"London fall back", "15 1 * * *", "Europe/London", "2025-10-25T12:00:00Z",
			[]string{"2025-10-26T00:15:00Z", "2025-10-27T01:15:00Z"}},
		{"Lord Howe half-hour gap", "15 2 * * *", "Australia/Lord_Howe", "2025-10-04T00:00:00Z",
			[]string{"2025-10-05T15:15:00Z", "2025-10-06T15:15:00Z"}},
		{"Lord Howe after the half-hour gap", "45 2 * * *", "Australia/Lord_Howe", "2025-10-04T00:00:00Z",
			[]string{"2025-10-04T15:45:00Z", "2025-10-05T15:45:00Z"}},
		{"Lord Howe half-hour repeat", "45 1 * * *", "Australia/Lord_Howe", "2025-04-05T00:00:00Z",
			[]string{"2025-04-05T14:45:00Z", "2025-04-06T15:15:00Z"}},
		{"Lord Howe half-hour repeat, every quarter", "*/15 * * * *", "Australia/Lord_Howe", "2025-04-05T14:20:00Z",
			[]string{"2025-04-05T14:30:00Z", "2025-04-05T14:45:00Z", "2025-04-05T15:30:00Z"}},
		{"Paris spring gap (2026)", "30 2 * * *", "Europe/Paris", "2026-03-28T12:00:00Z",
			[]string{"2026-03-30T00:30:00Z", "2026-03-31T00:30:00Z"}},
		{"Paris fall back (2026): once, the first", "30 2 * * *", "Europe/Paris", "2026-10-24T12:00:00Z",
			[]string{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"}},
		{"Sydney spring gap (southern, October)", "30 2 * * *", "Australia/Sydney", "2026-10-03T00:00:00Z",
			[]string{"2026-10-04T15:30:00Z", "2026-10-05T15:30:00Z"}},
		{"Sydney fall back (southern, April)", "30 2 * * *", "Australia/Sydney", "2026-04-04T00:00:00Z",
			[]string{"2026-04-04T15:30:00Z", "2026-04-05T16:30:00Z"}},
		{"Paris every ten minutes through the gap", "*/10 * * * *", "Europe/Paris", "2026-03-29T00:45:00Z",
			[]string{"2026-03-29T00:50:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:10:00Z"}},
		{"Santiago: midnight does not exist", "0 0 * * *", "America/Santiago", "2025-09-06T05:00:00Z",
			[]string{"2025-09-08T03:00:00Z"}},
		{"Kolkata: half-hour offset, weekdays", "0 9 * * 1-5", "Asia/Kolkata", "2025-01-03T04:00:00Z",
			[]string{"2025-01-06T03:30:00Z", "2025-01-07T03:30:00Z"}},
		{"UTC: steps from an offset", "5/15 * * * *", "UTC", "2025-01-01T00:00:00Z",
			[]string{"2025-01-01T00:05:00Z", "2025-01-01T00:20:00Z", "2025-01-01T00:35:00Z", "2025-01-01T00:50:00Z", "2025-01-01T01:05:00Z"}},
		{"UTC: quarterly", "0 0 1 */3 *", "UTC", "2025-01-01T00:00:00Z",
			[]string{"2025-04-01T00:00:00Z", "2025-07-01T00:00:00Z", "2025-10-01T00:00:00Z", "2026-01-01T00:00:00Z"}},
		{"UTC: 29 February", "0 0 29 2 *", "UTC", "2025-01-01T00:00:00Z",
			[]string{"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"}},
		{"UTC: 29 February across 2100", "0 0 29 2 *", "UTC", "2096-03-01T00:00:00Z",
			[]string{"2104-02-29T00:00:00Z"}},
		{"UTC: Sunday as 7", "0 12 * * 7", "UTC", "2025-01-01T00:00:00Z",
			[]string{"2025-01-05T12:00:00Z", "2025-01-12T12:00:00Z"}},
		{"strictly after, seconds truncated", "* * * * *", "UTC", "2025-01-01T00:00:30Z",
			[]string{"2025-01-01T00:01:00Z", "2025-01-01T00:02:00Z"}},
		{"strictly after, on the minute", "* * * * *", "UTC", "2025-01-01T00:00:00Z",
			[]string{"2025-01-01T00:01:00Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			s := Schedule{Cron: c, Location: mustLoc(t, tc.tz)}
			got := s.Times(mustTime(t, tc.after), len(tc.want))
			var gotS []string
			for _, g := range got {
				gotS = append(gotS, g.UTC().Format(time.RFC3339))
			}
			if strings.Join(gotS, " ") != strings.Join(tc.want, " ") {
				t.Errorf("%q in %s after %s:\n got %v\nwant %v", tc.expr, tc.tz, tc.after, gotS, tc.want)
			}
		})
	}
}

// firesAt is the definition Next must meet, checked the slow way: the minute instant m fires
// when its local wall time matches the expression and no earlier instant (up to two hours
// back, more than any clock change) showed the same wall time.
func firesAt(c Cron, loc *time.Location, m time.Time) bool {
	l := m.In(loc)
	y, mo, d := l.Date()
	day := time.Date(y, mo, d, 12, 0, 0, 0, time.UTC)
	if !c.dayMatches(day) || c.hour&(1<<l.Hour()) == 0 || c.minute&(1<<l.Minute()) == 0 {
		return false
	}
	for back := 15 * time.Minute; back <= 2*time.Hour; back += 15 * time.Minute {
		e := m.Add(-back).In(loc)
		if e.Format("2006-01-02 15:04") == l.Format("2006-01-02 15:04") {
			return false
		}
	}
	return true
}

var propertyZones = []string{"UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata",
	"America/Santiago", "Pacific/Chatham", "Europe/Dublin", "Africa/Cairo"}

var propertyExprs = []string{"* * * * *", "*/7 * * * *", "0 * * * *", "30 * * * *", "*/20 1-3 * * *", "0,15,30,45 0-3 * * *",
	"45 1 * * *", "0 2 * * *", "30 2 * * SUN", "0 0 * * *", "59 23 * * *", "10 0-2,23 * * 0,6", "5/10 2 * * *"}

// transitions returns instants near every clock change of loc in 2024-2026.
func transitions(loc *time.Location) []time.Time {
	var out []time.Time
	t := time.Date(2024, 1, 1, 0, 0, 0, 0, loc)
	for t.Year() < 2027 {
		_, end := t.ZoneBounds()
		if end.IsZero() {
			break
		}
		out = append(out, end)
		t = end.In(loc)
	}
	return out
}

// TestNextProperties compares Next with the slow definition around every clock change of
// several zones, and checks the properties of a sequence of fires: each later than the
// last, on a whole minute, no local wall time twice.
func TestNextProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tz := range propertyZones {
		loc := mustLoc(t, tz)
		starts := transitions(loc)
		if tz != "UTC" && tz != "Asia/Kolkata" && len(starts) < 4 {
			t.Fatalf("%s: %d transitions in 2024-2026; the zone data is not what this test expects", tz, len(starts))
		}
		starts = append(starts, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
		for _, expr := range propertyExprs {
			c, err := Parse(expr)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range starts {
				after := tr.Add(-3*time.Hour + time.Duration(rng.IntN(7200))*time.Second)
				checkAgainstDefinition(t, c, loc, after, tr.Add(3*time.Hour))
			}
		}
	}
}

func checkAgainstDefinition(t *testing.T, c Cron, loc *time.Location, after, until time.Time) {
	t.Helper()
	seen := map[string]bool{}
	prev := after
	m := after.Truncate(time.Minute).Add(time.Minute)
	for {
		got, ok := c.Next(prev, loc)
		if !ok {
			t.Fatalf("%q in %s: no fire after %s", c, loc, prev)
		}
		if !got.After(prev) || got.Truncate(time.Minute) != got || got.Second() != 0 {
			t.Fatalf("%q in %s: Next(%s) = %s, not a whole minute after it", c, loc, prev, got)
		}
		for ; m.Before(got); m = m.Add(time.Minute) {
			if firesAt(c, loc, m) {
				t.Fatalf("%q in %s: Next(%s) = %s skips %s (%s local)", c, loc, prev, got, m, m.In(loc))
			}
		}
		if !firesAt(c, loc, got) {
			t.Fatalf("%q in %s: Next(%s) = %s (%s local), which does not fire", c, loc, prev, got, got.In(loc))
		}
		wall := got.In(loc).Format("2006-01-02 15:04")
		if seen[wall] {
			t.Fatalf("%q in %s: local time %s fires twice", c, loc, wall)
		}
		seen[wall] = true
		m = got.Add(time.Minute)
		prev = got
		if got.After(until) {
			return
		}
	}
}

// TestNextMonotone: from any instant, Next is later, and Next of an earlier instant is never
// later than Next of a later one.
func TestNextMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tz := range propertyZones {
		loc := mustLoc(t, tz)
		for _, expr := range propertyExprs {
			c, err := Parse(expr)
			if err != nil {
				t.Fatal(err)
			}
			base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			for range 200 {
				a := base.Add(time.Duration(rng.Int64N(int64(365 * 24 * time.Hour))))
				b := a.Add(time.Duration(rng.Int64N(int64(3 * time.Hour))))
				na, _ := c.Next(a, loc)
				nb, _ := c.Next(b, loc)
				if !na.After(a) || !nb.After(b) || na.After(nb) {
					t.Fatalf("%q in %s: Next(%s) = %s, Next(%s) = %s", c, tz, a, na, b, nb)
				}
			}
		}
	}
}

func BenchmarkNext(b *testing.B) {
	for _, expr := range []string{"*/10 * * * *", "0 9 * * 1-5", "0 0 29 2 *"} {
		b.Run(expr, func(b *testing.B) {
			c, err := Parse(expr)
			if err != nil {
				b.Fatal(err)
			}
			loc := mustLoc(b, "America/New_York")
			after := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
			for b.Loop() {
				if _, ok := c.Next(after, loc); !ok {
					b.Fatal("no fire")
				}
			}
		})
	}
}

func ExampleSchedule_Times() {
	c, _ := Parse("30 1 * * *")
	loc, _ := LoadLocation("America/New_York")
	s := Schedule{Cron: c, Location: loc}
	for _, t := range s.Times(time.Date(2025, 11, 1, 12, 0, 0, 0, time.UTC), 2) {
		fmt.Println(t.In(loc).Format("2006-01-02 15:04 MST"))
	}
	// Output:
	// 2025-11-02 01:30 EDT
	// 2025-11-03 01:30 EST
}
