package evaluate

import (
	"context"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/store"
)

// Judge turns a scorer and a record's content into a verdict: the LLM judge of shared/judge
// (provider integration, credentials, prompts, num_judges, aggregation) behind the
// evaluator's narrow view of it. A Judge never returns a Go error: every failure is a
// verdict with an ErrorType, so that it becomes data on the record.
type Judge interface {
	Judge(ctx context.Context, t Task) Verdict
}

// Record kinds a Task names.
const (
	KindTrace = "trace"
	KindSpan  = "span"
)

// Task is one judgment: which scorer version on which record, and the record's content
// (payload pointers already resolved). It carries no credential: the judge resolves the
// scorer's model to an integration of OrgID itself.
type Task struct {
	OrgID string
	// UserID is whose provider integrations the judge uses: the user who last changed the
	// run's metric settings, else the run's creator (store.Run.JudgeUser).
	UserID        string
	ProjectID     string
	LogStreamID   string // the run: a log stream, or an experiment
	RecordKind    string // KindTrace or KindSpan
	RecordID      string
	ScorerID      string
	ScorerVersion int64 // the pinned version, else the scorer's latest when dispatched
	// Scorer is the run's metric setting of this scorer (name, type, model, output type,
	// roll-up...); the judge reads the version's definition by ScorerID and ScorerVersion.
	Scorer  store.ScorerConfig
	Content Content
}

// Content is what the judge sees of the record.
type Content struct {
	Input     store.Content
	Output    store.Content
	Documents store.Content // a retriever span's output (documents); nil for traces
	Tools     store.Content // an llm span's tool definitions
	Metadata  map[string]string
}

// Error types of a verdict: the StandardError types traces already carry.
const (
	ErrRateLimit      = "rate_limit_error"
	ErrLLMAPI         = "llm_api_error"
	ErrCredentials    = "credentials_error"
	ErrDataValidation = "data_validation_error"
	ErrConfiguration  = "configuration_error"
)

// Verdict is a judge's answer: a Value, or an ErrorType with a message that holds no secret.
type Verdict struct {
	Value        Value
	Explanation  string
	ErrorType    string // "" when Value is set
	ErrorMessage string
	// Retryable asks for the message to come back later (429, 5xx, timeouts after the
	// judge's own bounded retries); RetryAfter is the provider's hint, if any.
	Retryable  bool
	RetryAfter time.Duration
	Usage      Usage
	CostUSD    *fixed.Value // nil when the model has no price
}

// Value is a judged value: exactly one of Bool, Number and Label.
type Value struct {
	Bool   *bool
	Number *fixed.Value
	Label  *string
}

// Usage is the tokens the judgment spent.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}
