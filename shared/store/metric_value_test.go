package store_test

import (
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// TestSupersedes: between external values the newer judgment wins, a value of unknown time
// gives way to any other, an equal value replaces nothing, and of two different values of
// one time exactly one supersedes the other (so arrival order does not decide); this
// service's scorers' values always replace.
func TestSupersedes(t *testing.T) {
	ext := func(n float64, at int64) store.MetricValue {
		return store.MetricValue{Number: &n, Source: store.SourceExternal, JudgedAt: at}
	}
	own := func(n float64) store.MetricValue { return store.MetricValue{Number: &n} }
	for _, c := range []struct {
		name      string
		next, cur store.MetricValue
		want      bool
	}{
		{"newer", ext(0.1, 20), ext(0.9, 10), true},
		{"older", ext(0.1, 10), ext(0.9, 20), false},
		{"same value, same time", ext(0.5, 10), ext(0.5, 10), false},
		{"same value, newer", ext(0.5, 20), ext(0.5, 10), true},
		{"over a value of unknown time", ext(0.1, 10), ext(0.9, 0), true},
		{"of unknown time over an unknown one, sorting last", ext(0.9, 0), ext(0.1, 0), true},
		{"of unknown time over a timed one", ext(0.1, 0), ext(0.9, 10), false},
		{"a scorer's over an external one", own(0.1), ext(0.9, 10), true},
		{"an external over a scorer's", ext(0.1, 1), own(0.9), true},
		{"a scorer's over its own", own(0.1), own(0.1), true},
	} {
		if got := c.next.Supersedes(c.cur); got != c.want {
			t.Errorf("%s: Supersedes = %v, want %v", c.name, got, c.want)
		}
	}
	label := "polite"
	for _, pair := range [][2]store.MetricValue{
		{ext(0.3, 10), ext(0.7, 10)},
		{ext(0.3, 10), {Category: &label, Source: store.SourceExternal, JudgedAt: 10}},
		{ext(0.3, 0), ext(0.7, 0)},
	} {
		a, b := pair[0].Supersedes(pair[1]), pair[1].Supersedes(pair[0])
		if a == b {
			t.Errorf("%+v and %+v of one time: each supersedes the other: %v", pair[0], pair[1], a)
		}
	}
}
