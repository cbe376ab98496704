package signals

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/store"
)

// Triggers of a signals run.
const (
	TriggerOnDemand  = "ON_DEMAND"
	TriggerScheduled = "SCHEDULED"
)

// Defaults of the Runner's zero fields.
const (
	DefaultTimeout  = 10 * time.Minute // one run's time (the worker Lambda has 15 minutes)
	DefaultLeaseFor = 15 * time.Minute // a crashed run blocks its configuration this long at most
)

// Runner runs signals analyses: the worker of both hosts. Table and Model are required.
type Runner struct {
	Table    store.Table
	Payloads payload.Store    // offloaded trace content; nil: none
	Model    Model            // the provider client, adapted
	Notify   notify.Publisher // nil: no notifications
	Now      func() time.Time // nil: time.Now
	Log      *slog.Logger     // nil: discard

	MaxScan     int           // 0: DefaultMaxScan
	SampleSize  int           // 0: DefaultSampleSize
	FirstWindow time.Duration // 0: DefaultFirstWindow
	Timeout     time.Duration // 0: DefaultTimeout
	LeaseFor    time.Duration // 0: DefaultLeaseFor
}

// Job names an on-demand run the API queued; the worker runs it (RunJob).
type Job struct {
	OrgID        string `json:"org_id"`
	ProjectID    string `json:"project_id"`
	RunID        string `json:"run_id"`
	SignalsRunID string `json:"signals_run_id"`
}

func (r *Runner) now() time.Time {
	if r.Now == nil {
		return time.Now().UTC().Truncate(time.Microsecond)
	}
	return r.Now().UTC().Truncate(time.Microsecond)
}

func (r *Runner) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}

func orDur(v, d time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return d
}

