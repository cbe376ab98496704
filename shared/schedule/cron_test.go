package schedule

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestParseEventBridge(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"* * * * *", "cron(* * * * ? *)"},
		{"*/10 * * * *", "cron(0/10 * * * ? *)"},
		{"5/15 * * * *", "cron(5/15 * * * ? *)"},
		{"0,30 8-17 * * *", "cron(0,30 8-17 * * ? *)"},
		{"0-4 * * * *", "cron(0-4 * * * ? *)"},
		{"0,1 * * * *", "cron(0,1 * * * ? *)"},
		{"00 09 * * *", "cron(0 9 * * ? *)"},
		{"  0\t9  *  * * ", "cron(0 9 * * ? *)"},
		{"0 9 * * 1-5", "cron(0 9 ? * 2-6 *)"},
		{"0 9 * * mon-FRI", "cron(0 9 ? * 2-6 *)"},
		{"0 0 * * 0", "cron(0 0 ? * 1 *)"},
		{"0 0 * * 7", "cron(0 0 ? * 1 *)"},
		{"0 0 * * SUN,SAT", "cron(0 0 ? * 1,7 *)"},
		{"0 0 * * 5-7", "cron(0 0 ? * 1,6,7 *)"},
		{"0 0 * * 0-6", "cron(0 0 ? * * *)"},
		{"0 0 * * */2", "cron(0 0 ? * 1,3,5,7 *)"}, // no / in EventBridge's day-of-week
		{"0 12 ? * MON", "cron(0 12 ? * 2 *)"},
		{"30 2 1 * *", "cron(30 2 1 * ? *)"},
		{"30 2 1 * ?", "cron(30 2 1 * ? *)"},
		{"0 0 1,15 * *", "cron(0 0 1,15 * ? *)"},
		{"0 0 1-5/2 * *", "cron(0 0 1,3,5 * ? *)"},
		{"0 0 1 */3 *", "cron(0 0 1 1/3 ? *)"},
		{"0 0 1 jan,Jul *", "cron(0 0 1 1,7 ? *)"},
		{"0 0 29 2 *", "cron(0 0 29 2 ? *)"},
		{"0 0 ? * ?", "cron(0 0 * * ? *)"},
		{"*/59 * * * *", "cron(0,59 * * * ? *)"},
	} {
		c, err := Parse(tc.expr)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.expr, err)
			continue
		}
		if got := c.EventBridge(); got != tc.want {
			t.Errorf("Parse(%q).EventBridge() = %q; want %q", tc.expr, got, tc.want)
		}
		roundTrip(t, c)
	}
}

// roundTrip checks that c's EventBridge form, read back with EventBridge's meaning (days of
// the week 1 = SUN, ? = any, year *), names the same minutes, hours, days and months.
func roundTrip(t *testing.T, c Cron) {
	t.Helper()
	eb := c.EventBridge()
	f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(eb, "cron("), ")"))
	if len(f) != 6 || f[5] != "*" || (f[2] == "?") == (f[4] == "?") {
		t.Errorf("%q: EventBridge form %q: want six fields, year *, ? in exactly one day field", c, eb)
		return
	}
	if f[4] != "?" && f[4] != "*" { // 1..7 back to 0..6
		items := strings.Split(f[4], ",")
		for i, it := range items {
			lo, hi, isRange := strings.Cut(it, "-")
			items[i] = shiftDown(t, lo)
			if isRange {
				items[i] += "-" + shiftDown(t, hi)
			}
		}
		f[4] = strings.Join(items, ",")
	}
	back, err := Parse(strings.Join(f[:5], " "))
	if err != nil {
		t.Errorf("%q: EventBridge form %q does not read back: %v", c, eb, err)
		return
	}
	// The sets decide when it fires; * and a full list (0-6) are the same days.
	if back.minute != c.minute || back.hour != c.hour || back.dom != c.dom || back.month != c.month || back.dow != c.dow {
		t.Errorf("%q: EventBridge form %q reads back as %q, other values", c, eb, back)
	}
}

