package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/evalobs/evalapi/shared/egress"
)

// Policy bounds the retries of one call.
type Policy struct {
	MaxAttempts    int           // HTTP attempts at most; default 4
	BaseDelay      time.Duration // first backoff ceiling; default 500 ms
	MaxDelay       time.Duration // backoff ceiling; default 8 s
	AttemptTimeout time.Duration // one attempt, headers and body; default 30 s
	Deadline       time.Duration // the whole call, waits included; default 90 s
}

// DefaultPolicy is the policy of a zero Policy's fields.
var DefaultPolicy = Policy{MaxAttempts: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 8 * time.Second,
	AttemptTimeout: 30 * time.Second, Deadline: 90 * time.Second}

func (p Policy) withDefaults() Policy {
	d := DefaultPolicy
	if p.MaxAttempts > 0 {
		d.MaxAttempts = p.MaxAttempts
	}
	if p.BaseDelay > 0 {
		d.BaseDelay = p.BaseDelay
	}
	if p.MaxDelay > 0 {
		d.MaxDelay = p.MaxDelay
	}
	if p.AttemptTimeout > 0 {
		d.AttemptTimeout = p.AttemptTimeout
	}
	if p.Deadline > 0 {
		d.Deadline = p.Deadline
	}
	return d
}

// MaxAnswerBytes bounds the body of an answer read.
const MaxAnswerBytes = 4 << 20

// Client calls chat completions. The zero value is not usable; build it with New.
type Client struct {
	http          *http.Client
	allowLoopback bool
	policy        Policy
	tokens        *tokenCache
	now           func() time.Time
	sleep         func(ctx context.Context, d time.Duration) error
	jitter        func(n time.Duration) time.Duration
}

// Options configure New.
type Options struct {
	// HTTP is the client every request goes through; nil is one over an egress.Dialer with
	// AllowLoopback. A caller's own client should dial through egress.Dialer too.
	HTTP *http.Client
	// AllowLoopback accepts http:// and loopback endpoints and token URLs (a test stub, the
	// local host); everything else private stays refused.
	AllowLoopback bool
	Policy        Policy
	// Sleep waits between attempts; nil waits on a timer (tests record the waits instead).
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter draws the full-jitter wait in [0, n); nil is math/rand.
	Jitter func(n time.Duration) time.Duration
	Now    func() time.Time
}

