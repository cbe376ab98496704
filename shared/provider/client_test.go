package provider_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/provider"
	"github.com/evalobs/evalapi/shared/provider/providertest"
	"github.com/evalobs/evalapi/shared/secrets"
)

// canary is a credential no error, message or request record that reaches a log may carry.
const canary = "sk-canary-7f3a9c0e5b1d-must-not-leak"

// recorder replaces the client's waits: it records them and returns at once.
type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

func newClient(policy provider.Policy) (*provider.Client, *recorder) {
	rec := &recorder{}
	// Jitter returns the ceiling itself, so that the waits are the backoff ceilings.
	return provider.New(provider.Options{AllowLoopback: true, Policy: policy, Sleep: rec.sleep,
		Jitter: func(n time.Duration) time.Duration { return n }}), rec
}

var ask = provider.Request{Model: "judge-model", Messages: []provider.Message{
	{Role: "system", Content: "You judge."}, {Role: "user", Content: "Is this fine?"}}}

func chatTarget(s *providertest.Stub) provider.Target {
	return provider.Target{Protocol: provider.ProtocolChat, BaseURL: s.URL + "/v1",
		Auth: provider.Auth{Type: provider.AuthBearer, Secret: secrets.NewValueString(canary)}}
}

func TestProtocolsAndAuthentication(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(s *providertest.Stub) provider.Target
		setup  func(s *providertest.Stub)
		check  func(t *testing.T, c providertest.Call)
	}{
		{"chat with bearer token",
			chatTarget,
			func(s *providertest.Stub) { s.RequireHeader("Authorization", "Bearer "+canary) },
			func(t *testing.T, c providertest.Call) {
				if c.Path != "/v1/chat/completions" || c.Model != "judge-model" {
					t.Errorf("path %s model %s", c.Path, c.Model)
				}
			}},
		{"cloud-host with api-key header",
			func(s *providertest.Stub) provider.Target {
				return provider.Target{Protocol: provider.ProtocolCloudHost, BaseURL: s.URL, Deployment: "dep-1",
					APIVersion: "2025-03-01-preview", Auth: provider.Auth{Type: provider.AuthAPIKey, Header: "api-key",
						Secret: secrets.NewValueString(canary)}}
			},
			func(s *providertest.Stub) { s.RequireHeader("api-key", canary) },
			func(t *testing.T, c providertest.Call) {
				if c.Path != "/openai/deployments/dep-1/chat/completions" || c.APIVersion != "2025-03-01-preview" {
					t.Errorf("path %s api-version %s", c.Path, c.APIVersion)
				}
				if c.Header.Get("Authorization") != "" {
					t.Error("a bearer header was sent with the api-key")
				}
			}},
		{"custom api key header and headers and header mapping",
			func(s *providertest.Stub) provider.Target {
				return provider.Target{Protocol: provider.ProtocolChat, BaseURL: s.URL,
					Auth:          provider.Auth{Type: provider.AuthAPIKey, Header: "X-Model-Key", Secret: secrets.NewValueString(canary)},
					Headers:       map[string]secrets.Value{"X-Team": secrets.NewValueString("evals")},
					HeaderMapping: map[string]string{"project_id": "X-Project", "absent": "X-Absent"}}
			},
			func(s *providertest.Stub) { s.RequireHeader("X-Model-Key", canary) },
			func(t *testing.T, c providertest.Call) {
				if c.Header.Get("X-Team") != "evals" || c.Header.Get("X-Project") != "p-1" || c.Header.Get("X-Absent") != "" {
					t.Errorf("headers %v", c.Header)
				}
			}},
		{"none",
			func(s *providertest.Stub) provider.Target {
				return provider.Target{Protocol: provider.ProtocolChat, BaseURL: s.URL, Auth: provider.Auth{Type: provider.AuthNone}}
			},
			func(s *providertest.Stub) {
				s.RequireAuth(func(h http.Header) bool { return h.Get("Authorization") == "" })
			},
			func(t *testing.T, c providertest.Call) {}},
		{"oauth2 client credentials",
			func(s *providertest.Stub) provider.Target {
				return provider.Target{Protocol: provider.ProtocolChat, BaseURL: s.URL, Auth: provider.Auth{Type: provider.AuthOAuth2,
					Secret: secrets.NewValueString("client-1:" + canary), TokenURL: s.TokenURL(), Scope: "models.read"}}
			},
			func(s *providertest.Stub) { s.OAuth2("client-1", canary, "access-1", 3600) },
			func(t *testing.T, c providertest.Call) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.New(t)
			tc.setup(s)
			s.Reply("", providertest.Answer(`{"rating":true}`))
			s.Reply("dep-1", providertest.Answer(`{"rating":true}`))
			c, _ := newClient(provider.Policy{})
			r := ask
			r.Fields = map[string]string{"project_id": "p-1"}
			got, err := c.Complete(t.Context(), tc.target(s), r)
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != `{"rating":true}` || got.Usage.InputTokens == 0 || got.Usage.OutputTokens == 0 || got.Attempts != 1 {
				t.Fatalf("response %+v", got)
			}
			calls := s.Calls()
			if len(calls) != 1 {
				t.Fatalf("%d calls", len(calls))
			}
			tc.check(t, calls[0])
		})
	}
}

