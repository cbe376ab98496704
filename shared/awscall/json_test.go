package awscall

import (
	"context"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
)

// script answers each request with the next of its answers and records what it got.
type script struct {
	mu      sync.Mutex
	answers []answer
	got     []*http.Request
	bodies  []string
}

type answer struct {
	status int
	body   string
	crc    string // X-Amz-Crc32 to send; "" none, "ok" the right one
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := io.ReadAll(r.Body)
	s.got = append(s.got, r)
	s.bodies = append(s.bodies, string(b))
	a := answer{status: 200, body: "{}"}
	if len(s.answers) > 0 {
		a, s.answers = s.answers[0], s.answers[1:]
	}
	switch a.crc {
	case "":
	case "ok":
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(a.body))), 10))
	default:
		w.Header().Set("X-Amz-Crc32", a.crc)
	}
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

func testClient(t *testing.T, s *script) *JSON {
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	signer := NewSigner("eu-west-1", credentials.NewStaticCredentialsProvider("AKID", "SECRET", "TOKEN"))
	c := DynamoDB(signer, srv.URL)
	return c
}

func TestCallSignsAndDecodes(t *testing.T) {
	s := &script{answers: []answer{{status: 200, body: `{"Count":2}`, crc: "ok"}}}
	c := testClient(t, s)
	var out struct{ Count int }
	if err := c.Call(t.Context(), "Query", map[string]string{"TableName": "t"}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Count != 2 {
		t.Errorf("Count = %d", out.Count)
	}
	r := s.got[0]
	for h, want := range map[string]string{
		"X-Amz-Target":         "DynamoDB_20120810.Query",
		"Content-Type":         "application/x-amz-json-1.0",
		"X-Amz-Security-Token": "TOKEN",
		"Accept-Encoding":      "identity",
	} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if auth := r.Header.Get("Authorization"); !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKID/") ||
		!strings.Contains(auth, "/eu-west-1/dynamodb/aws4_request") {
		t.Errorf("Authorization = %q", auth)
	}
	if s.bodies[0] != `{"TableName":"t"}` || r.Method != http.MethodPost || r.URL.Path != "/" {
		t.Errorf("request %s %s %s", r.Method, r.URL.Path, s.bodies[0])
	}
}

func TestCallRetries(t *testing.T) {
	throttled := answer{status: 400, body: `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}`}
	for _, tc := range []struct {
		name    string
		answers []answer
		calls   int
		code    string // "" success
	}{
		{"throttled then ok", []answer{throttled, {status: 200, body: `{}`}}, 2, ""},
		{"server error then ok", []answer{{status: 500, body: `{}`}, {status: 200, body: `{}`}}, 2, ""},
		{"damaged answer then ok", []answer{{status: 200, body: `{}`, crc: "1"}, {status: 200, body: `{}`, crc: "ok"}}, 2, ""},
		{"throttled three times", []answer{throttled, throttled, throttled, {status: 200}}, 3, "ProvisionedThroughputExceededException"},
		{"validation is not retried", []answer{{status: 400, body: `{"__type":"ValidationException","message":"bad"}`}}, 1, "ValidationException"},
		{"condition is not retried", []answer{{status: 400, body: `{"__type":"x#ConditionalCheckFailedException"}`}}, 1, "ConditionalCheckFailedException"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{answers: tc.answers}
			err := testClient(t, s).Call(t.Context(), "PutItem", nil, nil)
			if len(s.got) != tc.calls {
				t.Errorf("%d requests, want %d", len(s.got), tc.calls)
			}
			if tc.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.ErrorCode() != tc.code {
				t.Fatalf("err = %v, want code %s", err, tc.code)
			}
			if !IsCode(err, tc.code) || IsCode(err, "Other") {
				t.Errorf("IsCode wrong for %v", err)
			}
		})
	}
}

// TestErrorsCarryNoBody: an answer's body (Secrets Manager's could hold a value) is never in
// an error's text, and a client that hides messages shows only the code.
func TestErrorsCarryNoBody(t *testing.T) {
	const canary = "canary-7f3e"
	body := `{"__type":"InvalidRequestException","Message":"about ` + canary + `","Extra":"` + canary + `"}`
	s := &script{answers: []answer{{status: 400, body: body}, {status: 400, body: body}}}
	c := testClient(t, s)
	err := c.Call(t.Context(), "GetSecretValue", nil, nil)
	if err == nil || strings.Count(err.Error(), canary) != 1 || !strings.Contains(err.Error(), "InvalidRequestException") {
		t.Fatalf("visible message: %v", err)
	}
	c.HideMessages = true
	err = c.Call(t.Context(), "GetSecretValue", nil, nil)
	if err == nil || strings.Contains(err.Error(), canary) {
		t.Fatalf("hidden message: %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.ErrorMessage() != "about "+canary || !strings.Contains(string(e.ErrorBody()), canary) {
		t.Errorf("the message and body stay readable to the caller: %+v", e)
	}
}

func TestCallStopsWithContext(t *testing.T) {
	s := &script{answers: []answer{{status: 503}, {status: 503}, {status: 503}}}
	c := testClient(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Call(ctx, "GetItem", nil, nil); err == nil {
		t.Fatal("a canceled call succeeded")
	}
	if len(s.got) > 1 {
		t.Errorf("%d requests after cancel", len(s.got))
	}
}

func TestErrorCodeForms(t *testing.T) {
	for body, want := range map[string]string{
		`{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"}`: "ResourceNotFoundException",
		`{"code":"AccessDeniedException"}`:                                        "AccessDeniedException",
		`not json`:                                                                "Bad Request",
	} {
		s := &script{answers: []answer{{status: 400, body: body}}}
		err := testClient(t, s).Call(t.Context(), "Op", nil, nil)
		if !IsCode(err, want) {
			t.Errorf("%s: %v, want code %s", body, err, want)
		}
	}
}

func TestRegionalURL(t *testing.T) {
	for region, want := range map[string]string{
		"eu-west-1":     "https://dynamodb.eu-west-1.amazonaws.com",
		"us-gov-west-1": "https://dynamodb.us-gov-west-1.amazonaws.com",
		"cn-north-1":    "https://dynamodb.cn-north-1.amazonaws.com.cn",
	} {
		if got := NewSigner(region, nil).URL("dynamodb"); got != want {
			t.Errorf("%s: %s, want %s", region, got, want)
		}
	}
}
