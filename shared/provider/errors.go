package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/egress"
)

// Class is the error type a failure records, as traces already carry them.
type Class string

const (
	ClassRateLimit      Class = "rate_limit_error"      // 429 after the retries
	ClassAPI            Class = "llm_api_error"         // 5xx, timeouts, refused requests
	ClassCredentials    Class = "credentials_error"     // 401/403, the token endpoint refused
	ClassDataValidation Class = "data_validation_error" // an answer that cannot be read
	ClassConfiguration  Class = "configuration_error"   // bad target, refused address, unknown model
)

// Error is every failure of a call. Its message names the class, the status and the
// attempts, never a credential and never what the provider sent.
type Error struct {
	Class Class
	// Status is the last HTTP status seen (0 when none: a transport failure).
	Status int
	// Retryable says whether the same call may succeed later (rate limits, 5xx, timeouts):
	// the caller may put the work back on its queue.
	Retryable bool
	// RetryAfter is the wait the provider asked for, if any (possibly longer than the
	// call's deadline allowed waiting).
	RetryAfter time.Duration
	Attempts   int
	msg        string // fixed text chosen here
	tokenURL   bool   // the OAuth2 token endpoint failed, not the model
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Class))
	b.WriteString(": ")
	b.WriteString(e.msg)
	if e.Status != 0 {
		fmt.Fprintf(&b, " (status %d)", e.Status)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	return b.String()
}

// Message is the error's text without the class, for a record's error message.
func (e *Error) Message() string {
	s := e.Error()
	return strings.TrimPrefix(s, string(e.Class)+": ")
}

// Errorf returns an *Error of class c with a fixed message (callers must not format
// credentials or provider text into it).
func Errorf(c Class, format string, args ...any) *Error {
	return &Error{Class: c, msg: fmt.Sprintf(format, args...)}
}

// AsError returns err as an *Error: itself when it is one, else an llm_api_error.
func AsError(err error) *Error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return &Error{Class: ClassAPI, msg: "provider call failed"}
}

// statusError classifies an HTTP answer that is not 200.
func statusError(status int, retryAfter time.Duration) *Error {
	e := &Error{Status: status, RetryAfter: retryAfter}
	switch {
	case status == http.StatusTooManyRequests:
		e.Class, e.Retryable, e.msg = ClassRateLimit, true, "the provider is rate limiting"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Class, e.msg = ClassCredentials, "the provider refused the credentials"
	case status == http.StatusNotFound:
		e.Class, e.msg = ClassConfiguration, "the provider does not know this endpoint, deployment or model"
	case status >= 300 && status < 400:
		e.Class, e.msg = ClassConfiguration, "the provider answered with a redirect, which is not followed"
	case status == http.StatusRequestTimeout || status >= 500:
		e.Class, e.Retryable, e.msg = ClassAPI, true, "the provider failed"
	default:
		e.Class, e.msg = ClassAPI, "the provider refused the request"
	}
	return e
}

// transportError classifies a failure to get an answer at all.
func transportError(err error) *Error {
	var ne net.Error
	switch {
	case errors.Is(err, egress.ErrRefusedAddress):
		return &Error{Class: ClassConfiguration, msg: "the endpoint's address is private, loopback, link-local or otherwise reserved"}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &Error{Class: ClassAPI, Retryable: true, msg: "the provider did not answer in time"}
	case errors.Is(err, context.Canceled):
		return &Error{Class: ClassAPI, Retryable: true, msg: "the call was cancelled"}
	}
	return &Error{Class: ClassAPI, Retryable: true, msg: "could not reach the provider"}
}

// maxRetryAfter caps what a provider may ask for: a larger value is taken as this one.
const maxRetryAfter = 10 * time.Minute

// parseRetryAfter reads retry-after-ms (milliseconds, as some vendors send) or Retry-After
// (seconds or an HTTP date); zero when absent or unreadable.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return min(time.Duration(ms*float64(time.Millisecond)), maxRetryAfter)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return min(time.Duration(s*float64(time.Second)), maxRetryAfter)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, maxRetryAfter)
		}
	}
	return 0
}

// ErrorType is the error's class as the records name it (signals' TypedError).
func (e *Error) ErrorType() string { return string(e.Class) }
