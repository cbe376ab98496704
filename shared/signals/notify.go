package signals

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// notify publishes the run's findings that call for it: new (a recurring finding was told
// when it was new), not acknowledged, and of a severity in the configuration's
// notification_severities. A failed delivery is logged and not retried beyond the
// publisher's own retries; the run is then marked notified, so that a redelivered
// invocation does not send again what was sent.
func (r *Runner) notify(ctx context.Context, cfg store.SignalsConfig, run store.SignalsRun, findings []store.SignalsFinding) {
	if r.Notify != nil {
		for _, f := range findings {
			if !ShouldNotify(cfg, f) {
				continue
			}
			e := notify.FindingEvent(notify.Finding{ID: f.ID, SignalsRunID: f.SignalsRunID, ConfigurationID: f.ConfigurationID,
				ProjectID: f.ProjectID, RunID: f.RunID, Severity: f.Severity, Title: f.Title, Description: f.Description,
				TraceIDs: f.TraceIDs, SuggestedAction: f.SuggestedAction, CreatedAt: f.CreatedAt})
			if err := r.Notify.Publish(ctx, e); err != nil {
				r.log().WarnContext(ctx, "signals: a notification was not delivered", "finding_id", f.ID, "error", err.Error())
			}
		}
	}
	if err := store.MarkSignalsNotified(context.WithoutCancel(ctx), r.Table, run); err != nil {
		r.log().WarnContext(ctx, "signals: marking the run notified failed", "signals_run_id", run.ID, "error", err.Error())
	}
}

// ShouldNotify says whether a finding is notified under cfg.
func ShouldNotify(cfg store.SignalsConfig, f store.SignalsFinding) bool {
	return f.Change == ChangeNew && !f.Acknowledged && slices.Contains(cfg.NotificationSeverities, f.Severity)
}

// WebhookDestination finds where an event's webhook goes: the webhook URL of its
// configuration and the HMAC key, read from the secrets store. A configuration without a
// webhook (or replaced since: another id) has none.
func WebhookDestination(t store.Table, sec secrets.Store) notify.DestinationFunc {
	return func(ctx context.Context, e notify.Event) (notify.Destination, bool, error) {
		it, err := t.Get(ctx, store.SignalsKey(e.Data.ProjectID, e.Data.RunID), true)
		if errors.Is(err, store.ErrNotFound) {
			return notify.Destination{}, false, nil
		}
		if err != nil {
			return notify.Destination{}, false, err
		}
		var cfg store.SignalsConfig
		if err := store.Unmarshal(it, &cfg); err != nil {
			return notify.Destination{}, false, err
		}
		if cfg.ID != e.Data.ConfigurationID || cfg.WebhookURL == "" || cfg.WebhookSecretRef == "" {
			return notify.Destination{}, false, nil
		}
		raw, err := sec.Get(ctx, cfg.WebhookSecretRef)
		if err != nil {
			return notify.Destination{}, false, fmt.Errorf("reading the webhook key: %w", err)
		}
		key, err := notify.ParseSecret(string(raw))
		if err != nil {
			return notify.Destination{}, false, err
		}
		return notify.Destination{URL: cfg.WebhookURL, Secret: key}, true, nil
	}
}
