// Package provider calls chat-completions models on the integrations users configure: the
// model-vendor protocol (POST {base}/chat/completions with a bearer token, also the custom
// integrations' protocol) and the cloud-host protocol (deployment-scoped
// POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-version=..., api-key
// header). It authenticates with an API key in a chosen header, a bearer token, OAuth2
// client credentials (token cached until it expires) or nothing, asks for structured output
// when a JSON schema is given, returns the token usage, and retries within one call:
// 429, 5xx and timeouts with exponential backoff and full jitter, honouring Retry-After,
// within a bounded number of attempts and a total deadline.
//
// Failures are data: every error is an *Error whose Class is one of the error types that
// records carry (rate_limit_error, llm_api_error, credentials_error, data_validation_error,
// configuration_error). No error, log line or String form carries a credential or what the
// provider answered: the body of a failed answer is never quoted (a provider may echo the
// key it refused).
//
// Every connection goes through shared/egress: endpoints and token URLs must be public https
// URLs (loopback only for a test stub, with AllowLoopback), and the dialer checks the address
// actually connected to, so a name rebound to a private address after the integration was
// written is refused too.
package provider

import (
	"github.com/evalobs/evalapi/shared/secrets"
)

// Protocol is the wire protocol of a target.
type Protocol string

const (
	// ProtocolChat is the common chat-completions API: POST {BaseURL}/chat/completions.
	// The model-vendor and custom integrations speak it.
	ProtocolChat Protocol = "chat"
	// ProtocolCloudHost is the deployment-scoped API of the cloud-host integration:
	// POST {BaseURL}/openai/deployments/{Deployment}/chat/completions?api-version={APIVersion}.
	ProtocolCloudHost Protocol = "cloud-host"
)

// DefaultVendorBaseURL is the model-vendor integration's API base (it has no endpoint of
// its own).
const DefaultVendorBaseURL = "https://api.openai.com/v1"

// AuthType says how a request proves who sends it.
type AuthType string

const (
	AuthNone   AuthType = "none"    // nothing (a self-hosted server on a private network path)
	AuthBearer AuthType = "bearer"  // Authorization: Bearer <Secret>
	AuthAPIKey AuthType = "api_key" // <Header>: <Secret>
	// AuthOAuth2 fetches a token with the client-credentials grant at TokenURL (Secret holds
	// the client credentials, see ClientCredentials) and sends it as a bearer token.
	AuthOAuth2 AuthType = "oauth2"
)

// Auth is the authentication of a target.
type Auth struct {
	Type     AuthType
	Header   string        // AuthAPIKey: the header name ("api-key" for cloud-host)
	Secret   secrets.Value // the token, API key, or client credentials
	TokenURL string        // AuthOAuth2
	Scope    string        // AuthOAuth2, optional
}

// Target is where and how to call one model.
type Target struct {
	Protocol   Protocol
	BaseURL    string
	Deployment string // ProtocolCloudHost
	APIVersion string // ProtocolCloudHost
	Auth       Auth
	// Headers are sent with every request (the integration's default or custom headers; they
	// may hold credentials and are treated as secrets).
	Headers map[string]secrets.Value
	// HeaderMapping maps a field of Request.Fields to the header that carries it (the
	// cloud-host and custom integrations' custom_header_mapping).
	HeaderMapping map[string]string
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"` // system, user, assistant
	Content string `json:"content"`
}

// Request is one chat completion.
type Request struct {
	Model       string // sent as "model" (cloud-host routes by Deployment and ignores it)
	Messages    []Message
	Temperature *float64
	MaxTokens   int // 0: the provider's default
	// ResponseSchema, when set, asks for structured output:
	// response_format {type: json_schema, json_schema: {name: SchemaName, schema, strict: false}}.
	ResponseSchema map[string]any
	SchemaName     string // default "judgment"
	// Fields are values the HeaderMapping may send as headers (user_id, project_id, ...).
	Fields map[string]string
}

// Usage is the token count of one answer.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}

// Add sums usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens}
}

// Response is the first choice of an answer.
type Response struct {
	Content      string
	FinishReason string
	Model        string // the model the provider says answered
	Usage        Usage
	Attempts     int // HTTP attempts the call took (1 without retry)
}
