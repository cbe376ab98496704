package payload

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
)

// conformance holds every adapter to the same behaviour.
func conformance(t *testing.T, s Store) {
	ctx := t.Context()
	key := "org/run/" + uuid.NewString() + "/input"
	big := bytes.Repeat([]byte(`{"role":"user","content":"x"}`), 50000)
	if err := s.Put(ctx, key, big); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, key)
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("get: %d bytes, %v", len(got), err)
	}
	if err := s.Put(ctx, key, []byte("v2")); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, key); string(got) != "v2" {
		t.Fatalf("overwrite: %q", got)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, key); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatalf("delete twice: %v", err)
	}
	for _, bad := range []string{"", "../etc/passwd", "a//b", "a/./b", "a b", "a/\x00"} {
		if err := s.Put(ctx, bad, []byte("x")); err == nil {
			t.Errorf("key %q accepted", bad)
		}
	}
}

func TestMemory(t *testing.T) { conformance(t, NewMemory()) }

func TestDir(t *testing.T) {
	d, err := NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	conformance(t, d)
}

// The bucket's URL is virtual-hosted at the region's endpoint, amazonaws.com.cn in China.
func TestS3URL(t *testing.T) {
	for region, want := range map[string]string{
		"eu-west-1":  "https://b.s3.eu-west-1.amazonaws.com/a/k%20x",
		"cn-north-1": "https://b.s3.cn-north-1.amazonaws.com.cn/a/k%20x",
	} {
		if got := (&S3{Bucket: "b", Region: region}).url("a/k x"); got != want {
			t.Errorf("%s: %s, want %s", region, got, want)
		}
	}
	if got := (&S3{Bucket: "b", Region: "us-east-1", Endpoint: "http://127.0.0.1:5000/"}).url("k"); got != "http://127.0.0.1:5000/b/k" {
		t.Errorf("emulator: %s", got)
	}
}

// TestS3 runs the adapter against moto's S3 (make test starts it; under CI=true a missing
// moto fails the test).
func TestS3(t *testing.T) {
	endpoint := testenv.Moto(t)
	s := &S3{Bucket: "payloads-" + strings.ToLower(uuid.NewString()[:8]), Region: "us-east-1", Endpoint: endpoint,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("test", "test", ""))}
	createBucket(t, s)
	conformance(t, s)
}

// createBucket makes the bucket with a signed PUT (the adapter does not create buckets: the
// stack does).
func createBucket(t *testing.T, s *S3) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	resp, err := s.sign().Send(ctx, "s3", http.MethodPut, strings.TrimRight(s.Endpoint, "/")+"/"+s.Bucket,
		map[string]string{"X-Amz-Content-Sha256": empty}, []byte{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status/100 != 2 {
		t.Fatalf("create bucket: %d", resp.Status)
	}
}
