package awssm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/secrets/secretstest"
)

const testPrefix = "evalapi/test/"

// newTestStore returns a store over fake whose backoff waits are recorded, not slept.
func newTestStore(t *testing.T, fake *fakeSM) (*Store, *[]time.Duration) {
	t.Helper()
	s, err := New(fake, testPrefix)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	s.sleep = func(ctx context.Context, d time.Duration) error {
		waits = append(waits, d)
		return ctx.Err()
	}
	return s, &waits
}

func TestConformanceFake(t *testing.T) {
	secretstest.Run(t, func(t *testing.T) secrets.Store {
		s, _ := newTestStore(t, newFake())
		return s
	})
}

func TestPutRequests(t *testing.T) {
	fake := newFake()
	s, _ := newTestStore(t, fake)
	ctx := t.Context()
	ref, err := s.Put(ctx, "openai/u1", []byte("sk-text"), map[string]string{"org": "o1", "kind": "integration"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ref, "arn:aws:secretsmanager:") {
		t.Errorf("ref = %q, want an ARN", ref)
	}
	in := fake.createInputs[0]
	if got := aws.ToString(in.Name); got != testPrefix+"openai/u1" {
		t.Errorf("Name = %q", got)
	}
	if aws.ToString(in.SecretString) != "sk-text" || in.SecretBinary != nil {
		t.Errorf("text went as SecretString %v, SecretBinary %v", in.SecretString != nil, in.SecretBinary != nil)
	}
	var tags []string
	for _, tg := range in.Tags {
		tags = append(tags, aws.ToString(tg.Key)+"="+aws.ToString(tg.Value))
	}
	if got := strings.Join(tags, ","); got != "kind=integration,org=o1" {
		t.Errorf("Tags = %s", got)
	}

	ref2, err := s.Put(ctx, "openai/u1", []byte{0xff, 0x00}, nil)
	if err != nil || ref2 != ref {
		t.Fatalf("second Put = %q, %v; want %q", ref2, err, ref)
	}
	if got := fake.callLog(); got != "CreateSecret,CreateSecret,PutSecretValue" {
		t.Errorf("calls = %s", got)
	}
	sec := fake.secrets[testPrefix+"openai/u1"]
	if sec.str != nil || string(sec.bin) != "\xff\x00" {
		t.Errorf("bytes that are not UTF-8 went as SecretString %v, SecretBinary %v", sec.str != nil, sec.bin != nil)
	}
}

func TestPutWhileDeleting(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pending   int
		phantom   int
		wantErr   bool
		wantWaits []time.Duration
	}{
		{"no wait", 0, 0, false, nil},
		{"two refusals", 2, 0, false, []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{"gives up", 100, 0, true, []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}},
		{"deleted between create and put", 0, 1, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake()
			fake.pendingDeletion, fake.phantom = tc.pending, tc.phantom
			s, waits := newTestStore(t, fake)
			ref, err := s.Put(t.Context(), "n", []byte("v"), nil)
			if tc.wantErr {
				var ire *types.InvalidRequestException
				if !errors.As(err, &ire) {
					t.Fatalf("Put = %q, %v; want the InvalidRequestException", ref, err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(*waits, tc.wantWaits) {
				t.Errorf("waits = %v, want %v", *waits, tc.wantWaits)
			}
		})
	}
}

func TestPutCanceledWhileWaiting(t *testing.T) {
	fake := newFake()
	fake.pendingDeletion = 100
	s, _ := newTestStore(t, fake)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Put(ctx, "n", []byte("v"), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put = %v, want context.Canceled", err)
	}
	if got := fake.callLog(); got != "CreateSecret" {
		t.Errorf("calls = %s, want one CreateSecret", got)
	}
}

func TestErrorMapping(t *testing.T) {
	internal := opErr("Any", &types.InternalServiceError{Message: aws.String("boom")})
	for _, tc := range []struct {
		name         string
		fail         error
		getNotFound  bool
		deleteErrNil bool
	}{
		{"not found", notFound("Any"), true, true},
		{"marked for deletion", invalidRequest("Any"), true, false},
		{"internal", internal, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake()
			fake.fail = tc.fail
			s, _ := newTestStore(t, fake)
			_, err := s.Get(t.Context(), "arn:x")
			if errors.Is(err, secrets.ErrNotFound) != tc.getNotFound || !errors.Is(err, tc.fail) {
				t.Errorf("Get = %v; want ErrNotFound %v, wrapping the SDK error", err, tc.getNotFound)
			}
			err = s.Delete(t.Context(), "arn:x")
			if (err == nil) != tc.deleteErrNil {
				t.Errorf("Delete = %v; want nil: %v", err, tc.deleteErrNil)
			}
			if _, err := s.Put(t.Context(), "n", []byte("v"), nil); err == nil {
				t.Error("Put succeeded over a failing client")
			}
		})
	}
}

type staticGet struct {
	Client
	out *secretsmanager.GetSecretValueOutput
}

func (g staticGet) Call(_ context.Context, op string, _, out any) error {
	if op != "GetSecretValue" {
		return fmt.Errorf("unexpected %s", op)
	}
	b, err := json.Marshal(g.out)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func TestGetForms(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  secretsmanager.GetSecretValueOutput
		want string
	}{
		{"string", secretsmanager.GetSecretValueOutput{SecretString: aws.String("txt")}, "txt"},
		{"binary", secretsmanager.GetSecretValueOutput{SecretBinary: []byte{1, 2}}, "\x01\x02"},
		{"binary wins", secretsmanager.GetSecretValueOutput{SecretBinary: []byte("b"), SecretString: aws.String("s")}, "b"},
		{"neither", secretsmanager.GetSecretValueOutput{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(staticGet{out: &tc.out}, "")
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(t.Context(), "arn:x")
			if tc.want == "" {
				if err == nil || errors.Is(err, secrets.ErrNotFound) {
					t.Fatalf("Get = %q, %v; want an error other than ErrNotFound", got, err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("Get = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestNameLengthCountsPrefix(t *testing.T) {
	s, _ := newTestStore(t, newFake())
	fits := strings.Repeat("n", secrets.MaxNameLen-len(testPrefix))
	if _, err := s.Put(t.Context(), fits, []byte("v"), nil); err != nil {
		t.Errorf("Put of a name that fits with the prefix: %v", err)
	}
	if _, err := s.Put(t.Context(), fits+"n", []byte("v"), nil); !errors.Is(err, secrets.ErrInvalidName) {
		t.Errorf("Put of a name one byte too long with the prefix: %v, want ErrInvalidName", err)
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix string
		ok     bool
	}{
		{"plain", "evalapi/dev/", true},
		{"empty prefix", "", true},
		{"bad prefix", "evalapi dev/", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(newFake(), tc.prefix)
			if (err == nil) != tc.ok {
				t.Errorf("New = %v, want ok %v", err, tc.ok)
			}
		})
	}
}
