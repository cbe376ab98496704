// Package inproc is the scheduler of `make run`: it fires each configuration's schedule at
// the times package schedule computes, in the process, where the cloud has one EventBridge
// Scheduler schedule per configuration. No Lambda links it.
//
// Like the cloud it fires at the scheduled minute and not for times before it first saw a
// configuration. Unlike the cloud, it may be asleep (a laptop lid) when fires fall due: on
// waking it fires once, for the latest time due, rather than once per time missed (a week
// of a ten-minute schedule would otherwise start a thousand runs at once).
package inproc

import (
	"context"
	"log/slog"
	"sort"
	"time"

	"github.com/evalobs/evalapi/shared/schedule"
)

// Entry is a configuration with scheduled runs: what a fire names and when it fires.
type Entry struct {
	Target   schedule.Target
	Schedule schedule.Schedule
}

// Source lists the configurations with scheduled runs enabled. The scheduler reads it when
// it starts, every Refresh, and after Wake.
type Source interface {
	Scheduled(ctx context.Context) ([]Entry, error)
}

// SourceFunc adapts a function to Source.
type SourceFunc func(ctx context.Context) ([]Entry, error)

// Scheduled calls f.
func (f SourceFunc) Scheduled(ctx context.Context) ([]Entry, error) { return f(ctx) }

// FireFunc receives each fire, in the scheduler's goroutine: it hands the fire on (to a
// goroutine, a queue) and returns. Its ctx is Run's. The scheduler never passes the same
// key (schedule.Fire.Key) twice while it runs; a caller keying runs by it also recognises a
// duplicate from another process or a restart within the minute.
type FireFunc func(ctx context.Context, f schedule.Fire)

// DefaultRefresh is how often the source is read when Options.Refresh is zero.
const DefaultRefresh = 30 * time.Second

// Options are the scheduler's settings; the zero value is usable.
type Options struct {
	Clock   Clock         // nil: the real clock
	Refresh time.Duration // how often to reread the source; 0: DefaultRefresh
	Logger  *slog.Logger  // nil: no logs
}

// Scheduler fires the entries of a Source. Run it once; Wake may be called from any
// goroutine.
type Scheduler struct {
	src     Source
	fire    FireFunc
	clock   Clock
	refresh time.Duration
	log     *slog.Logger
	wake    chan struct{}
	states  map[string]*state // by configuration id; Run's goroutine only
}

// state is what the scheduler knows of one configuration.
type state struct {
	entry Entry
	after time.Time // fires up to this instant are done (or were before the entry was seen)
	next  time.Time // the next fire after `after`; zero: none left
}

// New returns a scheduler of src's entries that calls fire.
func New(src Source, fire FireFunc, o Options) *Scheduler {
	s := &Scheduler{src: src, fire: fire, clock: o.Clock, refresh: o.Refresh, log: o.Logger,
		wake: make(chan struct{}, 1), states: map[string]*state{}}
	if s.clock == nil {
		s.clock = realClock{}
	}
	if s.refresh <= 0 {
		s.refresh = DefaultRefresh
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Wake makes Run reread the source now (after a configuration changed) instead of at the
// next refresh.
func (s *Scheduler) Wake() {
	select {
	case s.wake <- struct{}{}:
	default: // a wake is already pending
	}
}

// Run fires entries until ctx is done, then returns nil. It sleeps on one timer, until the
// earliest next fire or the next refresh, whichever comes first.
func (s *Scheduler) Run(ctx context.Context) error {
	var refreshed time.Time
	reload := true
	for {
		now := s.clock.Now()
		if reload || !now.Before(refreshed.Add(s.refresh)) {
			s.reload(ctx, now)
			refreshed, reload = now, false
		}
		s.fireDue(ctx, now)
		wait := refreshed.Add(s.refresh).Sub(now)
		for _, st := range s.states {
			if !st.next.IsZero() && st.next.Sub(now) < wait {
				wait = st.next.Sub(now)
			}
		}
		timer := s.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C():
		case <-s.wake:
			timer.Stop()
			reload = true
		}
	}
}

// reload reads the source. A new configuration, or one whose schedule changed, starts from
// now: no fire for times before it was seen as it is, as EventBridge Scheduler does not fire
// a created or updated schedule for past times. A missing one is forgotten. A failed read
// keeps the entries known and is retried at the next refresh.
func (s *Scheduler) reload(ctx context.Context, now time.Time) {
	entries, err := s.src.Scheduled(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "scheduler: reading the scheduled configurations failed; keeping the known ones", "error", err)
		return
	}
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		id := e.Target.ConfigurationID
		seen[id] = true
		st, ok := s.states[id]
		if !ok {
			st = &state{}
			s.states[id] = st
		}
		if !ok || !sameSchedule(st.entry.Schedule, e.Schedule) {
			st.after = now
		}
		st.entry = e
		st.next, _ = e.Schedule.Next(st.after)
	}
	for id := range s.states {
		if !seen[id] {
			delete(s.states, id)
		}
	}
}

// fireDue fires every configuration with a fire at or before now, once, for its latest
// such time, in order of scheduled time (then id).
func (s *Scheduler) fireDue(ctx context.Context, now time.Time) {
	var due []schedule.Fire
	for _, st := range s.states {
		if st.next.IsZero() || st.next.After(now) {
			continue
		}
		latest, missed := st.next, 0
		for {
			t, ok := st.entry.Schedule.Next(latest)
			if !ok || t.After(now) {
				break
			}
			latest, missed = t, missed+1
		}
		if missed > 0 {
			s.log.InfoContext(ctx, "scheduler: fires missed while the process was not running them; firing the latest",
				"configuration_id", st.entry.Target.ConfigurationID, "missed", missed, "scheduled_time", latest)
		}
		due = append(due, schedule.Fire{Target: st.entry.Target, ScheduledTime: latest.UTC()})
		st.after = latest
		st.next, _ = st.entry.Schedule.Next(latest)
	}
	sort.Slice(due, func(i, j int) bool {
		if !due[i].ScheduledTime.Equal(due[j].ScheduledTime) {
			return due[i].ScheduledTime.Before(due[j].ScheduledTime)
		}
		return due[i].ConfigurationID < due[j].ConfigurationID
	})
	for _, f := range due {
		s.fire(ctx, f)
	}
}

func sameSchedule(a, b schedule.Schedule) bool {
	return a.Cron.String() == b.Cron.String() && a.Location.String() == b.Location.String() &&
		a.Start.Equal(b.Start) && a.End.Equal(b.End)
}
