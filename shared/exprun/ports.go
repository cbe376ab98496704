// Package exprun runs experiments: a prompt rendered over every row of a dataset version,
// sent to the caller's model, one trace per row written into the experiment, then scored.
//
// A start (Start) fixes the job's plan and fans it out as one queue message per chunk of
// rows; a worker (HandleChunk) generates a chunk. Every row's outcome is a marker written in
// one transaction with the job's counters, conditioned on the marker's previous state, so
// at-least-once delivery never counts or generates a row twice. The package depends on the
// store and on the small ports below, declared here where they are used; the hosts
// (shared/app/workers, shared/app/groups, shared/app/local) plug in the provider client,
// the evaluator, the trace writer and the queue.
package exprun

import (
	"context"
	"errors"
	"time"

	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/store"
)

// Model answers one completion with the caller's integration (the provider client).
type Model interface {
	Complete(ctx context.Context, c Completion) (Answer, error)
}

// Completion is one request to the model: whose integration, which model, the rendered
// messages and the run settings (prompt_run_settings as stored).
type Completion struct {
	OrgID     string
	UserID    string
	ModelName string
	Messages  []store.PromptMessage
	Settings  map[string]any
}

// Answer is the model's answer with its usage.
type Answer struct {
	Text         string
	InputTokens  int64
	OutputTokens int64
	FinishReason string
	Provider     string
}

// Error types of a refused completion, as the provider client reports them.
const (
	ErrRateLimit     = "rate_limit_error"
	ErrLLMAPI        = "llm_api_error"
	ErrCredentials   = "credentials_error"
	ErrConfiguration = "configuration_error"
	ErrTimeout       = "timeout_error"
	ErrBudget        = "token_budget_exceeded"
)

// TypedError is an error that names its type (the provider client's errors do).
type TypedError interface {
	error
	ErrorType() string
}

// ModelError is a TypedError for fakes and adapters.
type ModelError struct {
	Type    string
	Message string
	Status  int // the provider's HTTP status when there was one
}

func (e *ModelError) Error() string     { return e.Type + ": " + e.Message }
func (e *ModelError) ErrorType() string { return e.Type }

// errorType is err's type; llm_api_error when it names none, timeout_error for a deadline.
func errorType(err error) string {
	var te TypedError
	if errors.As(err, &te) && te.ErrorType() != "" {
		return te.ErrorType()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return ErrLLMAPI
}

// Scoring asks the evaluator to score traces of a run with scorers, unsampled. It must be
// idempotent per (trace, scorer): a redelivered chunk asks again for the same traces.
type Scoring interface {
	Score(ctx context.Context, req ScoreRequest) error
}

// ScoreRequest names traces of a run and the scorers to score each with.
type ScoreRequest struct {
	OrgID     string
	ProjectID string
	RunID     string
	TraceIDs  []string
	ScorerIDs []string
}

// Prices gives the price of a model per million input and output tokens for the
// integration of the job's user that serves it; ok false when the integration has no price for it (then no cost is written).
type Prices interface {
	Price(ctx context.Context, orgID, userID, model string) (inPerM, outPerM float64, ok bool)
}

// Traces writes and removes traces of a run with their counts (shared/traces: Ingest).
// Write is idempotent by trace id; Delete of an absent trace is done.
type Traces interface {
	Write(ctx context.Context, run store.Run, traces []store.Trace) error
	Delete(ctx context.Context, run store.Run, traceID string) error
}

// Queue sends chunk messages to the workers (SQS in the cloud, in-process locally).
type Queue interface {
	Send(ctx context.Context, bodies [][]byte) error
}

// SenderQueue is a Queue over a queue.Sender (sqsqueue's, in the cloud): chunks are sent
// without delay.
func SenderQueue(s queue.Sender) Queue { return senderQueue{s} }

type senderQueue struct{ s queue.Sender }

func (q senderQueue) Send(ctx context.Context, bodies [][]byte) error {
	return q.s.Send(ctx, bodies, 0)
}

// Clock is the time source (time.Now unless a test moves it).
type Clock func() time.Time
