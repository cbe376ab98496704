package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Doer sends an HTTP request; *http.Client is one. The caller passes the client that
// enforces the SSRF rules of provider endpoints, and one that does not follow redirects
// (a 3xx then ends the delivery as refused).
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Defaults of Webhook's zero fields.
const (
	DefaultAttempts       = 5
	DefaultBaseDelay      = time.Second
	DefaultMaxDelay       = 30 * time.Second
	DefaultAttemptTimeout = 10 * time.Second
)

// Webhook sends events to webhook destinations. Only Client is required.
type Webhook struct {
	Client         Doer
	Attempts       int           // attempts in all, first included; 0: DefaultAttempts
	BaseDelay      time.Duration // the wait before the second attempt, doubled each time; 0: DefaultBaseDelay
	MaxDelay       time.Duration // the longest wait, and the longest Retry-After honoured; 0: DefaultMaxDelay
	AttemptTimeout time.Duration // one attempt's limit; 0: DefaultAttemptTimeout
	UserAgent      string        // "" : "evalapi-webhooks/1"

	// IsPermanent, if set, tells a transport error that retrying cannot cure (an address
	// the SSRF guard refuses).
	IsPermanent func(error) bool
	// Sleep waits d or until ctx is done; nil: a timer. Tests pass one that records.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1); nil: math/rand/v2.
	Jitter func() float64
	// Now is the signing clock; nil: time.Now.
	Now func() time.Time
}

// DeliveryError is a delivery that did not succeed. It never holds the URL's path or query,
// the key or the receiver's answer body.
type DeliveryError struct {
	Attempts  int   // attempts made
	Status    int   // the last answer's status; 0 if none came
	Permanent bool  // retrying would not help: a refusing answer, a refused address, an invalid URL
	Err       error // the last transport error, if any
}

func (e *DeliveryError) Error() string {
	what := "no answer"
	switch {
	case e.Status != 0:
		what = "status " + strconv.Itoa(e.Status)
	case e.Err != nil:
		what = e.Err.Error()
	}
	return fmt.Sprintf("notify: webhook delivery failed after %d attempt(s): %s", e.Attempts, what)
}

func (e *DeliveryError) Unwrap() error { return e.Err }

// Send delivers e to d: signed, retried as the package documentation says, within ctx.
func (w *Webhook) Send(ctx context.Context, d Destination, e Event) error {
	u, err := url.Parse(d.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return &DeliveryError{Permanent: true, Err: errors.New("the webhook URL is not an absolute http(s) URL")}
	}
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("notify: encoding event %s: %w", e.ID, err)
	}
	attempts := orInt(w.Attempts, DefaultAttempts)
	derr := &DeliveryError{}
	for attempt := 1; ; attempt++ {
		derr.Attempts = attempt
		wait, retry := w.attempt(ctx, d, e.ID, body, derr)
		if derr.Status >= 200 && derr.Status < 300 {
			return nil
		}
		if !retry || attempt == attempts {
			return derr
		}
		if wait == 0 {
			wait = w.backoff(attempt)
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return derr // the next attempt would start after ctx ends
		}
		if err := w.sleep(ctx, wait); err != nil {
			derr.Err = err
			return derr
		}
	}
}

// attempt makes one request and records its outcome in derr. It returns whether to retry
// and, when the receiver said so with Retry-After, how long to wait first.
func (w *Webhook) attempt(ctx context.Context, d Destination, id string, body []byte, derr *DeliveryError) (time.Duration, bool) {
	ctx, cancel := context.WithTimeout(ctx, orDuration(w.AttemptTimeout, DefaultAttemptTimeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
	if err != nil {
		derr.Status, derr.Err, derr.Permanent = 0, errors.New("the webhook URL is not valid"), true
		return 0, false
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	ts := now()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", orString(w.UserAgent, "evalapi-webhooks/1"))
	req.Header.Set(HeaderID, id)
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(HeaderSignature, Sign(d.Secret, id, ts, body))
	resp, err := w.Client.Do(req)
	if err != nil {
		derr.Status, derr.Err = 0, withoutURL(err)
		if ctxErr := context.Cause(ctx); ctxErr != nil && errors.Is(ctxErr, context.Canceled) {
			return 0, false // the caller gave up
		}
		derr.Permanent = w.IsPermanent != nil && w.IsPermanent(err)
		return 0, !derr.Permanent
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	derr.Status, derr.Err = resp.StatusCode, nil
	switch {
	case resp.StatusCode == http.StatusRequestTimeout, resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode >= 500:
	default:
		derr.Permanent = resp.StatusCode >= 300 // a 2xx is no failure
		return 0, false
	}
	wait, ok := retryAfter(resp.Header.Get("Retry-After"), ts)
	if !ok {
		return 0, true
	}
	if wait > orDuration(w.MaxDelay, DefaultMaxDelay) {
		return 0, false // the receiver asks for more patience than a run has: give up now, not permanently
	}
	return max(wait, time.Nanosecond), true
}

// backoff is the wait after the attempt-th failure: BaseDelay doubled per attempt, capped
// at MaxDelay, with "equal jitter" (half fixed, half random) so that receivers recovering
// from an outage are not hit by every sender at once.
func (w *Webhook) backoff(attempt int) time.Duration {
	base, maxDelay := orDuration(w.BaseDelay, DefaultBaseDelay), orDuration(w.MaxDelay, DefaultMaxDelay)
	d := base
	for i := 1; i < attempt && d < maxDelay; i++ {
		d *= 2
	}
	d = min(d, maxDelay)
	jitter := rand.Float64
	if w.Jitter != nil {
		jitter = w.Jitter
	}
	return d/2 + time.Duration(jitter()*float64(d/2))
}

func (w *Webhook) sleep(ctx context.Context, d time.Duration) error {
	if w.Sleep != nil {
		return w.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date (relative to now).
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// withoutURL drops the URL that *url.Error puts in its message: a hook URL's path or query
// often is its secret.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

func orInt(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

func orDuration(v, d time.Duration) time.Duration {
	if v > 0 {
		return v
	}
	return d
}

func orString(v, d string) string {
	if v != "" {
		return v
	}
	return d
}
