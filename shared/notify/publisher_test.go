package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

type publisherFunc func(context.Context, Event) error

func (f publisherFunc) Publish(ctx context.Context, e Event) error { return f(ctx, e) }

func TestWebhookPublisher(t *testing.T) {
	r := newReceiver(t, status(http.StatusOK))
	var asked []string
	pub := WebhookPublisher{Webhook: newWebhook(&sleeps{}, nil), Destination: func(_ context.Context, e Event) (Destination, bool, error) {
		asked = append(asked, e.Data.ConfigurationID)
		if e.Data.ConfigurationID == "no-hook" {
			return Destination{}, false, nil
		}
		return Destination{URL: r.srv.URL, Secret: testKey}, true, nil
	}}
	e := testEvent()
	if err := pub.Publish(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	e.Data.ConfigurationID = "no-hook"
	if err := pub.Publish(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	if got := r.requests(); len(got) != 1 || !got[0].verified || strings.Join(asked, ",") != "c-1,no-hook" {
		t.Errorf("requests %+v, asked %v", got, asked)
	}
	lookup := errors.New("secret unavailable")
	pub.Destination = func(context.Context, Event) (Destination, bool, error) { return Destination{}, false, lookup }
	if err := pub.Publish(context.Background(), e); !errors.Is(err, lookup) {
		t.Errorf("Publish = %v; want the lookup error", err)
	}
}

func TestLogPublisher(t *testing.T) {
	var buf bytes.Buffer
	if err := (LogPublisher{Logger: slog.New(slog.NewJSONHandler(&buf, nil))}).Publish(context.Background(), testEvent()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`"event_id":"finding_f-1"`, `"severity":"HIGH"`, `"title":"Tool calls time out"`, `"traces":2`, `"configuration_id":"c-1"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log %s lacks %s", out, want)
		}
	}
	if strings.Contains(out, "Half of the traces") {
		t.Errorf("log %s carries the description", out)
	}
}

func TestPublishers(t *testing.T) {
	first, third := errors.New("first"), errors.New("third")
	var calls int
	ps := Publishers{
		publisherFunc(func(context.Context, Event) error { calls++; return first }),
		publisherFunc(func(context.Context, Event) error { calls++; return nil }),
		publisherFunc(func(context.Context, Event) error { calls++; return third }),
	}
	err := ps.Publish(context.Background(), testEvent())
	if calls != 3 || !errors.Is(err, first) || !errors.Is(err, third) {
		t.Errorf("Publish = %v after %d calls", err, calls)
	}
	if err := (Publishers{}).Publish(context.Background(), testEvent()); err != nil {
		t.Errorf("no publishers: %v", err)
	}
}

func TestSecretRedacted(t *testing.T) {
	key, err := ParseSecret(NewSecret())
	if err != nil || len(key) != 32 {
		t.Fatalf("ParseSecret(NewSecret()) = %d bytes, %v", len(key), err)
	}
	d := Destination{URL: "https://hooks.example.com/T0/secret-path?sig=abc", Secret: key}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "dest", d, "key", key)
	shown := fmt.Sprintf("%v %+v %#v %s %x %q", d, d, d, key, key, key) + logs.String()
	for _, leak := range []string{"secret-path", "sig=abc", string(key), fmt.Sprintf("%x", []byte(key))} {
		if strings.Contains(shown, leak) {
			t.Errorf("%q shows %q", shown, leak)
		}
	}
	if !strings.Contains(shown, "hooks.example.com") {
		t.Errorf("%q does not name the host", shown)
	}
	for _, bad := range []string{"", "whsec_", "whsec_!!!", "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0", "whsec_c2hvcnQ="} {
		if _, err := ParseSecret(bad); err == nil {
			t.Errorf("ParseSecret(%q) accepted", bad)
		}
	}
}

// TestSignKnownAnswer pins the signature scheme to a value computed outside Go:
//
//	python3 -c 'import hmac,hashlib,base64; print(base64.b64encode(hmac.new(b"0123456789abcdef0123456789abcdef",
//	  b"msg_1.1700000000.{\"a\":1}", hashlib.sha256).digest()).decode())'
func TestSignKnownAnswer(t *testing.T) {
	got := Sign(testKey, "msg_1", testUnix(1700000000), []byte(`{"a":1}`))
	if got != "v1,"+knownSignature {
		t.Errorf("Sign = %s; want v1,%s", got, knownSignature)
	}
}

const knownSignature = "rkwp5YuvdrMkcu0ZhuMsXoTg44mHAr1Q0+FFgFpXsjY="

func testUnix(s int64) time.Time { return time.Unix(s, 0) }
