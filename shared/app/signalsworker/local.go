package signalsworker

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/schedule/inproc"
	"github.com/evalobs/evalapi/shared/signals"
	"github.com/evalobs/evalapi/shared/store"
)

// Local is the signals worker of `make run`: runs in goroutines of the process, fired by
// the in-process scheduler at the times package schedule computes, findings notified to
// webhooks and logged (the stand-in of the EventBridge bus).
type Local struct {
	Scheduler *inproc.Scheduler
	Worker    *signals.Worker
	wg        sync.WaitGroup
}

// NewLocal fills d's signals ports (start a run in a goroutine, wake the scheduler when a
// configuration changes) and returns the local worker; Run it, then Wait.
func NewLocal(d *app.Deps, model signals.Model, opts inproc.Options) *Local {
	l := &Local{}
	r := Runner(*d, model, Publisher(*d, notify.LogPublisher{Logger: d.Log}))
	l.Worker = &signals.Worker{Runner: r, Log: d.Log}
	if opts.Logger == nil {
		opts.Logger = d.Log
	}
	l.Scheduler = inproc.New(Source(d.Table), func(ctx context.Context, f schedule.Fire) {
		b, err := json.Marshal(f)
		if err == nil {
			l.start(ctx, b)
		}
	}, opts)
	d.Signals.StartWorker = func(ctx context.Context, input []byte) error {
		l.start(ctx, input)
		return nil
	}
	d.Signals.Schedules = waker{l.Scheduler}
	return l
}

func (l *Local) start(ctx context.Context, input []byte) {
	l.wg.Add(1)
	background(ctx, func(ctx context.Context) {
		defer l.wg.Done()
		if err := l.Worker.Handle(ctx, input); err != nil {
			l.Worker.Log.ErrorContext(ctx, "signals: a local run failed", "error", err.Error())
		}
	})
}

// Run runs the scheduler until ctx ends.
func (l *Local) Run(ctx context.Context) error { return l.Scheduler.Run(ctx) }

// Wait waits for the runs under way.
func (l *Local) Wait() { l.wg.Wait() }

// waker is the local Schedules port: the scheduler rereads the table now.
type waker struct{ s *inproc.Scheduler }

func (w waker) Sync(context.Context, string, schedule.CloudSchedule, bool) error {
	w.s.Wake()
	return nil
}

// Source lists the configurations with scheduled runs, from the table's scheduled entries
// (the same list the cloud's reconcile reads).
func Source(t store.Table) inproc.Source {
	return inproc.SourceFunc(func(ctx context.Context) ([]inproc.Entry, error) {
		entries, err := store.ListSignalsScheduled(ctx, t)
		if err != nil {
			return nil, err
		}
		var out []inproc.Entry
		for _, e := range entries {
			cfg, err := store.GetSignalsConfig(ctx, t, e.OrgID, e.ProjectID, e.RunID)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			sch, on, err := signals.ScheduleOf(cfg)
			if err != nil || !on {
				continue // a stored configuration was validated; one that no longer parses is skipped
			}
			out = append(out, inproc.Entry{Target: signals.TargetOf(cfg), Schedule: sch})
		}
		return out, nil
	})
}
