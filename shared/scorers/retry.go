package scorers

import (
	"context"
	"math/rand/v2"
	"time"
)

// Retry paces the attempts of a version write that lost the race for its number. Each wait
// is drawn at random (full jitter) up to a cap that doubles per attempt, starting from how
// long the lost attempt took: when the table is slow, or many writers queue on one scorer,
// every attempt takes longer and the writers spread out further, instead of colliding again
// on every round.
type Retry struct {
	Attempts int           // attempts in all, the first included
	Base     time.Duration // least cap of the first wait
	Max      time.Duration // largest cap
}

// DefaultRetry lets fifty writers on one scorer all succeed, even on a table that serves one
// request at a time, and bounds the wait of one request by Attempts × Max.
var DefaultRetry = Retry{Attempts: 100, Base: 5 * time.Millisecond, Max: 2 * time.Second}

// wait sleeps before attempt n+1 (n counts from 1) after an attempt that took took; it
// returns early with ctx's error.
func (r Retry) wait(ctx context.Context, n int, took time.Duration) error {
	limit := max(r.Base, took) << min(n-1, 16)
	if limit > r.Max || limit <= 0 {
		limit = r.Max
	}
	d := time.Millisecond
	if limit > 0 {
		d += rand.N(limit)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
