package schedule

import "time"

// horizonDays bounds the search of Next: the longest wait between two fires the grammar
// allows is 29 February across a century year that is not leap (2096 to 2104, 2,922 days).
const horizonDays = 3000

// Next returns the first time after `after` (strictly) at which the expression fires in loc,
// and false if it fires in none of the next horizonDays days (which Parse's rules exclude).
//
// It walks local calendar days from after's day and, on each matching day, the hours and
// minutes in order. A wall time that the day does not have (clocks moved forward over it)
// is skipped; a wall time the day has twice (clocks moved back) stands for its first
// instant only. Because first instants grow with wall time, the first candidate later than
// `after` is the answer, and the repeated hour's second pass fires nothing.
func (c Cron) Next(after time.Time, loc *time.Location) (time.Time, bool) {
	local := after.In(loc)
	y, m, d := local.Date()
	day := time.Date(y, m, d, 12, 0, 0, 0, time.UTC) // calendar arithmetic away from any DST edge
	hours, minutes := values(c.hour), values(c.minute)
	for i := range horizonDays {
		if i > 0 {
			day = day.AddDate(0, 0, 1)
		}
		if !c.dayMatches(day) {
			continue
		}
		y, m, d := day.Date()
		for _, h := range hours {
			if i == 0 && h < local.Hour() {
				continue
			}
			for _, mi := range minutes {
				if i == 0 && h == local.Hour() && mi < local.Minute() {
					continue
				}
				if t, ok := wallTime(loc, y, m, d, h, mi); ok && t.After(after) {
					return t, true
				}
			}
		}
	}
	return time.Time{}, false
}

// dayMatches reports whether the calendar day (a UTC noon) is one the expression runs on.
// Parse guarantees one of the two day fields is *, so there is no "or" to apply.
func (c Cron) dayMatches(day time.Time) bool {
	return c.month&(1<<day.Month()) != 0 && c.dom&(1<<day.Day()) != 0 && c.dow&(1<<day.Weekday()) != 0
}

// wallTime is the instant at which loc's clocks show y-m-d h:mi, the first one if they show
// it twice, and false if they never show it (a gap of a forward change).
func wallTime(loc *time.Location, y int, m time.Month, d, h, mi int) (time.Time, bool) {
	// time.Date picks one of the two zones of a transition "without guarantee which", so
	// the result is checked and, in an overlap, moved to the earlier instant.
	t := time.Date(y, m, d, h, mi, 0, 0, loc)
	if !sameWall(t, y, m, d, h, mi) {
		return time.Time{}, false
	}
	start, _ := t.ZoneBounds()
	if start.IsZero() {
		return t, true
	}
	_, off := t.Zone()
	_, prevOff := start.Add(-time.Nanosecond).Zone()
	if prevOff <= off { // the previous zone was behind: no overlap before t's zone began
		return t, true
	}
	earlier := t.Add(-time.Duration(prevOff-off) * time.Second).In(loc)
	if earlier.Before(start) && sameWall(earlier, y, m, d, h, mi) {
		return earlier, true
	}
	return t, true
}

func sameWall(t time.Time, y int, m time.Month, d, h, mi int) bool {
	ty, tm, td := t.Date()
	return ty == y && tm == m && td == d && t.Hour() == h && t.Minute() == mi
}
