// Package awscall calls AWS services with requests signed by Signature Version 4 (the SDK's
// signer), without the SDK's generated service clients.
//
// Each generated client (DynamoDB, Secrets Manager, SQS, Scheduler, ...) adds 0.2 to 0.6 MB
// and its own endpoint tables and package initialisers to a Lambda bootstrap, for the
// handful of operations a function makes; size and initialisers are part of every cold
// start. A JSON-protocol operation is one signed POST, so it is written here once: Signer
// signs and sends a request, JSON calls an operation of a JSON-protocol service with the
// SDK's standard retry rules.
//
// Nothing here logs, and an error never carries a request or response body: Secrets
// Manager's bodies hold secret values.
package awscall

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// MaxBody bounds the answer read from a service: DynamoDB's largest (a 1 MB query page or a
// batch of 100 items of 400 KB, 16 MB at most) with room to spare.
const MaxBody = 32 << 20

// Signer signs requests for the services of one region and sends them.
type Signer struct {
	Region      string
	Credentials aws.CredentialsProvider
	// HTTP sends the requests; nil: a client shared by the process (DefaultHTTP).
	HTTP   *http.Client
	signer *v4.Signer
}

// NewSigner returns a signer for region with creds. A Signer is safe for concurrent use.
func NewSigner(region string, creds aws.CredentialsProvider) *Signer {
	return &Signer{Region: region, Credentials: creds, signer: v4.NewSigner()}
}

// URL is the regional endpoint of service: amazonaws.com, or amazonaws.com.cn in the China
// regions (the other partitions' regions, GovCloud's included, use amazonaws.com too).
func (s *Signer) URL(service string) string {
	if strings.HasPrefix(s.Region, "cn-") {
		return "https://" + service + "." + s.Region + ".amazonaws.com.cn"
	}
	return "https://" + service + "." + s.Region + ".amazonaws.com"
}

// DefaultHTTP is the HTTP client of signers that are given none: keep-alive connections, a
// few per host more than net/http's two (a function's requests to DynamoDB run in parallel).
// Like the SDK's client it sets no deadline of its own: a request lasts as long as its
// context allows (the Lambda invocation's), since a deadline shorter than a slow answer would
// only send the same write again.
var DefaultHTTP = &http.Client{
	Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	},
}

// Response is a service's answer, read in full.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do signs req (its body is body, which may be nil) for service and sends it. The answer is
// read whole; any status is returned as a Response, only a failure to send or read is an
// error.
func (s *Signer) Do(ctx context.Context, service string, req *http.Request, body []byte) (*Response, error) {
	req = req.WithContext(ctx)
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	if err := s.Sign(ctx, service, req, body); err != nil {
		return nil, err
	}
	c := s.HTTP
	if c == nil {
		c = DefaultHTTP
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// Sign adds the Signature Version 4 headers for service to req, whose body is body.
func (s *Signer) Sign(ctx context.Context, service string, req *http.Request, body []byte) error {
	signer := s.signer
	if signer == nil { // a Signer built as a literal: the signing keys are derived anew
		signer = v4.NewSigner()
	}
	sum := sha256.Sum256(body)
	creds, err := s.Credentials.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	if err := signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), service, s.Region, time.Now()); err != nil {
		return fmt.Errorf("signing: %w", err)
	}
	return nil
}

// Post is Do of a POST of body to url with headers.
func (s *Signer) Post(ctx context.Context, service, url string, headers map[string]string, body []byte) (*Response, error) {
	return s.Send(ctx, service, http.MethodPost, url, headers, body)
}

// Send is Do of a request of method to url with headers and body.
func (s *Signer) Send(ctx context.Context, service, method, url string, headers map[string]string, body []byte) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return s.Do(ctx, service, req, body)
}