func TestStructuredOutput(t *testing.T) {
	s := providertest.New(t)
	c, _ := newClient(provider.Policy{})
	r := ask
	r.ResponseSchema = map[string]any{"type": "object", "properties": map[string]any{"rating": map[string]any{"type": "boolean"}}}
	if _, err := c.Complete(t.Context(), chatTarget(s), r); err != nil {
		t.Fatal(err)
	}
	rf := s.Calls()[0].ResponseFormat
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "judgment" || js["schema"] == nil {
		t.Fatalf("response_format %v", rf)
	}
	if _, err := c.Complete(t.Context(), chatTarget(s), ask); err != nil {
		t.Fatal(err)
	}
	if rf := s.Calls()[1].ResponseFormat; rf != nil {
		t.Fatalf("response_format sent without a schema: %v", rf)
	}
}

func TestFailureClasses(t *testing.T) {
	policy := provider.Policy{MaxAttempts: 3, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second,
		AttemptTimeout: 200 * time.Millisecond, Deadline: time.Minute}
	for _, tc := range []struct {
		name      string
		handler   providertest.Handler
		class     provider.Class
		retryable bool
		calls     int
		waits     []time.Duration
		ok        bool
	}{
		{"429 then success, Retry-After honoured",
			providertest.Script(providertest.RateLimited("2"), providertest.Answer(`{"rating":1}`)),
			"", false, 2, []time.Duration{2 * time.Second}, true},
		{"429 every time", providertest.Script(providertest.RateLimited("")),
			provider.ClassRateLimit, true, 3, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, false},
		{"500 every time", providertest.Script(providertest.Fail(500)),
			provider.ClassAPI, true, 3, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, false},
		{"503 then success", providertest.Script(providertest.Fail(503), providertest.Answer("ok")),
			"", false, 2, []time.Duration{100 * time.Millisecond}, true},
		{"hang: attempt timeouts", providertest.Script(providertest.Hang()),
			provider.ClassAPI, true, 3, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, false},
		{"401: no retry", providertest.Script(providertest.Fail(401)), provider.ClassCredentials, false, 1, nil, false},
		{"403: no retry", providertest.Script(providertest.Fail(403)), provider.ClassCredentials, false, 1, nil, false},
		{"404: configuration", providertest.Script(providertest.Fail(404)), provider.ClassConfiguration, false, 1, nil, false},
		{"400: refused, no retry", providertest.Script(providertest.Fail(400)), provider.ClassAPI, false, 1, nil, false},
		{"malformed envelope", providertest.Script(providertest.Malformed(`{"choices": "nope"`)),
			provider.ClassDataValidation, false, 1, nil, false},
		{"no choices", providertest.Script(providertest.Malformed(`{"choices": []}`)),
			provider.ClassDataValidation, false, 1, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.New(t)
			s.Handle("judge-model", tc.handler)
			c, rec := newClient(policy)
			got, err := c.Complete(t.Context(), chatTarget(s), ask)
			if n := len(s.Calls()); n != tc.calls {
				t.Errorf("%d calls, want %d", n, tc.calls)
			}
			if fmt.Sprint(rec.waits) != fmt.Sprint(tc.waits) {
				t.Errorf("waits %v, want %v", rec.waits, tc.waits)
			}
			if tc.ok {
				if err != nil || got.Attempts != tc.calls {
					t.Fatalf("err %v, attempts %d", err, got.Attempts)
				}
				return
			}
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *provider.Error", err)
			}
			if pe.Class != tc.class || pe.Retryable != tc.retryable || pe.Attempts != tc.calls {
				t.Fatalf("error %+v, want class %s retryable %v", pe, tc.class, tc.retryable)
			}
			if strings.Contains(err.Error(), canary) || strings.Contains(err.Error(), "stub failure") {
				t.Fatalf("error quotes a secret or the provider: %s", err)
			}
		})
	}
}

