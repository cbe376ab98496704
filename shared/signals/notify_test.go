package signals

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// receiver is a webhook receiver on 127.0.0.1 that verifies each delivery's signature the
// way the documentation tells a user to (raw body, id and timestamp, constant-time compare).
type receiver struct {
	mu       sync.Mutex
	key      []byte
	got      []notify.Event
	bad      int
	failures int // answer 503 to this many deliveries first
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.failures > 0 {
		rc.failures--
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
	mac := hmac.New(sha256.New, rc.key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	ok := false
	for _, sig := range strings.Fields(r.Header.Get("webhook-signature")) {
		ok = ok || hmac.Equal([]byte(sig), []byte(want))
	}
	var e notify.Event
	if !ok || json.Unmarshal(body, &e) != nil || e.ID != id {
		rc.bad++
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	rc.got = append(rc.got, e)
	w.WriteHeader(http.StatusNoContent)
}

func TestWebhookNotificationsBySeverity(t *testing.T) {
	w := newWorld(t)
	secret := notify.NewSecret()
	key, err := notify.ParseSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	rc := &receiver{key: key, failures: 1}
	srv := httptest.NewServer(rc) // 127.0.0.1
	defer srv.Close()

	sec := secrets.NewMemory()
	ref, err := sec.Put(t.Context(), WebhookSecretName(w.cfg.RunID), []byte(secret), nil)
	if err != nil {
		t.Fatal(err)
	}
	w.cfg.WebhookURL, w.cfg.WebhookSecretRef = srv.URL+"/hook/T0KEN", ref
	w.cfg.NotificationSeverities = []string{"MEDIUM", "CRITICAL"}
	if w.cfg, err = store.PutSignalsConfig(t.Context(), w.tbl, w.cfg); err != nil {
		t.Fatal(err)
	}
	var slept []time.Duration
	w.runner.Notify = notify.WebhookPublisher{
		Webhook: &notify.Webhook{Client: srv.Client(), Sleep: func(_ context.Context, d time.Duration) error {
			slept = append(slept, d)
			return nil
		}},
		Destination: WebhookDestination(w.tbl, sec),
	}
	w.model.findings = []fakeFinding{
		{match: "a", kind: "error", title: "critical one", severity: "CRITICAL"},
		{match: "a", kind: "error", title: "high one", severity: "HIGH"},
		{match: "a", kind: "cost", title: "medium one", severity: "MEDIUM"},
		{match: "a", kind: "other", title: "low one", severity: "LOW"},
	}
	w.traces("a1", "a2")
	run, fs := w.onDemand()
	if run.State != store.SignalsSucceeded || len(fs) != 4 {
		t.Fatalf("%+v", run)
	}
	if rc.bad != 0 || len(rc.got) != 2 || rc.got[0].Data.Title != "critical one" || rc.got[1].Data.Title != "medium one" ||
		rc.got[0].Type != notify.EventTypeFinding || len(rc.got[0].Data.TraceIDs) != 2 || len(slept) != 1 {
		t.Fatalf("received %+v, %d refused, slept %v", rc.got, rc.bad, slept)
	}
	// A wrong key is refused by the receiver: the signature is really checked.
	rc.key = []byte("another key of thirty-two bytes!")
	w.traces("a3")
	w.model.findings[0].title = "critical two"
	w.onDemand()
	if rc.bad != 1 {
		t.Fatalf("a delivery signed with another key was accepted (%d refused)", rc.bad)
	}
}
