package store

import "encoding/json"

// Supersedes reports whether v, arriving, replaces cur, the value held under the same name.
// Between two external values the newer judgment wins, so an exporter's late retry of an
// older judgment does not replace a newer one; a value of unknown time (0: stored before
// the time was kept) is older than any timed one. At equal times the value whose stored
// form (JSON) sorts last wins: arbitrary, but the same whatever order the two arrive in, so
// every order ends the same; an equal value replaces nothing. A value of this service's
// scorers, or over one, always replaces (their writes are ordered by their own claims).
func (v MetricValue) Supersedes(cur MetricValue) bool {
	if v.Source != SourceExternal || cur.Source != SourceExternal {
		return true
	}
	a, errA := json.Marshal(v)
	b, errB := json.Marshal(cur)
	switch {
	case errA != nil || errB != nil: // not a value JSON holds (NaN): as before times were kept
		return true
	case string(a) == string(b):
		return false
	case v.JudgedAt != cur.JudgedAt: // 0, unknown, is older than any time
		return v.JudgedAt > cur.JudgedAt
	}
	return string(a) > string(b)
}
