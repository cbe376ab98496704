// Package notify delivers signals findings to where a configuration wants them: through a
// Publisher port, implemented by a signed webhook (both hosts), a logger (`make run`) and,
// later, the default EventBridge bus (the cloud).
//
// # Webhooks
//
// A webhook is an HTTP POST of the Event as JSON (Content-Type: application/json), signed
// the Standard Webhooks way (https://www.standardwebhooks.com), so receivers can use that
// project's libraries or check it by hand:
//
//	webhook-id         the event id; the same on every retry of one event: dedupe on it
//	webhook-timestamp  when this attempt was signed, in Unix seconds
//	webhook-signature  "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body))
//
// The key is the configuration's webhook secret, shown as "whsec_" + base64(key) (NewSecret).
// To verify: take the raw body as received (before any JSON parsing), compute the HMAC
// above with the decoded key, compare it in constant time with each space-separated "v1,"
// entry of webhook-signature, and refuse a timestamp more than five minutes from your clock
// (a replay). Signing the id and the timestamp with the body means neither can be swapped.
//
// Delivery is retried, with exponential backoff and jitter, after a timeout, a transport
// error, 408, 429 or a 5xx answer, honouring Retry-After; any other answer (2xx success,
// 3xx, 4xx) ends it. The receiver should answer 2xx quickly and work afterwards.
package notify

import (
	"time"
)

// EventTypeFinding is the type of an Event that carries a finding.
const EventTypeFinding = "signals.finding"

// Event is what a publisher delivers: an envelope with a stable id and a type, and the
// finding. It holds ids and the finding's words only, never a secret, key or credential.
type Event struct {
	ID        string    `json:"id"`   // stable for one finding: receivers dedupe on it
	Type      string    `json:"type"` // EventTypeFinding
	CreatedAt time.Time `json:"created_at"`
	Data      Finding   `json:"data"`
}

// Finding is one finding of a signals run.
type Finding struct {
	ID              string    `json:"id"`               // the finding
	SignalsRunID    string    `json:"signals_run_id"`   // the signals run that found it
	ConfigurationID string    `json:"configuration_id"` // the signals configuration
	ProjectID       string    `json:"project_id"`
	RunID           string    `json:"run_id"`   // the log stream or experiment analysed
	Severity        string    `json:"severity"` // LOW, MEDIUM, HIGH or CRITICAL
	Title           string    `json:"title"`
	Description     string    `json:"description"`
	TraceIDs        []string  `json:"trace_ids"` // the traces that show it
	SuggestedAction string    `json:"suggested_action"`
	CreatedAt       time.Time `json:"created_at"`
}

// FindingEvent wraps a finding in its event. The event id is derived from the finding id,
// so that publishing a finding twice (a redelivered run) gives receivers the same id.
func FindingEvent(f Finding) Event {
	if f.TraceIDs == nil {
		f.TraceIDs = []string{}
	}
	return Event{ID: "finding_" + f.ID, Type: EventTypeFinding, CreatedAt: f.CreatedAt.UTC(), Data: f}
}
