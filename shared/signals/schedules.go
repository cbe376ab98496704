package signals

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/store"
)

// ScheduleOf is the schedule a configuration runs on, and false when it has no scheduled
// runs (not enabled, no schedule, or an experiment's).
func ScheduleOf(cfg store.SignalsConfig) (schedule.Schedule, bool, error) {
	if !cfg.ScheduledRunsEnabled || cfg.Schedule == nil || cfg.RunKind == store.RunExperiment {
		return schedule.Schedule{}, false, nil
	}
	spec := schedule.Spec{Cron: cfg.Schedule.Cron, Timezone: cfg.Schedule.Timezone}
	if cfg.StartDate != nil {
		spec.StartDate = *cfg.StartDate
	}
	if cfg.EndDate != nil {
		spec.EndDate = *cfg.EndDate
	}
	s, err := schedule.New(spec)
	if err != nil {
		return schedule.Schedule{}, false, fmt.Errorf("signals: schedule of configuration %s: %w", cfg.ID, err)
	}
	return s, true, nil
}

// TargetOf is what a configuration's fires name.
func TargetOf(cfg store.SignalsConfig) schedule.Target {
	return schedule.Target{ConfigurationID: cfg.ID, OrgID: cfg.OrgID, ProjectID: cfg.ProjectID, RunID: cfg.RunID}
}

// SyncSchedule makes the schedule named by the configuration's id what the configuration
// says at now: written (an upsert under the same name, so a replace never leaves two) when
// it has scheduled runs with fires left, deleted otherwise (and after a delete: exists
// false).
func SyncSchedule(ctx context.Context, s Schedules, cfg store.SignalsConfig, exists bool, now time.Time) error {
	name, err := schedule.ScheduleName(cfg.ID)
	if err != nil {
		return err
	}
	var cs schedule.CloudSchedule
	present := false
	if exists {
		sch, on, err := ScheduleOf(cfg)
		if err != nil {
			return err
		}
		if on {
			if cs, present, err = schedule.Cloud(TargetOf(cfg), sch, now); err != nil {
				return err
			}
		}
	}
	return s.Sync(ctx, name, cs, present)
}

// Lister lists the schedules that exist (ebscheduler.Schedules.Names).
type Lister interface {
	Names(ctx context.Context) ([]string, error)
}

// Reconcile repairs every schedule from the table: each listed configuration's schedule is
// written again (idempotent), and each schedule whose configuration is no longer listed is
// deleted. It returns how many schedules it wrote and deleted.
func Reconcile(ctx context.Context, t store.Table, s Schedules, l Lister, now time.Time) (written, deleted int, err error) {
	entries, err := store.ListSignalsScheduled(ctx, t)
	if err != nil {
		return 0, 0, err
	}
	keep := map[string]bool{}
	var errs []error
	for _, e := range entries {
		cfg, err := store.GetSignalsConfig(ctx, t, e.OrgID, e.ProjectID, e.RunID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		name, _ := schedule.ScheduleName(cfg.ID)
		keep[name] = true
		if err := SyncSchedule(ctx, s, cfg, true, now); err != nil {
			errs = append(errs, err)
			continue
		}
		written++
	}
	names, err := l.Names(ctx)
	if err != nil {
		return written, 0, errors.Join(append(errs, err)...)
	}
	for _, name := range names {
		if keep[name] || !strings.HasPrefix(name, schedule.NamePrefix) {
			continue
		}
		if err := s.Sync(ctx, name, schedule.CloudSchedule{}, false); err != nil {
			errs = append(errs, err)
			continue
		}
		deleted++
	}
	return written, deleted, errors.Join(errs...)
}
