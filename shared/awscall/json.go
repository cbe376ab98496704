package awscall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// JSON calls the operations of one service over the AWS JSON protocol (awsJson1_0 or
// awsJson1_1): a signed POST of the input as JSON, with X-Amz-Target naming the operation.
type JSON struct {
	*Signer
	Service string // signing name and endpoint label: "dynamodb"
	Target  string // X-Amz-Target's prefix: "DynamoDB_20120810"
	Version string // the protocol's content type version: "1.0" or "1.1"
	// Endpoint replaces the service's regional endpoint (emulators, tests).
	Endpoint string
	// Attempts bounds the sends of one call (retries of throttling, server errors and lost
	// connections); 0: 3, the SDK's standard retryer's.
	Attempts int
	// HideMessages leaves the services' error messages out of Error() (they stay readable
	// with ErrorMessage): Secrets Manager's may name secrets.
	HideMessages bool
}

// DynamoDB is a client of DynamoDB's operations.
func DynamoDB(s *Signer, endpoint string) *JSON {
	return &JSON{Signer: s, Service: "dynamodb", Target: "DynamoDB_20120810", Version: "1.0", Endpoint: endpoint}
}

// SecretsManager is a client of Secrets Manager's operations; its errors never print the
// service's messages.
func SecretsManager(s *Signer, endpoint string) *JSON {
	return &JSON{Signer: s, Service: "secretsmanager", Target: "secretsmanager", Version: "1.1", Endpoint: endpoint,
		HideMessages: true}
}

// SQS is a client of SQS's operations (the JSON protocol) at endpoint, the queue URL's
// scheme and host.
func SQS(s *Signer, endpoint string) *JSON {
	return &JSON{Signer: s, Service: "sqs", Target: "AmazonSQS", Version: "1.0", Endpoint: endpoint}
}

// Call sends operation op with in encoded by encoding/json (nil: "{}") and decodes the
// answer into out (nil: ignored). A refusal of the service is an *Error.
func (c *JSON) Call(ctx context.Context, op string, in, out any) error {
	body := []byte("{}")
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("%s %s: encoding the input: %w", c.Service, op, err)
		}
	}
	headers := map[string]string{
		"Content-Type": "application/x-amz-json-" + c.Version,
		"X-Amz-Target": c.Target + "." + op,
		// The CRC32 DynamoDB sends is of the bytes on the wire: no transparent gzip.
		"Accept-Encoding": "identity",
	}
	url := c.Endpoint
	if url == "" {
		url = c.URL(c.Service)
	}
	url = strings.TrimRight(url, "/") + "/"
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	for attempt := 1; ; attempt++ {
		resp, err := c.Post(ctx, c.Service, url, headers, body)
		if err == nil {
			err = c.answer(op, resp, out)
		} else if ctx.Err() == nil {
			err = &sendError{err: fmt.Errorf("%s %s: %w", c.Service, op, err)}
		}
		if err == nil || attempt >= attempts || !retryable(err) || ctx.Err() != nil {
			return err
		}
		if serr := Sleep(ctx, backoff(attempt)); serr != nil {
			return errors.Join(err, serr)
		}
	}
}

// answer decodes a response: out from a 200, else the service's error.
func (c *JSON) answer(op string, resp *Response, out any) error {
	if want := resp.Header.Get("X-Amz-Crc32"); want != "" {
		if got := strconv.FormatUint(uint64(crc32.ChecksumIEEE(resp.Body)), 10); got != want {
			return &sendError{err: fmt.Errorf("%s %s: the answer's CRC32 is %s, not %s", c.Service, op, got, want)}
		}
	}
	if resp.Status != http.StatusOK {
		return c.apiError(op, resp)
	}
	if out == nil {
		return nil
	}
	var err error
	if u, ok := out.(json.Unmarshaler); ok {
		// An output that reads its answer itself does it in one pass (json.Unmarshal would
		// first check the whole text, a pass as long as a hand decoder's).
		err = u.UnmarshalJSON(resp.Body)
	} else {
		err = json.Unmarshal(resp.Body, out)
	}
	if err != nil {
		return fmt.Errorf("%s %s: decoding the answer: %w", c.Service, op, err)
	}
	return nil
}

func (c *JSON) apiError(op string, resp *Response) error {
	var e struct {
		Type     string `json:"__type"`
		Code     string `json:"code"`
		Message  string `json:"message"`
		Message2 string `json:"Message"`
	}
	_ = json.Unmarshal(resp.Body, &e)
	code := e.Type
	if code == "" {
		code = e.Code
	}
	if code == "" {
		code = resp.Header.Get("X-Amzn-Errortype")
	}
	// "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException" and
	// "ThrottlingException:http://internal.amazon.com/coral/..." are both the last name.
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	if i := strings.IndexByte(code, ':'); i >= 0 {
		code = code[:i]
	}
	if code == "" {
		code = http.StatusText(resp.Status)
	}
	msg := e.Message
	if msg == "" {
		msg = e.Message2
	}
	return &Error{Service: c.Service, Op: op, Code: code, Message: msg, Status: resp.Status, Body: resp.Body,
		hideMessage: c.HideMessages}
}

// Error is a service's refusal of an operation.
type Error struct {
	Service, Op string
	Code        string // "ConditionalCheckFailedException"
	Message     string
	Status      int
	// Body is the whole answer, for operations whose errors carry data (DynamoDB's
	// CancellationReasons). It is never printed.
	Body        []byte
	hideMessage bool
}

func (e *Error) Error() string {
	if e.hideMessage || e.Message == "" {
		return fmt.Sprintf("%s %s: %s (status %d)", e.Service, e.Op, e.Code, e.Status)
	}
	return fmt.Sprintf("%s %s: %s: %s (status %d)", e.Service, e.Op, e.Code, e.Message, e.Status)
}

// ErrorCode and ErrorMessage are smithy.APIError's, which callers match on.
func (e *Error) ErrorCode() string    { return e.Code }
func (e *Error) ErrorMessage() string { return e.Message }

// IsCode reports whether err is a service's refusal with one of codes.
func IsCode(err error, codes ...string) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	for _, c := range codes {
		if e.Code == c {
			return true
		}
	}
	return false
}

// sendError is a request that did not get an answer, or got a damaged one: worth another try.
type sendError struct{ err error }

func (e *sendError) Error() string { return e.err.Error() }
func (e *sendError) Unwrap() error { return e.err }

// retryable says whether another attempt may succeed: the SDK's standard retryer's rules
// (lost connections, throttling codes, server errors and timeouts).
func retryable(err error) bool {
	var se *sendError
	if errors.As(err, &se) {
		return true
	}
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
		"TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
		"RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled",
		"SlowDown", "PriorRequestNotComplete", "EC2ThrottledException",
		"RequestTimeout", "RequestTimeoutException", "InternalServerError", "InternalFailure", "ServiceUnavailable":
		return true
	}
	switch e.Status {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// backoff is the wait before attempt+1: full jitter over a window doubling from 50 ms, at
// most 2 s (DynamoDB's own guidance for throttled requests).
func backoff(attempt int) time.Duration {
	window := min(50*time.Millisecond<<min(attempt-1, 10), 2*time.Second)
	return time.Duration(rand.Int64N(int64(window))) + time.Millisecond
}

// Sleep waits d, or until ctx ends (its cause then).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// ErrorBody is the answer of the refusal (never printed).
func (e *Error) ErrorBody() []byte { return e.Body }
