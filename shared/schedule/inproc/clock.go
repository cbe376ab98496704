package inproc

import (
	"context"
	"sync"
	"time"
)

// Clock is the scheduler's time: the real one, or a ManualClock in tests.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer: C receives once when it fires.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }

// ManualClock is a clock that moves only when told, so that a test fires schedules without
// sleeping. Its timers fire when Set or Advance reaches their deadline.
//
// A test keeps in step with the scheduler by counting timers: the scheduler makes one
// timer each time it goes back to sleep, so after moving the clock past a deadline, waiting
// for Created to grow by one means the scheduler has handled that instant.
type ManualClock struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*manualTimer
	created int
	changed chan struct{} // closed and replaced when a timer is made
}

// NewManualClock returns a clock that reads t until moved.
func NewManualClock(t time.Time) *ManualClock {
	return &ManualClock{now: t, changed: make(chan struct{})}
}

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer that fires when the clock reaches now+d (at once if d <= 0).
func (c *ManualClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{clock: c, at: c.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		t.c <- c.now
	} else {
		c.timers = append(c.timers, t)
	}
	c.created++
	close(c.changed)
	c.changed = make(chan struct{})
	return t
}

// Advance moves the clock forward by d; see Set.
func (c *ManualClock) Advance(d time.Duration) int { return c.Set(c.Now().Add(d)) }

// Set moves the clock to t (never backwards: an earlier t is ignored) and fires the
// timers whose deadline it reaches. It returns how many fired.
func (c *ManualClock) Set(t time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	fired := 0
	pending := c.timers[:0]
	for _, tm := range c.timers {
		if tm.at.After(c.now) {
			pending = append(pending, tm)
			continue
		}
		tm.c <- c.now
		fired++
	}
	c.timers = pending
	return fired
}

// Pending returns the timers made and neither fired nor stopped.
func (c *ManualClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Created returns how many timers have been made.
func (c *ManualClock) Created() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.created
}

// WaitCreated blocks until at least n timers have been made, or ctx is done.
func (c *ManualClock) WaitCreated(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		created, changed := c.created, c.changed
		c.mu.Unlock()
		if created >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

type manualTimer struct {
	clock *ManualClock
	at    time.Time
	c     chan time.Time
}

func (t *manualTimer) C() <-chan time.Time { return t.c }

// Stop removes the timer; it reports whether the timer was still pending.
func (t *manualTimer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, tm := range c.timers {
		if tm == t {
			c.timers = append(c.timers[:i], c.timers[i+1:]...)
			return true
		}
	}
	return false
}
