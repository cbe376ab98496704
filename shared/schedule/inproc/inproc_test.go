package inproc

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/schedule"
)

// harness runs a Scheduler on a ManualClock and records its fires.
type harness struct {
	t     *testing.T
	clock *ManualClock
	s     *Scheduler
	logs  *bytes.Buffer
	done  chan error
	stop  context.CancelFunc

	mu      sync.Mutex
	entries []Entry
	srcErr  error
	fires   []schedule.Fire
}

func start(t *testing.T, now string, entries ...Entry) *harness {
	t.Helper()
	h := &harness{t: t, clock: NewManualClock(at(t, now)), logs: &bytes.Buffer{}, done: make(chan error, 1), entries: entries}
	src := SourceFunc(func(context.Context) ([]Entry, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		return append([]Entry(nil), h.entries...), h.srcErr
	})
	fire := func(_ context.Context, f schedule.Fire) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.fires = append(h.fires, f)
	}
	// The logs are written by Run's goroutine and read after it is parked (see step).
	h.s = New(src, fire, Options{Clock: h.clock, Refresh: time.Hour, Logger: slog.New(slog.NewTextHandler(h.logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	h.stop = cancel
	go func() { h.done <- h.s.Run(ctx) }()
	t.Cleanup(func() { h.shutdown() })
	h.waitCreated(1)
	return h
}

// waitCreated waits until the scheduler has made n timers, that is, gone to sleep again.
func (h *harness) waitCreated(n int) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard, not a measure
	defer cancel()
	if err := h.clock.WaitCreated(ctx, n); err != nil {
		h.t.Fatalf("the scheduler did not go back to sleep: %v", err)
	}
}

// step moves the clock to t and, if that woke the scheduler, waits until it has handled t.
func (h *harness) step(t time.Time) {
	h.t.Helper()
	n := h.clock.Created()
	if h.clock.Set(t) > 0 {
		h.waitCreated(n + 1)
	}
}

// walk moves the clock minute by minute to t, as time passes.
func (h *harness) walk(to time.Time) {
	h.t.Helper()
	for now := h.clock.Now(); now.Before(to); {
		now = now.Add(time.Minute)
		if now.After(to) {
			now = to
		}
		h.step(now)
	}
}

func (h *harness) wake() {
	h.t.Helper()
	n := h.clock.Created()
	h.s.Wake()
	h.waitCreated(n + 1)
}

func (h *harness) setEntries(entries ...Entry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = entries
}

// taken returns and forgets the fires so far, as "id@time" keys.
func (h *harness) taken() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, f := range h.fires {
		out = append(out, f.Key())
	}
	h.fires = nil
	return out
}

func (h *harness) shutdown() {
	if h.stop == nil {
		return
	}
	h.stop()
	h.stop = nil
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("Run returned %v after its context ended; want nil", err)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a measure
		h.t.Error("Run did not return after its context ended")
	}
}

func at(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func entry(t testing.TB, id string, spec schedule.Spec) Entry {
	t.Helper()
	s, err := schedule.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return Entry{Target: schedule.Target{ConfigurationID: id, OrgID: "o", ProjectID: "p", RunID: "r-" + id}, Schedule: s}
}

func want(t *testing.T, got []string, keys ...string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(keys, " ") {
		t.Errorf("fires:\n got %v\nwant %v", got, keys)
	}
}

// TestFiresAcrossFallBack: minute by minute through New York's fall-back night, two
// configurations fire at their times, the repeated hour once, each key once.
func TestFiresAcrossFallBack(t *testing.T) {
	h := start(t, "2025-11-02T04:55:00Z",
		entry(t, "a", schedule.Spec{Cron: "*/20 * * * *", Timezone: "America/New_York"}),
		entry(t, "b", schedule.Spec{Cron: "30 1 * * *", Timezone: "America/New_York"}))
	h.walk(at(t, "2025-11-02T07:30:00Z"))
	want(t, h.taken(),
		"a@2025-11-02T05:00:00Z", "a@2025-11-02T05:20:00Z", "b@2025-11-02T05:30:00Z", "a@2025-11-02T05:40:00Z",
		"a@2025-11-02T07:00:00Z", "a@2025-11-02T07:20:00Z")
	// The fire carries the target's ids.
	h.walk(at(t, "2025-11-02T07:40:00Z"))
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.fires) != 1 || h.fires[0].RunID != "r-a" || h.fires[0].OrgID != "o" || h.fires[0].ScheduledTime.Location() != time.UTC {
		t.Errorf("fire = %+v", h.fires)
	}
}

