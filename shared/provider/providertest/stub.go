// Package providertest is a stub model provider for tests: an httptest server on 127.0.0.1
// speaking the chat-completions protocol (POST .../chat/completions), the cloud-host
// protocol (POST .../openai/deployments/{id}/chat/completions?api-version=..., GET
// .../openai/deployments) and an OAuth2 client-credentials token endpoint (POST /oauth2/token).
// Each model (the body's "model", or the deployment id on the cloud-host path) answers as
// programmed: fixed answers, scripts of replies, or a function; latency, 429 with
// Retry-After, 500, hangs and malformed answers. It records every request so tests can
// assert headers and authentication; it never logs what it receives.
//
// Test code only: infra's architecture test keeps it out of every Lambda.
package providertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply is what the stub answers to one call.
type Reply struct {
	Status     int           // 0 is 200
	RetryAfter string        // Retry-After header, when set
	Delay      time.Duration // wait before answering (cut short when the caller goes away)
	Hang       bool          // never answer: wait until the caller gives up
	Raw        string        // a body sent as is (malformed answers); overrides Content
	Content    string        // the assistant message of a 200
	Usage      *Usage        // nil: counted from the request and the content
}

// Usage is the token count a reply reports.
type Usage struct{ Input, Output int64 }

// Answer replies 200 with content.
func Answer(content string) Reply { return Reply{Content: content} }

// RateLimited replies 429 with a Retry-After header (empty: none).
func RateLimited(retryAfter string) Reply {
	return Reply{Status: http.StatusTooManyRequests, RetryAfter: retryAfter, Raw: `{"error":{"message":"rate limited"}}`}
}

// Fail replies with status and an error body.
func Fail(status int) Reply {
	return Reply{Status: status, Raw: `{"error":{"message":"stub failure"}}`}
}

// Hang never answers.
func Hang() Reply { return Reply{Hang: true} }

// Malformed replies 200 with body as is.
func Malformed(body string) Reply { return Reply{Raw: body} }

// Handler computes the reply to a call.
type Handler func(Call) Reply

// Script answers the n-th call with the n-th reply; the last reply repeats.
func Script(replies ...Reply) Handler {
	return func(c Call) Reply {
		return replies[min(c.N, len(replies))-1]
	}
}

// Call is one recorded chat-completion request.
type Call struct {
	N          int    // 1-based number of this call among the model's calls
	Model      string // the body's model, or the deployment on the cloud-host path
	Deployment string // cloud-host only
	APIVersion string // cloud-host only
	Path       string
	Header     http.Header
	Messages   []Message
	// ResponseFormat is the body's response_format, decoded (nil when absent).
	ResponseFormat map[string]any
	Body           map[string]any
}

// String names the call without its headers or body (they may hold credentials), so a
// test that logs calls leaks nothing.
func (c Call) String() string {
	names := make([]string, 0, len(c.Header))
	for k := range c.Header {
		names = append(names, k)
	}
	return fmt.Sprintf("call %d of %q at %s (headers %v)", c.N, c.Model, c.Path, names)
}

// Message is one message of a call.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Stub is a running stub provider.
type Stub struct {
	*httptest.Server

	mu        sync.Mutex
	handlers  map[string]Handler
	fallback  Handler
	calls     []Call
	perModel  map[string]int
	auth      func(http.Header) bool
	clients   map[string]string // OAuth2 client id → secret
	token     string
	expiresIn int
	tokens    int
	deploys   []map[string]string
	closing   chan struct{}
	closeOnce sync.Once
}

// DefaultContent is the answer of a model with no handler: a boolean judgment.
const DefaultContent = `{"explanation":"The stub judge agrees.","rating":true}`

// New starts a stub on 127.0.0.1, closed when the test ends.
func New(t testing.TB) *Stub {
	s := &Stub{handlers: map[string]Handler{}, perModel: map[string]int{}, clients: map[string]string{},
		closing: make(chan struct{}), fallback: func(Call) Reply { return Answer(DefaultContent) }}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Close stops the stub, releasing hanging calls first.
func (s *Stub) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
	s.Server.Close()
}

// Handle programs model (the deployment id for cloud-host calls); "" programs every model
// without its own handler.
func (s *Stub) Handle(model string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if model == "" {
		s.fallback = h
		return
	}
	s.handlers[model] = h
}

// Reply programs model to answer r to every call.
func (s *Stub) Reply(model string, r Reply) { s.Handle(model, func(Call) Reply { return r }) }

