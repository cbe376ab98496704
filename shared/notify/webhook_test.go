package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	testKey  = Secret("0123456789abcdef0123456789abcdef")
	testTime = time.Date(2025, 6, 15, 10, 0, 0, 0, time.UTC)
)

func testEvent() Event {
	return FindingEvent(Finding{ID: "f-1", SignalsRunID: "sr-1", ConfigurationID: "c-1", ProjectID: "p-1", RunID: "r-1",
		Severity: "HIGH", Title: "Tool calls time out", Description: "Half of the traces end in a timeout of the search tool.",
		TraceIDs: []string{"t-1", "t-2"}, SuggestedAction: "Raise the tool timeout.", CreatedAt: testTime})
}

// receiver is an httptest server that verifies each request the documented way, written
// here independently of Sign, and answers from a script.
type receiver struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	answers []func(w http.ResponseWriter) // one per request; the last repeats
	got     []received
}

type received struct {
	id, ts   string
	verified bool
	event    Event
}

func newReceiver(t *testing.T, answers ...func(w http.ResponseWriter)) *receiver {
	r := &receiver{t: t, answers: answers}
	r.srv = httptest.NewServer(http.HandlerFunc(r.handle))
	t.Cleanup(r.srv.Close)
	return r
}

func status(code int, headers ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, "receiver says: internal details")
	}
}

func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	id, ts := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp")
	mac := hmac.New(sha256.New, []byte(testKey))
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := mac.Sum(nil)
	verified := false
	for _, sig := range strings.Fields(req.Header.Get("webhook-signature")) {
		v, b64, ok := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if ok && v == "v1" && err == nil && hmac.Equal(got, want) {
			verified = true
		}
	}
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Unix(secs, 0).Sub(testTime).Abs() > 5*time.Minute {
		verified = false
	}
	if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json" {
		verified = false
	}
	var e Event
	if json.Unmarshal(body, &e) != nil {
		verified = false
	}
	r.mu.Lock()
	r.got = append(r.got, received{id: id, ts: ts, verified: verified, event: e})
	answer := r.answers[min(len(r.got), len(r.answers))-1]
	r.mu.Unlock()
	answer(w)
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// sleeps records the waits of a Webhook instead of waiting.
type sleeps struct{ waits []time.Duration }

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.waits = append(s.waits, d)
	return ctx.Err()
}

func newWebhook(s *sleeps, client Doer) *Webhook {
	if client == nil {
		client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	clock := testTime
	return &Webhook{Client: client, Sleep: s.sleep, Jitter: func() float64 { return 0.5 },
		Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
}

func TestSendSigned(t *testing.T) {
	r := newReceiver(t, status(http.StatusNoContent))
	s := &sleeps{}
	if err := newWebhook(s, nil).Send(context.Background(), Destination{URL: r.srv.URL + "/hooks/abc", Secret: testKey}, testEvent()); err != nil {
		t.Fatal(err)
	}
	got := r.requests()
	if len(got) != 1 || !got[0].verified || got[0].id != "finding_f-1" || len(s.waits) != 0 {
		t.Fatalf("requests = %+v, waits %v", got, s.waits)
	}
	e := got[0].event
	if e.Type != "signals.finding" || e.Data.Severity != "HIGH" || strings.Join(e.Data.TraceIDs, ",") != "t-1,t-2" ||
		e.Data.SignalsRunID != "sr-1" || !e.CreatedAt.Equal(testTime) || e.Data.SuggestedAction != "Raise the tool timeout." {
		t.Errorf("event received = %+v", e)
	}
}

// TestSendWrongKeyFailsVerification: the receiver's check is a real one.
func TestSendWrongKeyFailsVerification(t *testing.T) {
	r := newReceiver(t, status(http.StatusOK))
	_ = newWebhook(&sleeps{}, nil).Send(context.Background(), Destination{URL: r.srv.URL, Secret: Secret("another key, 32 bytes long.....")}, testEvent())
	if got := r.requests(); len(got) != 1 || got[0].verified {
		t.Errorf("requests = %+v; want one that fails verification", got)
	}
}

// TestSendRetries: 5xx and 408 are retried with growing, jittered waits; every attempt has
// the same id, its own timestamp and a valid signature.
func TestSendRetries(t *testing.T) {
	r := newReceiver(t, status(500), status(503), status(408), status(200))
	s := &sleeps{}
	if err := newWebhook(s, nil).Send(context.Background(), Destination{URL: r.srv.URL, Secret: testKey}, testEvent()); err != nil {
		t.Fatal(err)
	}
	got := r.requests()
	if len(got) != 4 {
		t.Fatalf("%d requests; want 4", len(got))
	}
	for i, g := range got {
		if !g.verified || g.id != "finding_f-1" || (i > 0 && g.ts == got[i-1].ts) {
			t.Errorf("request %d = %+v", i, g)
		}
	}
	// Jitter 0.5 of equal jitter: 3/4 of 1 s, 2 s, 4 s.
	if want := []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}; fmt.Sprint(s.waits) != fmt.Sprint(want) {
		t.Errorf("waits = %v; want %v", s.waits, want)
	}
}

func TestBackoffBounds(t *testing.T) {
	for _, j := range []float64{0, 0.999} {
		w := &Webhook{Jitter: func() float64 { return j }}
		for attempt, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second, 6: 30 * time.Second, 40: 30 * time.Second} {
			got := w.backoff(attempt)
			if got < want/2 || got > want {
				t.Errorf("jitter %v: backoff(%d) = %v; want within [%v, %v]", j, attempt, got, want/2, want)
			}
		}
	}
}

func TestSendRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name     string
		header   string
		wantWait time.Duration
	}{
		{"seconds", "7", 7 * time.Second},
		{"date", testTime.Add(12 * time.Second).Format(http.TimeFormat), 11 * time.Second}, // signed at testTime+1s
		{"unreadable: backoff", "soon", 750 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReceiver(t, status(http.StatusTooManyRequests, "Retry-After", tc.header), status(http.StatusOK))
			s := &sleeps{}
			if err := newWebhook(s, nil).Send(context.Background(), Destination{URL: r.srv.URL, Secret: testKey}, testEvent()); err != nil {
				t.Fatal(err)
			}
			if len(s.waits) != 1 || s.waits[0] != tc.wantWait {
				t.Errorf("waits = %v; want [%v]", s.waits, tc.wantWait)
			}
		})
	}
	// More than MaxDelay: no wait, no retry, and not a permanent refusal.
	r := newReceiver(t, status(http.StatusServiceUnavailable, "Retry-After", "3600"))
	s := &sleeps{}
	err := newWebhook(s, nil).Send(context.Background(), Destination{URL: r.srv.URL, Secret: testKey}, testEvent())
	var de *DeliveryError
	if !errors.As(err, &de) || de.Attempts != 1 || de.Status != 503 || de.Permanent || len(s.waits) != 0 {
		t.Errorf("Send = %#v, waits %v", err, s.waits)
	}
}

// TestSendRefused: an answer other than 2xx, 408, 429 or 5xx ends the delivery at once.
func TestSendRefused(t *testing.T) {
	for _, code := range []int{400, 401, 404, 410, 302} {
		r := newReceiver(t, status(code, "Location", "http://127.0.0.1:1/elsewhere"))
		s := &sleeps{}
		err := newWebhook(s, nil).Send(context.Background(), Destination{URL: r.srv.URL, Secret: testKey}, testEvent())
		var de *DeliveryError
		if !errors.As(err, &de) || de.Status != code || !de.Permanent || de.Attempts != 1 || len(r.requests()) != 1 {
			t.Errorf("%d: Send = %v", code, err)
		}
		if strings.Contains(err.Error(), "internal details") {
			t.Errorf("%d: the error %q carries the receiver's body", code, err)
		}
	}
}

func TestSendGivesUp(t *testing.T) {
	r := newReceiver(t, status(502))
	s := &sleeps{}
	w := newWebhook(s, nil)
	w.Attempts = 3
	err := w.Send(context.Background(), Destination{URL: r.srv.URL, Secret: testKey}, testEvent())
	var de *DeliveryError
	if !errors.As(err, &de) || de.Attempts != 3 || de.Status != 502 || de.Permanent || len(r.requests()) != 3 || len(s.waits) != 2 {
		t.Errorf("Send = %v; %d requests, waits %v", err, len(r.requests()), s.waits)
	}
	if err.Error() != "notify: webhook delivery failed after 3 attempt(s): status 502" {
		t.Errorf("message = %q", err)
	}
}