// TestSkipsSpringGap: times inside the spring-forward gap do not fire.
func TestSkipsSpringGap(t *testing.T) {
	h := start(t, "2025-10-04T15:00:00Z", entry(t, "lh", schedule.Spec{Cron: "*/15 * * * *", Timezone: "Australia/Lord_Howe"}))
	h.walk(at(t, "2025-10-04T15:50:00Z")) // 01:30 +10:30 .. 03:20 +11 local, 02:00-02:29 missing
	want(t, h.taken(), "lh@2025-10-04T15:15:00Z", "lh@2025-10-04T15:30:00Z", "lh@2025-10-04T15:45:00Z")
}

// TestCoalescesAfterSleep: when the clock jumps over several fires, one fire, the latest.
func TestCoalescesAfterSleep(t *testing.T) {
	h := start(t, "2025-01-01T00:00:00Z", entry(t, "a", schedule.Spec{Cron: "*/10 * * * *"}))
	h.step(at(t, "2025-01-01T02:05:00Z"))
	want(t, h.taken(), "a@2025-01-01T02:00:00Z")
	if !strings.Contains(h.logs.String(), "missed=11") {
		t.Errorf("logs = %q; want the 11 missed fires told", h.logs.String())
	}
	h.step(at(t, "2025-01-01T02:10:00Z"))
	want(t, h.taken(), "a@2025-01-01T02:10:00Z")
}

// TestSourceChanges: a configuration added, changed or removed is seen at Wake; an added or
// changed one fires only for times after it was seen.
func TestSourceChanges(t *testing.T) {
	h := start(t, "2025-01-01T00:00:00Z")
	h.walk(at(t, "2025-01-01T00:07:00Z"))
	h.setEntries(entry(t, "a", schedule.Spec{Cron: "*/5 * * * *"}))
	h.wake()
	h.walk(at(t, "2025-01-01T00:16:00Z"))
	want(t, h.taken(), "a@2025-01-01T00:10:00Z", "a@2025-01-01T00:15:00Z")

	// Changed at 00:19 to a schedule that had a time at 00:18, after the last fire: that
	// time is before the change and does not fire.
	h.walk(at(t, "2025-01-01T00:19:00Z"))
	h.setEntries(entry(t, "a", schedule.Spec{Cron: "*/3 * * * *"}))
	h.wake()
	want(t, h.taken())
	h.walk(at(t, "2025-01-01T00:22:00Z"))
	want(t, h.taken(), "a@2025-01-01T00:21:00Z")
	h.setEntries(entry(t, "a", schedule.Spec{Cron: "*/15 * * * *"}))
	h.wake()
	h.walk(at(t, "2025-01-01T00:31:00Z"))
	want(t, h.taken(), "a@2025-01-01T00:30:00Z")

	// The same schedule again is no change: its state is kept.
	h.setEntries(entry(t, "a", schedule.Spec{Cron: "*/15 * * * *"}), entry(t, "b", schedule.Spec{Cron: "*/15 * * * *"}))
	h.wake()
	h.walk(at(t, "2025-01-01T00:46:00Z"))
	want(t, h.taken(), "a@2025-01-01T00:45:00Z", "b@2025-01-01T00:45:00Z")

	h.setEntries(entry(t, "b", schedule.Spec{Cron: "*/15 * * * *"}))
	h.wake()
	h.walk(at(t, "2025-01-01T01:01:00Z"))
	want(t, h.taken(), "b@2025-01-01T01:00:00Z")
}

