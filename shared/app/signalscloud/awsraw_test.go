package signalscloud

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/evalobs/evalapi/shared/notify"
)

// TestSignedCalls: the asynchronous invocation and PutEvents are SigV4-signed requests of
// the services' wire protocols, and their refusals are errors.
func TestSignedCalls(t *testing.T) {
	var got []string
	status := http.StatusAccepted
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKID/") || r.Header.Get("X-Amz-Date") == "" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		got = append(got, r.Method+" "+r.URL.EscapedPath()+" "+r.Header.Get("X-Amz-Invocation-Type")+r.Header.Get("X-Amz-Target")+" "+string(body))
		w.WriteHeader(status)
		if r.Header.Get("X-Amz-Target") != "" {
			_, _ = w.Write([]byte(`{"FailedEntryCount":0,"Entries":[{"EventId":"e"}]}`))
		}
	}))
	defer srv.Close()
	raw := newRawAWS(aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")})
	raw.base = srv.URL
	arn := "arn:aws:lambda:eu-west-1:123456789012:function:s-signals-worker"
	if err := raw.invokeAsync(t.Context(), arn, []byte(`{"signals_run_id":"x"}`)); err != nil {
		t.Fatal(err)
	}
	status = http.StatusOK
	bus := &EventBridge{raw: raw}
	if err := bus.Publish(t.Context(), notify.FindingEvent(notify.Finding{ID: "f1", Severity: "HIGH"})); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "POST /2015-03-31/functions/s-signals-worker/invocations Event ") ||
		!strings.HasPrefix(got[1], "POST / AWSEvents.PutEvents ") {
		t.Fatalf("requests: %q", got)
	}
	var put struct {
		Entries []struct{ EventBusName, Source, DetailType, Detail string }
	}
	if err := json.Unmarshal([]byte(strings.SplitN(got[1], " ", 4)[3]), &put); err != nil || len(put.Entries) != 1 ||
		put.Entries[0].EventBusName != "default" || put.Entries[0].Source != EventSource || put.Entries[0].DetailType != "signals.finding" ||
		!strings.Contains(put.Entries[0].Detail, `"id":"finding_f1"`) {
		t.Fatalf("PutEvents body: %s (%v)", got[1], err)
	}
	status = http.StatusTooManyRequests
	if err := raw.invokeAsync(t.Context(), arn, nil); err == nil {
		t.Fatal("a refused invocation is no error")
	}
}