func orN(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// newID is a UUID4, as every id the service issues; runs and findings are ordered by their
// keys, which carry their creation time (store/signals_keys.go).
func newID() string { return uuid.NewString() }

// Queue creates an on-demand run of cfg, queued, holding the configuration's lease: a run
// already in progress is store.ErrSignalsBusy. userID is whose integrations the run uses.
func (r *Runner) Queue(ctx context.Context, cfg store.SignalsConfig, userID string) (store.SignalsRun, error) {
	now := r.now()
	run := store.SignalsRun{ID: newID(), OrgID: cfg.OrgID, ProjectID: cfg.ProjectID, RunID: cfg.RunID, ConfigurationID: cfg.ID,
		Trigger: TriggerOnDemand, RequestedBy: userID, State: store.SignalsQueued, Model: cfg.Model, CreatedAt: now}
	if err := store.StartSignalsRun(ctx, r.Table, run, "", now, now.Add(orDur(r.LeaseFor, DefaultLeaseFor))); err != nil {
		return store.SignalsRun{}, err
	}
	return run, nil
}

// Abandon ends a queued run that could not be handed to the worker: failed, lease released.
func (r *Runner) Abandon(ctx context.Context, run store.SignalsRun, cause error) error {
	now := r.now()
	run.State, run.FinishedAt = store.SignalsFailed, &now
	run.ErrorType, run.ErrorMessage = ErrTypeInternal, "the run could not be started"
	r.log().ErrorContext(ctx, "signals: starting a run failed", "signals_run_id", run.ID, "error", cause.Error())
	return store.FinishSignalsRun(ctx, r.Table, run, store.SignalsQueued, nil)
}

// RunJob runs a queued on-demand run. A run no longer queued (a redelivered start) is not
// run again; its notifications are delivered if they were not.
func (r *Runner) RunJob(ctx context.Context, j Job) error {
	run, err := store.GetSignalsRun(ctx, r.Table, j.OrgID, j.RunID, j.SignalsRunID)
	if err != nil {
		return fmt.Errorf("signals: job %s: %w", j.SignalsRunID, err)
	}
	now := r.now()
	err = store.ClaimSignalsRun(ctx, r.Table, run, now)
	if errors.Is(err, store.ErrConditionFailed) {
		return r.redelivered(ctx, run)
	}
	if err != nil {
		return err
	}
	run.State, run.StartedAt = store.SignalsRunning, &now
	return r.execute(ctx, run)
}

// RunFire runs one fire of a configuration's schedule. A fire of a configuration that no
// longer exists or no longer schedules starts nothing; a fire whose (configuration,
// scheduled time) already started a run starts nothing (at-least-once invocations); a fire
// while the previous run is still running is recorded as a skipped run.
func (r *Runner) RunFire(ctx context.Context, f schedule.Fire) error {
	cfg, err := store.GetSignalsConfig(ctx, r.Table, f.OrgID, f.ProjectID, f.RunID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (cfg.ID != f.ConfigurationID || !cfg.ScheduledRunsEnabled || cfg.Schedule == nil)) {
		r.log().InfoContext(ctx, "signals: a fire of a configuration without scheduled runs; nothing to do", "configuration_id", f.ConfigurationID)
		return nil
	}
	if err != nil {
		return err
	}
	now := r.now()
	st := f.ScheduledTime.UTC()
	run := store.SignalsRun{ID: newID(), OrgID: cfg.OrgID, ProjectID: cfg.ProjectID, RunID: cfg.RunID, ConfigurationID: cfg.ID,
		Trigger: TriggerScheduled, ScheduledTime: &st, State: store.SignalsRunning, Model: cfg.Model, CreatedAt: now, StartedAt: &now}
	err = store.StartSignalsRun(ctx, r.Table, run, f.Key(), now, now.Add(orDur(r.LeaseFor, DefaultLeaseFor)))
	if errors.Is(err, store.ErrSignalsBusy) {
		run.State, run.StartedAt, run.FinishedAt = store.SignalsSkipped, nil, &now
		run.ErrorType, run.ErrorMessage = "previous_run_in_progress", "the previous signals run of this configuration was still running"
		err = store.StartSignalsRun(ctx, r.Table, run, f.Key(), now, now)
	}
	if errors.Is(err, store.ErrDuplicateFire) {
		prev, err := store.SignalsRunOfFire(ctx, r.Table, f.OrgID, f.RunID, f.Key())
		if err != nil {
			return err
		}
		return r.redelivered(ctx, prev)
	}
	if err != nil || run.State == store.SignalsSkipped {
		return err
	}
	return r.execute(ctx, run)
}

// redelivered finishes what a run that already ran may have left: its notifications.
func (r *Runner) redelivered(ctx context.Context, run store.SignalsRun) error {
	if run.State != store.SignalsSucceeded || run.Notified {
		return nil
	}
	cfg, err := store.GetSignalsConfig(ctx, r.Table, run.OrgID, run.ProjectID, run.RunID)
	if err != nil {
		return err
	}
	findings, err := store.SignalsFindings(ctx, r.Table, run.RunID, run.FindingIDs)
	if err != nil {
		return err
	}
	r.notify(ctx, cfg, run, findings)
	return nil
}

// execute analyses the running run's window and stores the outcome, then notifies.
func (r *Runner) execute(ctx context.Context, run store.SignalsRun) error {
	actx, cancel := context.WithTimeout(ctx, orDur(r.Timeout, DefaultTimeout))
	defer cancel()
	cfg, err := store.GetSignalsConfig(actx, r.Table, run.OrgID, run.ProjectID, run.RunID)
	var findings []store.SignalsFinding
	if errors.Is(err, store.ErrNotFound) {
		err = &runError{kind: "configuration_error", msg: "the signals configuration was deleted"}
	}
	if err == nil {
		findings, err = r.analyse(actx, cfg, &run)
	}
	now := r.now()
	run.FinishedAt = &now
	run.State = store.SignalsSucceeded
	if err != nil {
		run.State, findings, run.FindingIDs = store.SignalsFailed, nil, nil
		run.NewCount, run.RecurringCount, run.Resolved = 0, 0, nil
		run.ErrorType, run.ErrorMessage = errorType(actx, err)
		r.log().WarnContext(ctx, "signals: run failed", "signals_run_id", run.ID, "error_type", run.ErrorType, "error", err.Error())
	}
	if err := store.FinishSignalsRun(context.WithoutCancel(ctx), r.Table, run, store.SignalsRunning, findings); err != nil {
		return err
	}
	if run.State == store.SignalsSucceeded {
		r.notify(ctx, cfg, run, findings)
	}
	return nil
}

// analyse reads the window, asks the model and returns the run's findings; it fills the
// run's window, counts and tokens.
func (r *Runner) analyse(ctx context.Context, cfg store.SignalsConfig, run *store.SignalsRun) ([]store.SignalsFinding, error) {
	to := *run.StartedAt
	from, err := store.LastSignalsWindowEnd(ctx, r.Table, *run)
	if err != nil {
		return nil, err
	}
	if from.IsZero() || from.After(to) {
		from = to.Add(-orDur(r.FirstWindow, DefaultFirstWindow))
	}
	w, err := scanWindow(ctx, r.Table, run.RunID, from, to, orN(r.MaxScan, DefaultMaxScan), orN(r.SampleSize, DefaultSampleSize), run.ID)
	if err != nil {
		return nil, err
	}
	run.WindowStart, run.WindowEnd, run.TracesInWindow, run.Truncated = &w.from, &w.to, w.scanned, w.truncated
	if len(w.sample) == 0 {
		return nil, nil // nothing new to look at: no model call, no finding, nothing resolved
	}
	traces, err := loadSample(ctx, r.Table, r.Payloads, run.RunID, w.sample)
	if err != nil {
		return nil, err
	}
	run.TracesRead = int64(len(traces))
	var previous []store.SignalsFinding
	prev, err := store.PreviousSignalsRun(ctx, r.Table, *run)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		run.PreviousRunID = prev.ID
		if previous, err = store.SignalsFindings(ctx, r.Table, run.RunID, prev.FindingIDs); err != nil {
			return nil, err
		}
	}
	userID := cfg.UpdatedBy
	if run.RequestedBy != "" {
		userID = run.RequestedBy
	}
	ans, err := r.Model.Complete(ctx, Completion{OrgID: cfg.OrgID, UserID: userID, ModelName: cfg.Model,
		Messages: buildMessages(cfg, w, traces, previous), ResponseSchema: responseSchema})
	run.InputTokens += ans.Usage.InputTokens
	run.OutputTokens += ans.Usage.OutputTokens
	if err != nil {
		return nil, err
	}
	proposals, err := parseAnswer(ans.Text, traces)
	if err != nil {
		return nil, err
	}
	proposals = mergeSame(proposals)
	d := diff(proposals, previous)
	now := r.now()
	out := make([]store.SignalsFinding, len(proposals))
	for i, p := range proposals {
		f := store.SignalsFinding{ID: newID(), OrgID: cfg.OrgID, ProjectID: cfg.ProjectID, RunID: cfg.RunID, ConfigurationID: cfg.ID,
			SignalsRunID: run.ID, Kind: p.Kind, Title: p.Title, Description: p.Description, Severity: p.Severity,
			TraceIDs: p.TraceIDs, SuggestedAction: p.SuggestedAction, Change: ChangeNew, FirstSeenRunID: run.ID, CreatedAt: now}
		if old, ok := d.previous[i]; ok {
			// Recurring: the same problem, first seen earlier; an acknowledgement carries over.
			f.Change, f.FirstSeenRunID = ChangeRecurring, old.FirstSeenRunID
			f.Acknowledged, f.AcknowledgedAt, f.AcknowledgedBy = old.Acknowledged, old.AcknowledgedAt, old.AcknowledgedBy
			run.RecurringCount++
		} else {
			run.NewCount++
		}
		out[i] = f
		run.FindingIDs = append(run.FindingIDs, f.ID)
	}
	run.Resolved = d.resolved
	return out, nil
}
