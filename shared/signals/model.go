package signals

import (
	"context"
	"encoding/json"
	"errors"
)

// Model is what a signals run needs of the provider client: one completion through the
// caller's provider integration (the integration that serves ModelName for OrgID and
// UserID, as the judges resolve it). The host adapts shared/provider to it; tests use a fake.
type Model interface {
	Complete(ctx context.Context, req Completion) (Answer, error)
}

// Completion is one request to the configured model.
type Completion struct {
	OrgID     string
	UserID    string // whose integrations are visible (the configuration's last writer, or the on-demand caller)
	ModelName string
	Messages  []Message
	// ResponseSchema is the JSON schema the answer's text must follow (structured output).
	ResponseSchema json.RawMessage
}

// Message is one chat message; Role is "system" or "user".
type Message struct {
	Role    string
	Content string
}

// Answer is the model's reply and what it cost.
type Answer struct {
	Text  string
	Usage Usage
}

// Usage counts the tokens of one completion.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}

// TypedError is an error that names its type, as the provider client's errors do:
// rate_limit_error, llm_api_error, credentials_error, configuration_error, ... A run that
// fails on one is stored failed with that type.
type TypedError interface {
	error
	ErrorType() string
}

// Error types a run fails with besides the provider client's.
const (
	ErrTypeInvalidResponse = "invalid_model_response" // the answer did not follow the schema
	ErrTypeTimeout         = "timeout"                // the run's time ran out
	ErrTypeInternal        = "internal_error"         // anything else (logged, not shown)
)

// errorType and errorMessage say how a failed run reads: a typed error's type and message
// (the provider client's messages carry no secret), or a fixed one.
func errorType(ctx context.Context, err error) (string, string) {
	var te TypedError
	if errors.As(err, &te) {
		return te.ErrorType(), truncate(te.Error(), 500)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ErrTypeTimeout, "the signals run did not finish in its time"
	}
	return ErrTypeInternal, "internal error"
}

// runError is an error of the run itself with a type.
type runError struct {
	kind, msg string
}

func (e *runError) Error() string     { return e.msg }
func (e *runError) ErrorType() string { return e.kind }
