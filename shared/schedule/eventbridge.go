package schedule

import (
	"strconv"
	"strings"
)

// EventBridge returns the expression in EventBridge Scheduler's six-field form,
//
//	cron(minutes hours day-of-month month day-of-week year)
//
// as documented under "Cron-based schedules" in
// https://docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html: day-of-week
// numbered 1 (SUN) to 7 (SAT), `?` in the day field that is `*` (day-of-week when both are),
// year `*`. Each field is written from its set of values rather than copied, so that every
// form the grammar accepts comes out in the subset EventBridge documents: `*`, `N/S` for a
// step that runs to the field's end (not in day-of-week, whose documented wildcards have no
// `/`), ranges `N-M` for three or more consecutive values, and comma lists.
func (c Cron) EventBridge() string {
	dom, dow := "?", "?"
	switch {
	case c.domAny && c.dowAny:
		dom = "*"
	case c.dowAny:
		dom = compact(c.dom, 1, 31, true)
	default:
		dow = compact(c.dow<<1, 1, 7, false) // 0 = Sunday becomes 1 = SUN
	}
	return "cron(" + strings.Join([]string{
		compact(c.minute, 0, 59, true), compact(c.hour, 0, 23, true), dom, compact(c.month, 1, 12, true), dow, "*",
	}, " ") + ")"
}

// compact writes a set of values of the field lo..hi in the shortest of the forms above.
func compact(set uint64, lo, hi int, slash bool) string {
	if set == span(lo, hi, 1) {
		return "*"
	}
	vs := values(set)
	if slash && len(vs) >= 3 {
		first, step := vs[0], vs[1]-vs[0]
		if set == span(first, hi, step) {
			return strconv.Itoa(first) + "/" + strconv.Itoa(step)
		}
	}
	var parts []string
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && vs[j+1] == vs[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, strconv.Itoa(vs[i])+"-"+strconv.Itoa(vs[j]))
		default:
			for k := i; k <= j; k++ {
				parts = append(parts, strconv.Itoa(vs[k]))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
