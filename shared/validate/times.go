package validate

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Datetime reads a date-time: an ISO 8601 string (a date alone means its midnight; no zone
// means UTC) or a Unix timestamp in seconds (milliseconds when larger than 2e10, as Pydantic
// reads them). The result is in UTC.
func (v Value) Datetime() (time.Time, bool) {
	if v.skip() {
		return time.Time{}, false
	}
	switch x := v.raw.(type) {
	case string:
		if t, ok := parseDatetime(x); ok {
			return t, true
		}
		if _, detail := parseDate(x); detail != "" {
			v.errs.Add(DatetimeFromDateParsing(v.loc, v.raw, detail))
		} else {
			v.errs.Add(DatetimeFromDateParsing(v.loc, v.raw, "unexpected extra characters at the end of the input"))
		}
		return time.Time{}, false
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err == nil {
			return unixTime(f), true
		}
	}
	v.errs.Add(DatetimeType(v.loc, v.raw))
	return time.Time{}, false
}

// Date reads a calendar date (YYYY-MM-DD, or a date-time at exactly midnight).
func (v Value) Date() (time.Time, bool) {
	if v.skip() {
		return time.Time{}, false
	}
	s, ok := v.raw.(string)
	if !ok {
		v.errs.Add(DateType(v.loc, v.raw))
		return time.Time{}, false
	}
	d, detail := parseDate(s)
	if detail == "" {
		return d, true
	}
	if t, ok := parseDatetime(s); ok {
		if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
			return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), true
		}
		v.errs.Add(DateFromDatetimeInexact(v.loc, v.raw))
		return time.Time{}, false
	}
	v.errs.Add(DateFromDatetimeParsing(v.loc, v.raw, detail))
	return time.Time{}, false
}

func unixTime(f float64) time.Time {
	if f > 2e10 || f < -2e10 {
		f /= 1000
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
}

// parseDate parses exactly YYYY-MM-DD; the detail of a failure is speedate's.
func parseDate(s string) (time.Time, string) {
	if len(s) < 10 {
		return time.Time{}, "input is too short"
	}
	digits := func(from, to int) bool {
		for i := from; i < to; i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	switch {
	case !digits(0, 4):
		return time.Time{}, "invalid character in year"
	case s[4] != '-':
		return time.Time{}, "invalid date separator, expected `-`"
	case !digits(5, 7):
		return time.Time{}, "invalid character in month"
	case s[7] != '-':
		return time.Time{}, "invalid date separator, expected `-`"
	case !digits(8, 10):
		return time.Time{}, "invalid character in day"
	}
	y, _ := strconv.Atoi(s[:4])
	m, _ := strconv.Atoi(s[5:7])
	d, _ := strconv.Atoi(s[8:10])
	if m < 1 || m > 12 {
		return time.Time{}, "month value is outside expected range of 1-12"
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if d < 1 || t.Day() != d {
		return time.Time{}, "day value is outside expected range"
	}
	if len(s) > 10 {
		return time.Time{}, "unexpected extra characters at the end of the input"
	}
	return t, ""
}

// parseDatetime accepts what speedate accepts in practice: a date, a separator (T, t, _ or
// space), HH:MM[:SS[.fraction]] and an optional zone (Z, z, ±HH:MM, ±HHMM).
func parseDatetime(s string) (time.Time, bool) {
	if d, detail := parseDate(s); detail == "" {
		return d, true
	}
	if len(s) < 16 {
		return time.Time{}, false
	}
	if _, detail := parseDate(s[:10]); detail != "" {
		return time.Time{}, false
	}
	switch s[10] {
	case 'T', 't', '_', ' ':
	default:
		return time.Time{}, false
	}
	norm := s[:10] + "T" + s[11:]
	rest := norm[11:]
	zone := ""
	if i := strings.IndexAny(rest, "Zz+-"); i >= 0 {
		rest, zone = rest[:i], rest[i:]
	}
	if strings.Count(rest, ":") == 1 {
		rest += ":00"
	}
	switch {
	case zone == "":
		zone = "Z"
	case zone == "z":
		zone = "Z"
	case len(zone) == 5 && zone[3] != ':':
		zone = zone[:3] + ":" + zone[3:]
	case len(zone) == 3:
		zone += ":00"
	}
	t, err := time.Parse(time.RFC3339Nano, norm[:11]+rest+zone)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}
