package payload

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// S3 is a Store in an S3 bucket. It speaks the three object calls it needs over plain HTTP
// with Signature Version 4 (the SDK's signer) instead of linking the S3 client, which would
// add megabytes to every function that reads a record.
type S3 struct {
	Bucket      string
	Region      string
	Credentials aws.CredentialsProvider
	// Endpoint is an emulator's base URL (moto), addressed path-style; empty is AWS,
	// addressed virtual-hosted style.
	Endpoint string
	Client   *http.Client // default: 30 s timeout
	signer   *v4.Signer
}

func (s *S3) url(key string) string {
	esc := (&url.URL{Path: key}).EscapedPath()
	if s.Endpoint != "" {
		return strings.TrimRight(s.Endpoint, "/") + "/" + s.Bucket + "/" + strings.TrimPrefix(esc, "/")
	}
	return "https://" + s.Bucket + ".s3." + s.Region + ".amazonaws.com/" + strings.TrimPrefix(esc, "/")
}

func (s *S3) do(ctx context.Context, method, key string, body []byte) (*http.Response, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("payload: bad key %q", key)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.url(key), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	req.ContentLength = int64(len(body))
	creds, err := s.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("payload: credentials: %w", err)
	}
	if s.signer == nil {
		s.signer = newSigner()
	}
	if err := s.signer.SignHTTP(ctx, creds, req, hash, "s3", s.Region, time.Now()); err != nil {
		return nil, fmt.Errorf("payload: sign: %w", err)
	}
	c := s.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("payload: %s %s: %w", method, key, err)
	}
	return resp, nil
}

// failed reads an error answer without echoing it (it may name the bucket's internals).
func failed(resp *http.Response, method, key string) error {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	return fmt.Errorf("payload: %s %s: S3 answered %d", method, key, resp.StatusCode)
}

func (s *S3) Put(ctx context.Context, key string, data []byte) error {
	resp, err := s.do(ctx, http.MethodPut, key, data)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return failed(resp, "PUT", key)
	}
	return nil
}

func (s *S3) Get(ctx context.Context, key string) ([]byte, error) {
	resp, err := s.do(ctx, http.MethodGet, key, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("payload %s: %w", key, ErrNotFound)
	}
	if resp.StatusCode/100 != 2 {
		return nil, failed(resp, "GET", key)
	}
	return io.ReadAll(resp.Body)
}

func (s *S3) Delete(ctx context.Context, key string) error {
	resp, err := s.do(ctx, http.MethodDelete, key, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusNotFound {
		return failed(resp, "DELETE", key)
	}
	return nil
}

func newSigner() *v4.Signer { return v4.NewSigner() }
