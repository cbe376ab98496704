package payload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/evalobs/evalapi/shared/awscall"
)

// S3 is a Store in an S3 bucket. It speaks the three object calls it needs as signed
// requests (awscall) instead of linking the S3 client, which would add megabytes to every
// function that reads a record.
type S3 struct {
	Bucket      string
	Region      string
	Credentials aws.CredentialsProvider
	// Endpoint is an emulator's base URL (moto), addressed path-style; empty is AWS,
	// addressed virtual-hosted style.
	Endpoint string
	// Client sends the requests; nil: awscall's shared client. A request lasts as long as
	// its context allows.
	Client *http.Client

	once   sync.Once
	signer *awscall.Signer
}

func (s *S3) url(key string) string {
	esc := (&url.URL{Path: key}).EscapedPath()
	if s.Endpoint != "" {
		return strings.TrimRight(s.Endpoint, "/") + "/" + s.Bucket + "/" + strings.TrimPrefix(esc, "/")
	}
	// The regional endpoint (amazonaws.com.cn in the China regions), virtual-hosted.
	host := strings.TrimPrefix(s.sign().URL("s3"), "https://")
	return "https://" + s.Bucket + "." + host + "/" + strings.TrimPrefix(esc, "/")
}

// sign is the signer of the bucket's region, built once.
func (s *S3) sign() *awscall.Signer {
	s.once.Do(func() {
		s.signer = awscall.NewSigner(s.Region, s.Credentials)
		s.signer.HTTP = s.Client
	})
	return s.signer
}

func (s *S3) do(ctx context.Context, method, key string, body []byte) (*awscall.Response, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("payload: bad key %q", key)
	}
	if body == nil {
		body = []byte{}
	}
	// S3 wants the payload's hash in a header of its own, besides the signature's.
	sum := sha256.Sum256(body)
	resp, err := s.sign().Send(ctx, "s3", method, s.url(key), map[string]string{"X-Amz-Content-Sha256": hex.EncodeToString(sum[:])}, body)
	if err != nil {
		return nil, fmt.Errorf("payload: %s %s: %w", method, key, err)
	}
	return resp, nil
}

// failed is an error answer's error, without its body (it may name the bucket's internals).
func failed(resp *awscall.Response, method, key string) error {
	return fmt.Errorf("payload: %s %s: S3 answered %d", method, key, resp.Status)
}

func (s *S3) Put(ctx context.Context, key string, data []byte) error {
	resp, err := s.do(ctx, http.MethodPut, key, data)
	if err != nil {
		return err
	}
	if resp.Status/100 != 2 {
		return failed(resp, "PUT", key)
	}
	return nil
}

func (s *S3) Get(ctx context.Context, key string) ([]byte, error) {
	resp, err := s.do(ctx, http.MethodGet, key, nil)
	if err != nil {
		return nil, err
	}
	if resp.Status == http.StatusNotFound {
		return nil, fmt.Errorf("payload %s: %w", key, ErrNotFound)
	}
	if resp.Status/100 != 2 {
		return nil, failed(resp, "GET", key)
	}
	return resp.Body, nil
}

func (s *S3) Delete(ctx context.Context, key string) error {
	resp, err := s.do(ctx, http.MethodDelete, key, nil)
	if err != nil {
		return err
	}
	if resp.Status/100 != 2 && resp.Status != http.StatusNotFound {
		return failed(resp, "DELETE", key)
	}
	return nil
}