// New returns a client.
func New(o Options) *Client {
	c := &Client{http: o.HTTP, allowLoopback: o.AllowLoopback, policy: o.Policy.withDefaults(),
		tokens: newTokenCache(), now: o.Now, sleep: o.Sleep, jitter: o.Jitter}
	if c.http == nil {
		c.http = (&egress.Dialer{AllowLoopback: o.AllowLoopback}).Client(c.policy.AttemptTimeout)
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.sleep == nil {
		c.sleep = sleepCtx
	}
	if c.jitter == nil {
		c.jitter = func(n time.Duration) time.Duration {
			if n <= 0 {
				return 0
			}
			return rand.N(n)
		}
	}
	return c
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// backoff is the wait before attempt n+1 (n ≥ 1): full jitter over an exponential ceiling,
// and never less than what the provider asked for.
func (c *Client) backoff(n int, retryAfter time.Duration) time.Duration {
	ceiling := c.policy.BaseDelay << min(n-1, 20)
	if ceiling > c.policy.MaxDelay || ceiling <= 0 {
		ceiling = c.policy.MaxDelay
	}
	return max(c.jitter(ceiling), retryAfter)
}

// Complete asks the target for one chat completion, retrying what may succeed later.
func (c *Client) Complete(ctx context.Context, t Target, r Request) (Response, error) {
	u, err := c.endpoint(t)
	if err != nil {
		return Response{}, err
	}
	body, err := encodeRequest(t, r)
	if err != nil {
		return Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.policy.Deadline)
	defer cancel()
	deadline, _ := ctx.Deadline()
	var last *Error
	refreshed := false
	for attempt := 1; ; attempt++ {
		resp, perr := c.attempt(ctx, u, t, r, body)
		if perr == nil {
			resp.Attempts = attempt
			return resp, nil
		}
		perr.Attempts = attempt
		last = perr
		// A cached OAuth2 token the provider refuses may have been revoked: fetch a new one,
		// once, without counting it as a retry of the provider.
		if perr.Class == ClassCredentials && perr.Status != 0 && !perr.tokenURL && t.Auth.Type == AuthOAuth2 && !refreshed {
			refreshed = true
			c.tokens.drop(t.Auth)
			attempt--
			continue
		}
		if !perr.Retryable || attempt >= c.policy.MaxAttempts || ctx.Err() != nil {
			return Response{}, last
		}
		wait := c.backoff(attempt, perr.RetryAfter)
		if c.now().Add(wait).After(deadline) {
			return Response{}, last // the wait would pass the deadline: give the work back now
		}
		if err := c.sleep(ctx, wait); err != nil {
			return Response{}, last
		}
	}
}

// endpoint checks the target and builds its URL.
func (c *Client) endpoint(t Target) (*url.URL, error) {
	base, err := egress.CheckEndpoint(t.BaseURL, c.allowLoopback)
	if err != nil {
		return nil, Errorf(ClassConfiguration, "the endpoint is not an allowed https URL")
	}
	switch t.Protocol {
	case ProtocolChat:
		return base.JoinPath("chat", "completions"), nil
	case ProtocolCloudHost:
		if t.Deployment == "" || t.APIVersion == "" {
			return nil, Errorf(ClassConfiguration, "a cloud-host call needs a deployment and an api-version")
		}
		u := base.JoinPath("openai", "deployments", t.Deployment, "chat", "completions")
		u.RawQuery = url.Values{"api-version": {t.APIVersion}}.Encode()
		return u, nil
	}
	return nil, Errorf(ClassConfiguration, "unknown provider protocol")
}

// attempt makes one HTTP request.
func (c *Client) attempt(ctx context.Context, u *url.URL, t Target, r Request, body []byte) (Response, *Error) {
	actx, cancel := context.WithTimeout(ctx, c.policy.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return Response{}, Errorf(ClassConfiguration, "the endpoint is not a valid URL")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, v := range t.Headers {
		req.Header.Set(k, v.RevealString())
	}
	for field, header := range t.HeaderMapping {
		if v, ok := r.Fields[field]; ok && header != "" {
			req.Header.Set(header, v)
		}
	}
	if perr := c.authenticate(actx, req, t); perr != nil {
		return Response{}, perr
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return Response{}, transportError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // keep the connection reusable
		return Response{}, statusError(resp.StatusCode, parseRetryAfter(resp.Header, c.now()))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBytes+1))
	if err != nil {
		return Response{}, transportError(err)
	}
	if len(b) > MaxAnswerBytes {
		return Response{}, Errorf(ClassDataValidation, "the provider's answer is larger than %d bytes", MaxAnswerBytes)
	}
	out, perr := decodeResponse(b)
	clear(b)
	return out, perr
}

// authenticate sets the request's credential.
func (c *Client) authenticate(ctx context.Context, req *http.Request, t Target) *Error {
	a := t.Auth
	switch a.Type {
	case AuthNone, "":
		return nil
	case AuthBearer:
		if a.Secret.IsZero() {
			return Errorf(ClassCredentials, "the integration has no token")
		}
		req.Header.Set("Authorization", "Bearer "+a.Secret.RevealString())
	case AuthAPIKey:
		if a.Secret.IsZero() || a.Header == "" {
			return Errorf(ClassCredentials, "the integration has no API key header and value")
		}
		req.Header.Set(a.Header, a.Secret.RevealString())
	case AuthOAuth2:
		tok, perr := c.tokens.get(ctx, c, a)
		if perr != nil {
			return perr
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	default:
		return Errorf(ClassConfiguration, "unsupported authentication type")
	}
	return nil
}

// wire shapes of the chat-completions API.
type wireRequest struct {
	Model          string          `json:"model,omitempty"`
	Messages       []Message       `json:"messages"`
	Temperature    *float64        `json:"temperature,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string         `json:"name"`
	Schema map[string]any `json:"schema"`
	Strict bool           `json:"strict"`
}

type wireResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message *struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

func encodeRequest(t Target, r Request) ([]byte, error) {
	if len(r.Messages) == 0 {
		return nil, Errorf(ClassConfiguration, "a chat completion needs at least one message")
	}
	w := wireRequest{Model: r.Model, Messages: r.Messages, Temperature: r.Temperature, MaxTokens: r.MaxTokens}
	if t.Protocol == ProtocolChat && r.Model == "" {
		return nil, Errorf(ClassConfiguration, "no model named")
	}
	if r.ResponseSchema != nil {
		name := r.SchemaName
		if name == "" {
			name = "judgment"
		}
		w.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: name, Schema: r.ResponseSchema}}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, Errorf(ClassConfiguration, "the response schema cannot be encoded")
	}
	return b, nil
}

func decodeResponse(b []byte) (Response, *Error) {
	var w wireResponse
	if err := json.Unmarshal(b, &w); err != nil {
		return Response{}, Errorf(ClassDataValidation, "the provider's answer is not a chat completion")
	}
	if len(w.Choices) == 0 || w.Choices[0].Message == nil || w.Choices[0].Message.Content == nil {
		return Response{}, Errorf(ClassDataValidation, "the provider's answer has no message content")
	}
	out := Response{Content: *w.Choices[0].Message.Content, FinishReason: w.Choices[0].FinishReason, Model: w.Model}
	if w.Usage != nil {
		out.Usage = Usage{InputTokens: max(w.Usage.PromptTokens, 0), OutputTokens: max(w.Usage.CompletionTokens, 0)}
	}
	return out, nil
}