// A Retry-After longer than what is left of the deadline stops the call at once, with the
// wait the provider asked for, so the caller can put the work back on its queue.
func TestRetryAfterBeyondDeadline(t *testing.T) {
	s := providertest.New(t)
	s.Reply("judge-model", providertest.RateLimited("120"))
	c, rec := newClient(provider.Policy{MaxAttempts: 5, Deadline: 30 * time.Second})
	_, err := c.Complete(t.Context(), chatTarget(s), ask)
	pe := provider.AsError(err)
	if pe.Class != provider.ClassRateLimit || !pe.Retryable || pe.RetryAfter != 120*time.Second || len(rec.waits) != 0 {
		t.Fatalf("error %+v, waits %v", pe, rec.waits)
	}
	if len(s.Calls()) != 1 {
		t.Fatalf("%d calls", len(s.Calls()))
	}
}

func TestRetryAfterForms(t *testing.T) {
	s := providertest.New(t)
	date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	s.Handle("judge-model", providertest.Script(providertest.RateLimited(date), providertest.Answer("ok")))
	c, rec := newClient(provider.Policy{Deadline: 2 * time.Hour})
	if _, err := c.Complete(t.Context(), chatTarget(s), ask); err != nil {
		t.Fatal(err)
	}
	// An hour away is capped at ten minutes.
	if len(rec.waits) != 1 || rec.waits[0] != 10*time.Minute {
		t.Fatalf("waits %v", rec.waits)
	}
}

