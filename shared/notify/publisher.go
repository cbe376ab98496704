package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// Publisher is the notification port: it delivers one event, or says why not.
type Publisher interface {
	Publish(ctx context.Context, e Event) error
}

// DestinationFunc finds where an event goes: the webhook of the event's configuration and
// its key (read from Secrets Manager). false: the configuration has no webhook.
type DestinationFunc func(ctx context.Context, e Event) (Destination, bool, error)

// WebhookPublisher publishes each event to its configuration's webhook.
type WebhookPublisher struct {
	Webhook     *Webhook
	Destination DestinationFunc
}

// Publish sends e to its configuration's webhook, if it has one.
func (p WebhookPublisher) Publish(ctx context.Context, e Event) error {
	d, ok, err := p.Destination(ctx, e)
	if err != nil {
		return fmt.Errorf("notify: finding the webhook of event %s: %w", e.ID, err)
	}
	if !ok {
		return nil
	}
	if err := p.Webhook.Send(ctx, d, e); err != nil {
		return fmt.Errorf("notify: event %s to %s: %w", e.ID, d, err)
	}
	return nil
}

// LogPublisher logs each event (the local host's stand-in for the EventBridge bus): its
// ids, severity and title, not its description.
type LogPublisher struct {
	Logger *slog.Logger
}

// Publish logs e.
func (p LogPublisher) Publish(ctx context.Context, e Event) error {
	p.Logger.InfoContext(ctx, "notification", "event_id", e.ID, "type", e.Type, "finding_id", e.Data.ID,
		"configuration_id", e.Data.ConfigurationID, "signals_run_id", e.Data.SignalsRunID, "project_id", e.Data.ProjectID,
		"severity", e.Data.Severity, "title", e.Data.Title, "traces", len(e.Data.TraceIDs))
	return nil
}

// Publishers publishes to each in turn, every one tried whatever the others did; the error
// joins theirs.
type Publishers []Publisher

// Publish publishes e to each publisher.
func (ps Publishers) Publish(ctx context.Context, e Event) error {
	var errs []error
	for _, p := range ps {
		if err := p.Publish(ctx, e); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