// doerFunc is a Doer from a function, for transport failures without waiting for one.
type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

// TestSendTransportErrors: a timeout is retried, and the error never shows the URL (whose
// path here is the hook's secret).
func TestSendTransportErrors(t *testing.T) {
	secretURL := "https://hooks.example.com/services/T000/B000/XXXXsecretXXXX?token=abc"
	calls := 0
	timeout := doerFunc(func(r *http.Request) (*http.Response, error) {
		calls++
		return nil, &url.Error{Op: "Post", URL: r.URL.String(), Err: context.DeadlineExceeded}
	})
	s := &sleeps{}
	w := newWebhook(s, timeout)
	err := w.Send(context.Background(), Destination{URL: secretURL, Secret: testKey}, testEvent())
	var de *DeliveryError
	if !errors.As(err, &de) || calls != DefaultAttempts || de.Permanent || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Send = %v after %d calls", err, calls)
	}
	pub := WebhookPublisher{Webhook: w, Destination: func(context.Context, Event) (Destination, bool, error) {
		return Destination{URL: secretURL, Secret: testKey}, true, nil
	}}
	perr := pub.Publish(context.Background(), testEvent())
	for _, e := range []error{err, perr} {
		if msg := fmt.Sprintf("%v %+v %#v", e, e, e); strings.Contains(msg, "XXXXsecretXXXX") || strings.Contains(msg, "token=abc") ||
			strings.Contains(msg, string(testKey)) {
			t.Errorf("an error shows the URL or key: %s", msg)
		}
	}
	if !strings.Contains(perr.Error(), "webhook https://hooks.example.com/...") {
		t.Errorf("Publish error = %q; want the host named", perr)
	}

	// A refused address (the SSRF guard's verdict) is not retried.
	blocked := errors.New("address not allowed")
	calls = 0
	w = newWebhook(&sleeps{}, doerFunc(func(*http.Request) (*http.Response, error) { calls++; return nil, blocked }))
	w.IsPermanent = func(err error) bool { return errors.Is(err, blocked) }
	if err := w.Send(context.Background(), Destination{URL: secretURL, Secret: testKey}, testEvent()); !errors.As(err, &de) || !de.Permanent || calls != 1 {
		t.Errorf("blocked: Send = %v after %d calls", err, calls)
	}
}

func TestSendContext(t *testing.T) {
	r := newReceiver(t, status(500))
	// Cancelled while waiting: stops with the cancellation.
	ctx, cancel := context.WithCancel(context.Background())
	w := newWebhook(nil, nil)
	w.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	if err := w.Send(ctx, Destination{URL: r.srv.URL, Secret: testKey}, testEvent()); !errors.Is(err, context.Canceled) || len(r.requests()) != 1 {
		t.Errorf("Send = %v after %d requests", err, len(r.requests()))
	}
	// A deadline before the next attempt: no wait at all.
	ctx, cancel2 := context.WithTimeout(context.Background(), time.Hour)
	defer cancel2()
	s := &sleeps{}
	w = newWebhook(s, nil)
	w.BaseDelay = 2 * time.Hour
	w.MaxDelay = 4 * time.Hour
	if err := w.Send(ctx, Destination{URL: r.srv.URL, Secret: testKey}, testEvent()); err == nil || len(s.waits) != 0 {
		t.Errorf("Send = %v, waits %v", err, s.waits)
	}
}

func TestSendBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://example.com/x", "/relative", "http://", "https://exa mple.com/"} {
		err := newWebhook(&sleeps{}, doerFunc(func(*http.Request) (*http.Response, error) {
			t.Fatalf("%q: a request was made", u)
			return nil, nil
		})).Send(context.Background(), Destination{URL: u, Secret: testKey}, testEvent())
		var de *DeliveryError
		if !errors.As(err, &de) || !de.Permanent {
			t.Errorf("%q: Send = %v", u, err)
		}
	}
}
