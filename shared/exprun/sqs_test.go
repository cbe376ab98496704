package exprun_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/evalobs/evalapi/shared/exprun"
)

// TestSQSSend: 23 messages go in batches of ten, signed, with the JSON protocol; an entry
// SQS reports failed (not the sender's fault) is sent again; a refused one fails the send.
func TestSQSSend(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int{}
	failOnce := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") != "AmazonSQS.SendMessageBatch" || !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256") {
			http.Error(w, "bad request", 400)
			return
		}
		var req struct {
			QueueURL string `json:"QueueUrl"`
			Entries  []struct{ ID, MessageBody string }
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		defer mu.Unlock()
		var failed []map[string]any
		for _, e := range req.Entries {
			if len(req.Entries) > 10 {
				t.Errorf("%d entries in one batch", len(req.Entries))
			}
			if failOnce && e.MessageBody == `{"n":7}` {
				failOnce = false
				failed = append(failed, map[string]any{"Id": e.ID, "Code": "InternalError", "SenderFault": false})
				continue
			}
			if e.MessageBody == `{"n":"refused"}` {
				failed = append(failed, map[string]any{"Id": e.ID, "Code": "InvalidMessageContents", "SenderFault": true})
				continue
			}
			got[e.MessageBody]++
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"Failed": failed, "Successful": []any{}})
	}))
	defer srv.Close()
	q := &exprun.SQS{QueueURL: srv.URL + "/123/runs", Region: "eu-west-1",
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""))}
	var bodies [][]byte
	for i := range 23 {
		b, _ := json.Marshal(map[string]int{"n": i})
		bodies = append(bodies, b)
	}
	if err := q.Send(t.Context(), bodies); err != nil {
		t.Fatal(err)
	}
	if len(got) != 23 {
		t.Errorf("%d distinct messages arrived, want 23", len(got))
	}
	for b, n := range got {
		if n != 1 {
			t.Errorf("%s arrived %d times", b, n)
		}
	}
	if err := q.Send(t.Context(), [][]byte{[]byte(`{"n":"refused"}`)}); err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("a refused message: %v", err)
	}
}