// TestRefreshReadsSource: without Wake, the source is read again every Refresh.
func TestRefreshReadsSource(t *testing.T) {
	h := start(t, "2025-01-01T00:00:00Z")
	h.setEntries(entry(t, "a", schedule.Spec{Cron: "*/10 * * * *"}))
	h.walk(at(t, "2025-01-01T00:59:00Z"))
	want(t, h.taken())
	h.walk(at(t, "2025-01-01T01:11:00Z")) // refresh at 01:00 sees it, from then on
	want(t, h.taken(), "a@2025-01-01T01:10:00Z")
}

// TestSourceErrorKeepsEntries: a failed read keeps the known configurations firing.
func TestSourceErrorKeepsEntries(t *testing.T) {
	h := start(t, "2025-01-01T00:00:00Z", entry(t, "a", schedule.Spec{Cron: "*/30 * * * *"}))
	h.mu.Lock()
	h.srcErr = errors.New("store unavailable")
	h.mu.Unlock()
	h.wake()
	h.walk(at(t, "2025-01-01T01:01:00Z"))
	want(t, h.taken(), "a@2025-01-01T00:30:00Z", "a@2025-01-01T01:00:00Z")
	if !strings.Contains(h.logs.String(), "store unavailable") {
		t.Errorf("logs = %q; want the read failure", h.logs.String())
	}
}

// TestWindow: fires stay within the start and end dates.
func TestWindow(t *testing.T) {
	h := start(t, "2025-03-01T00:00:00Z", entry(t, "a", schedule.Spec{Cron: "0 12 * * *", Timezone: "Asia/Kolkata",
		StartDate: "2025-03-03", EndDate: "2025-03-04"}))
	h.walk(at(t, "2025-03-06T23:59:00Z"))
	want(t, h.taken(), "a@2025-03-03T06:30:00Z", "a@2025-03-04T06:30:00Z")
	if n := h.clock.Pending(); n != 1 {
		t.Errorf("pending timers = %d; want 1 (the refresh)", n)
	}
}

// TestStop: Run returns when its context ends, with its timer stopped.
func TestStop(t *testing.T) {
	h := start(t, "2025-01-01T00:00:00Z", entry(t, "a", schedule.Spec{Cron: "* * * * *"}))
	h.shutdown()
	if n := h.clock.Pending(); n != 0 {
		t.Errorf("pending timers after stop = %d; want 0", n)
	}
}

func TestRealClock(t *testing.T) {
	var c Clock = realClock{}
	tm := c.NewTimer(time.Millisecond)
	if got := <-tm.C(); got.IsZero() {
		t.Error("timer sent a zero time")
	}
	if c.NewTimer(time.Hour).Stop() != true {
		t.Error("Stop of a pending timer = false")
	}
}

func TestManualClock(t *testing.T) {
	c := NewManualClock(at(t, "2025-01-01T00:00:00Z"))
	a, b := c.NewTimer(time.Minute), c.NewTimer(time.Hour)
	if n := c.Advance(30 * time.Second); n != 0 {
		t.Errorf("Advance 30s fired %d", n)
	}
	if n := c.Advance(time.Minute); n != 1 {
		t.Errorf("Advance to 1m30s fired %d; want 1", n)
	}
	if got := <-a.C(); !got.Equal(at(t, "2025-01-01T00:01:30Z")) {
		t.Errorf("a fired at %s", got)
	}
	if !b.Stop() || b.Stop() || c.Pending() != 0 {
		t.Error("Stop: want true once, then false, and nothing pending")
	}
	c.Set(at(t, "2024-01-01T00:00:00Z"))
	if !c.Now().Equal(at(t, "2025-01-01T00:01:30Z")) {
		t.Errorf("Set backwards moved the clock to %s", c.Now())
	}
	if now := <-c.NewTimer(0).C(); !now.Equal(c.Now()) || c.Created() != 3 {
		t.Errorf("NewTimer(0) = %s, created %d", now, c.Created())
	}
}
