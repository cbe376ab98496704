package schedule

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Cron is a parsed five-field cron expression that EventBridge Scheduler can run as
// written (see the package documentation for the grammar and the two extra rules).
type Cron struct {
	minute, hour, dom, month, dow uint64 // bit v set: value v matches (dow: 0 = Sunday .. 6)
	domAny, dowAny                bool   // the field was * or ?
	text                          string // the fields, joined by one space
}

// Error says why an expression, time zone or date is refused, in words for the API's
// caller. Field is "cron", "timezone", "start_date" or "end_date": the caller reports the
// error there (a cron error at ["body","schedule","cron"]).
type Error struct {
	Field string
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

// maxExprLen bounds what Parse reads; a longer expression is refused before any work.
const maxExprLen = 256

// fieldSpec describes one of the five fields.
type fieldSpec struct {
	name     string
	min, max int      // accepted values
	top      int      // last value of * and N/S (day-of-week: 6, 7 is Sunday again)
	names    []string // three-letter names of min, min+1, ...; nil if none
	expected string   // the accepted values, for messages
}

var specs = [5]fieldSpec{
	{name: "minute", min: 0, max: 59, top: 59, expected: "0-59"},
	{name: "hour", min: 0, max: 23, top: 23, expected: "0-23"},
	{name: "day-of-month", min: 1, max: 31, top: 31, expected: "1-31"},
	{name: "month", min: 1, max: 12, top: 12, expected: "1-12 or JAN-DEC",
		names: []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
	{name: "day-of-week", min: 0, max: 7, top: 6, expected: "0-7 or SUN-SAT",
		names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}},
}

// daysIn is the most days each month can have (February: 29, in leap years).
var daysIn = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// Parse reads a five-field cron expression. Every refusal is an *Error with Field "cron".
func Parse(expr string) (Cron, error) {
	fail := func(format string, args ...any) (Cron, error) {
		shown := expr
		if len(shown) > 80 {
			shown = shown[:80] + "..."
		}
		return Cron{}, &Error{Field: "cron", Msg: fmt.Sprintf("invalid cron expression '%s': ", shown) + fmt.Sprintf(format, args...)}
	}
	if len(expr) > maxExprLen {
		return fail("longer than %d characters", maxExprLen)
	}
	f := strings.Fields(expr)
	if len(f) != 5 {
		return fail("expected 5 fields (minute hour day-of-month month day-of-week), got %d", len(f))
	}
	var sets [5]uint64
	for i, text := range f {
		set, err := parseField(specs[i], text)
		if err != "" {
			return fail("%s", err)
		}
		sets[i] = set
	}
	c := Cron{minute: sets[0], hour: sets[1], dom: sets[2], month: sets[3], dow: sets[4],
		domAny: f[2] == "*" || f[2] == "?", dowAny: f[4] == "*" || f[4] == "?", text: strings.Join(f, " ")}
	if c.dow&(1<<7) != 0 { // 7 is Sunday
		c.dow = c.dow&^(1<<7) | 1
	}
	if !c.domAny && !c.dowAny {
		return fail("day-of-month (%s) and day-of-week (%s) are both restricted; cron runs when either matches, "+
			"which the scheduler cannot express: set one of them to *", f[2], f[4])
	}
	if !c.domAny && !c.someDayExists() {
		return fail("day-of-month %s never occurs in month %s", f[2], f[3])
	}
	return c, nil
}

// someDayExists reports whether some chosen month has some chosen day of the month.
func (c Cron) someDayExists() bool {
	for m := 1; m <= 12; m++ {
		if c.month&(1<<m) != 0 && c.dom&(uint64(1)<<(daysIn[m]+1)-1) != 0 {
			return true
		}
	}
	return false
}

// String returns the expression, its fields joined by one space.
func (c Cron) String() string { return c.text }

// parseField reads one field into a set of values, or says why it cannot.
func parseField(s fieldSpec, text string) (uint64, string) {
	if text == "?" {
		if s.name != "day-of-month" && s.name != "day-of-week" {
			return 0, fmt.Sprintf("'?' is allowed only as the day-of-month or day-of-week field, not in the %s field", s.name)
		}
		return span(s.min, s.top, 1), ""
	}
	var set uint64
	for item := range strings.SplitSeq(text, ",") {
		v, err := parseItem(s, item)
		if err != "" {
			return 0, err
		}
		set |= v
	}
	return set, ""
}

// parseItem reads *, N, N-M, each optionally followed by /S.
func parseItem(s fieldSpec, item string) (uint64, string) {
	if item == "" {
		return 0, fmt.Sprintf("empty item in the %s field", s.name)
	}
	rng, stepText, hasStep := strings.Cut(item, "/")
	step := 1
	if hasStep {
		n, err := strconv.Atoi(stepText)
		width := s.top - s.min + 1
		if err != nil || n < 1 || n >= width || !digits(stepText) {
			return 0, fmt.Sprintf("step '%s' in the %s field must be a number from 1 to %d", stepText, s.name, width-1)
		}
		step = n
	}
	if rng == "*" {
		return span(s.min, s.top, step), ""
	}
	loText, hiText, isRange := strings.Cut(rng, "-")
	lo, err := value(s, item, loText)
	if err != "" {
		return 0, err
	}
	hi := lo
	switch {
	case isRange:
		if hi, err = value(s, item, hiText); err != "" {
			return 0, err
		}
		if lo > hi {
			return 0, fmt.Sprintf("range '%s' in the %s field runs backwards", rng, s.name)
		}
	case hasStep:
		hi = s.top
		if lo > hi { // 7/S in day-of-week
			hi = lo
		}
	}
	return span(lo, hi, step), ""
}

// value reads a number or, where the field has names, a three-letter name; item is the
// list item it comes from, for the message.
func value(s fieldSpec, item, text string) (int, string) {
	if digits(text) && len(text) <= 4 {
		n, _ := strconv.Atoi(text)
		if n < s.min || n > s.max {
			return 0, fmt.Sprintf("value %s in the %s field is out of range (%s)", text, s.name, s.expected)
		}
		return n, ""
	}
	for i, name := range s.names {
		if strings.EqualFold(text, name) {
			return s.min + i, ""
		}
	}
	return 0, fmt.Sprintf("'%s' in the %s field is not a value or range (%s)", item, s.name, s.expected)
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// span is the set {lo, lo+step, ...} up to hi.
func span(lo, hi, step int) uint64 {
	var set uint64
	for v := lo; v <= hi; v += step {
		set |= 1 << v
	}
	return set
}

// values lists the members of set in ascending order.
func values(set uint64) []int {
	out := make([]int, 0, bits.OnesCount64(set))
	for set != 0 {
		v := bits.TrailingZeros64(set)
		out = append(out, v)
		set &^= 1 << v
	}
	return out
}