func TestOAuth2TokenCachedAndRefreshed(t *testing.T) {
	s := providertest.New(t)
	s.OAuth2("client-1", "secret-1", "access-1", 3600)
	target := provider.Target{Protocol: provider.ProtocolChat, BaseURL: s.URL, Auth: provider.Auth{Type: provider.AuthOAuth2,
		Secret: secrets.NewValueString(`{"client_id":"client-1","client_secret":"secret-1"}`), TokenURL: s.TokenURL()}}
	c, _ := newClient(provider.Policy{})
	for range 3 {
		if _, err := c.Complete(t.Context(), target, ask); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.TokenRequests(); n != 1 {
		t.Fatalf("%d token requests for 3 calls, want 1 (cached)", n)
	}
	// The provider revokes the token: the client fetches a new one once and succeeds.
	s.OAuth2("client-1", "secret-1", "access-2", 3600)
	if _, err := c.Complete(t.Context(), target, ask); err != nil {
		t.Fatal(err)
	}
	if n := s.TokenRequests(); n != 2 {
		t.Fatalf("%d token requests, want 2", n)
	}
	// Wrong client credentials: credentials_error, no call to the model.
	bad := target
	bad.Auth.Secret = secrets.NewValueString("client-1:" + canary)
	before, grants := len(s.Calls()), s.TokenRequests()
	_, err := c.Complete(t.Context(), bad, ask)
	if s.TokenRequests() != grants+1 {
		t.Fatalf("%d token requests for refused credentials, want 1", s.TokenRequests()-grants)
	}
	if pe := provider.AsError(err); pe.Class != provider.ClassCredentials || pe.Retryable {
		t.Fatalf("error %+v", pe)
	}
	if strings.Contains(err.Error(), canary) || len(s.Calls()) != before {
		t.Fatalf("error %q, %d more calls", err, len(s.Calls())-before)
	}
}

func TestOAuth2TokenExpires(t *testing.T) {
	s := providertest.New(t)
	s.OAuth2("c", "s", "tok", 60)
	now := time.Now()
	c := provider.New(provider.Options{AllowLoopback: true, Now: func() time.Time { return now }})
	target := provider.Target{Protocol: provider.ProtocolChat, BaseURL: s.URL, Auth: provider.Auth{Type: provider.AuthOAuth2,
		Secret: secrets.NewValueString("c:s"), TokenURL: s.TokenURL()}}
	for _, step := range []time.Duration{0, 20 * time.Second, 20 * time.Second} {
		now = now.Add(step)
		if _, err := c.Complete(t.Context(), target, ask); err != nil {
			t.Fatal(err)
		}
	}
	// 60 s tokens are used until 30 s before they expire: the call at 40 s fetches again.
	if n := s.TokenRequests(); n != 2 {
		t.Fatalf("%d token requests, want 2", n)
	}
}

func TestConfigurationErrors(t *testing.T) {
	s := providertest.New(t)
	strict := provider.New(provider.Options{}) // no loopback: the stub is private
	for _, tc := range []struct {
		name   string
		client *provider.Client
		target provider.Target
		req    provider.Request
	}{
		{"loopback refused outside tests", strict, chatTarget(s), ask},
		{"metadata address", strict, provider.Target{Protocol: provider.ProtocolChat, BaseURL: "https://169.254.169.254/v1"}, ask},
		{"not https", strict, provider.Target{Protocol: provider.ProtocolChat, BaseURL: "http://example.com"}, ask},
		{"cloud-host without deployment", nil, provider.Target{Protocol: provider.ProtocolCloudHost, BaseURL: s.URL, APIVersion: "v"}, ask},
		{"unknown protocol", nil, provider.Target{Protocol: "smoke", BaseURL: s.URL}, ask},
		{"no model", nil, chatTarget(s), provider.Request{Messages: ask.Messages}},
		{"token URL private", strict, provider.Target{Protocol: provider.ProtocolChat, BaseURL: "https://example.com",
			Auth: provider.Auth{Type: provider.AuthOAuth2, Secret: secrets.NewValueString("a:b"), TokenURL: "https://10.0.0.1/token"}}, ask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.client
			if c == nil {
				c, _ = newClient(provider.Policy{})
			}
			_, err := c.Complete(t.Context(), tc.target, tc.req)
			if pe := provider.AsError(err); err == nil || pe.Class != provider.ClassConfiguration || pe.Retryable {
				t.Fatalf("error %v", err)
			}
		})
	}
	if n := len(s.Calls()); n != 0 {
		t.Fatalf("%d calls reached the stub", n)
	}
}

func TestCancelStopsRetrying(t *testing.T) {
	s := providertest.New(t)
	s.Reply("judge-model", providertest.Fail(500))
	ctx, cancel := context.WithCancel(t.Context())
	c := provider.New(provider.Options{AllowLoopback: true, Sleep: func(context.Context, time.Duration) error {
		cancel()
		return context.Canceled
	}})
	_, err := c.Complete(ctx, chatTarget(s), ask)
	if pe := provider.AsError(err); pe.Class != provider.ClassAPI || len(s.Calls()) != 1 {
		t.Fatalf("error %+v after %d calls", pe, len(s.Calls()))
	}
}

// A provider that echoes the key it refused must not get it into the error.
func TestErrorNeverQuotesTheProvider(t *testing.T) {
	for _, status := range []int{400, 401, 429, 500} {
		s := providertest.New(t)
		s.Reply("judge-model", providertest.Reply{Status: status, Raw: `{"error":{"message":"Incorrect API key provided: ` + canary + `"}}`})
		c, _ := newClient(provider.Policy{MaxAttempts: 2})
		_, err := c.Complete(t.Context(), chatTarget(s), ask)
		if err == nil || strings.Contains(err.Error(), canary) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), canary) {
			t.Fatalf("status %d: error %v", status, err)
		}
	}
}