// RequireAuth makes every chat-completion call without a header accepted by ok answer 401.
func (s *Stub) RequireAuth(ok func(http.Header) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.auth = ok
}

// RequireHeader makes calls without header name = value answer 401.
func (s *Stub) RequireHeader(name, value string) {
	s.RequireAuth(func(h http.Header) bool { return h.Get(name) == value })
}

// OAuth2 makes the token endpoint grant token (for expiresIn seconds, 0: no expires_in) to
// client id with secret, and chat-completion calls require "Bearer <token>".
func (s *Stub) OAuth2(id, secret, token string, expiresIn int) {
	s.mu.Lock()
	s.clients[id], s.token, s.expiresIn = secret, token, expiresIn
	s.mu.Unlock()
	s.RequireHeader("Authorization", "Bearer "+token)
}

// TokenURL is the stub's token endpoint.
func (s *Stub) TokenURL() string { return s.URL + "/oauth2/token" }

// TokenRequests counts grants asked for.
func (s *Stub) TokenRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens
}

// Deployments sets what GET .../openai/deployments lists (model → id pairs).
func (s *Stub) Deployments(pairs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deploys = nil
	for i := 0; i+1 < len(pairs); i += 2 {
		s.deploys = append(s.deploys, map[string]string{"model": pairs[i], "id": pairs[i+1]})
	}
}

// Calls returns the chat-completion calls received so far, in order.
func (s *Stub) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallsFor returns the calls of one model.
func (s *Stub) CallsFor(model string) []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.Model == model {
			out = append(out, c)
		}
	}
	return out
}

func (s *Stub) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/oauth2/token":
		s.grant(w, r)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/openai/deployments"):
		s.mu.Lock()
		b, _ := json.Marshal(map[string]any{"data": s.deploys})
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.complete(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *Stub) grant(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	_ = r.ParseForm()
	s.mu.Lock()
	s.tokens++
	want, known := s.clients[id]
	token, expiresIn := s.token, s.expiresIn
	s.mu.Unlock()
	if !ok || !known || secret != want || r.PostForm.Get("grant_type") != "client_credentials" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":"invalid_client"}`)
		return
	}
	doc := map[string]any{"access_token": token, "token_type": "Bearer"}
	if expiresIn > 0 {
		doc["expires_in"] = expiresIn
	}
	b, _ := json.Marshal(doc)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func (s *Stub) complete(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	var body map[string]any
	c := Call{Path: r.URL.Path, Header: r.Header.Clone()}
	if json.Unmarshal(raw, &body) != nil {
		http.Error(w, `{"error":{"message":"body is not JSON"}}`, http.StatusBadRequest)
		return
	}
	c.Body = body
	c.Model, _ = body["model"].(string)
	if _, rest, ok := strings.Cut(r.URL.Path, "/openai/deployments/"); ok {
		c.Deployment = strings.TrimSuffix(rest, "/chat/completions")
		c.APIVersion = r.URL.Query().Get("api-version")
		c.Model = c.Deployment
	}
	var msgs struct {
		Messages []Message `json:"messages"`
	}
	_ = json.Unmarshal(raw, &msgs)
	c.Messages = msgs.Messages
	c.ResponseFormat, _ = body["response_format"].(map[string]any)

	s.mu.Lock()
	s.perModel[c.Model]++
	c.N = s.perModel[c.Model]
	s.calls = append(s.calls, c)
	h := s.handlers[c.Model]
	if h == nil {
		h = s.fallback
	}
	auth := s.auth
	s.mu.Unlock()

	if auth != nil && !auth(r.Header) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"invalid credentials"}}`)
		return
	}
	rep := h(c)
	if rep.Hang {
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	}
	if rep.Delay > 0 {
		t := time.NewTimer(rep.Delay)
		select {
		case <-r.Context().Done():
			t.Stop()
			return
		case <-s.closing:
			t.Stop()
			return
		case <-t.C:
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.RetryAfter != "" {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if rep.Raw != "" || status != http.StatusOK {
		_, _ = io.WriteString(w, rep.Raw)
		return
	}
	u := rep.Usage
	if u == nil {
		in := int64(0)
		for _, m := range c.Messages {
			in += int64(len(m.Content)/4 + 1)
		}
		u = &Usage{Input: in, Output: int64(len(rep.Content)/4 + 1)}
	}
	b, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("stub-%d", c.N), "object": "chat.completion", "model": c.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": rep.Content}}},
		"usage": map[string]any{"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output},
	})
	_, _ = w.Write(b)
}