func shiftDown(t *testing.T, s string) string {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 7 {
		t.Fatalf("day-of-week value %q is not 1..7", s)
	}
	return strconv.Itoa(n - 1)
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"", "expected 5 fields (minute hour day-of-month month day-of-week), got 0"},
		{"* * * *", "got 4"},
		{"0 * * * * *", "got 6"},
		{"@daily", "got 1"},
		{"TZ=UTC 0 * * * *", "got 6"},
		{"0 0 1 * 1", "day-of-month (1) and day-of-week (1) are both restricted"},
		{"0 0 */2 * MON", "both restricted"},
		{"0 0 1-31 * 1-5", "both restricted"},
		{"0 0 30 2 *", "day-of-month 30 never occurs in month 2"},
		{"0 0 31 4,6,9,11 *", "never occurs"},
		{"60 * * * *", "value 60 in the minute field is out of range (0-59)"},
		{"0 24 * * *", "out of range (0-23)"},
		{"0 0 0 * *", "out of range (1-31)"},
		{"0 0 * 13 *", "out of range (1-12 or JAN-DEC)"},
		{"0 0 * * 8", "out of range (0-7 or SUN-SAT)"},
		{"-1 * * * *", "'-1' in the minute field is not a value or range (0-59)"},
		{"0 0 * JANUARY *", "'JANUARY' in the month field is not a value"},
		{"MON * * * *", "'MON' in the minute field is not a value"},
		{"0 0 L * *", "'L' in the day-of-month field"},
		{"0 0 1W * *", "'1W'"},
		{"0 0 * * 1#2", "'1#2'"},
		{"0 0 * * 5L", "'5L'"},
		{"? * * * *", "'?' is allowed only as the day-of-month or day-of-week field"},
		{"0 0 ?,1 * *", "'?' in the day-of-month field is not a value"},
		{"*/0 * * * *", "step '0' in the minute field must be a number from 1 to 59"},
		{"*/60 * * * *", "step '60'"},
		{"0 0 * * */7", "step '7' in the day-of-week field must be a number from 1 to 6"},
		{"*/+5 * * * *", "step '+5'"},
		{"5-1 * * * *", "range '5-1' in the minute field runs backwards"},
		{"0 0 * * SAT-SUN", "runs backwards"},
		{"1,,2 * * * *", "empty item in the minute field"},
		{"1, * * * *", "empty item"},
		{"1-2-3 * * * *", "'1-2-3' in the minute field is not a value"},
		{"1- * * * *", "'1-' in the minute field is not a value"},
		{"12345 * * * *", "'12345' in the minute field"},
		{strings.Repeat("1,", 130) + "1 * * * *", "longer than 256 characters"},
	} {
		_, err := Parse(tc.expr)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v; want an *Error", tc.expr, err)
			continue
		}
		if e.Field != "cron" || !strings.HasPrefix(e.Msg, "invalid cron expression '") || !strings.Contains(e.Msg, tc.want) {
			t.Errorf("Parse(%q) = %+v; want field cron and a message containing %q", tc.expr, e, tc.want)
		}
	}
}

// TestLongestTranslation: the longest field sets the grammar allows (no range of three, no
// step to the end) still translate within EventBridge Scheduler's 256 characters
// (CreateSchedule, ScheduleExpression), which is why Parse has no length rule of its own.
func TestLongestTranslation(t *testing.T) {
	c, err := Parse("0-59/3,1-59/3 1-23/3,2-23/3 1-31/3,2-31/3 2-12/3,3-12/3 *")
	if err != nil {
		t.Fatal(err)
	}
	if eb := c.EventBridge(); len(eb) > maxExprLen || len(eb) < 230 {
		t.Errorf("EventBridge() = %q, %d characters; want the worst case, 230 to %d", eb, len(eb), maxExprLen)
	}
	roundTrip(t, c)
}

func TestParseString(t *testing.T) {
	c, err := Parse(" */5\t1-3  * *  MON ")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.String(); got != "*/5 1-3 * * MON" {
		t.Errorf("String() = %q", got)
	}
}

// FuzzParse: Parse never panics, refuses with a cron *Error, and what it accepts translates
// to an EventBridge expression of at most 256 characters that means the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"* * * * *", "*/10 1-5 * JAN-MAR 1-5", "0 0 29 2 *", "5/15 * 1,15 * ?", "0 0 * * 7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		c, err := Parse(expr)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Field != "cron" {
				t.Fatalf("Parse(%q) error %v is not a cron *Error", expr, err)
			}
			return
		}
		eb := c.EventBridge()
		if len(eb) > maxExprLen || !strings.HasPrefix(eb, "cron(") || !strings.HasSuffix(eb, " *)") {
			t.Fatalf("Parse(%q).EventBridge() = %q", expr, eb)
		}
		roundTrip(t, c)
	})
}
