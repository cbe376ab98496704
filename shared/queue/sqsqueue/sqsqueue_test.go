package sqsqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evalobs/evalapi/shared/queue"
)

// fakeSQS refuses each entry the first refuse times it sees its body.
type fakeSQS struct {
	refuse  int
	seen    map[string]int
	batches []int
	delays  []int32
}

// Call takes the input as SQS would, JSON into the SDK's shapes, and answers in JSON.
func (f *fakeSQS) Call(_ context.Context, op string, input, output any) error {
	if op != "SendMessageBatch" {
		return fmt.Errorf("unexpected %s", op)
	}
	var in sqs.SendMessageBatchInput
	if b, err := json.Marshal(input); err != nil || json.Unmarshal(b, &in) != nil {
		return fmt.Errorf("input %v", err)
	}
	f.batches = append(f.batches, len(in.Entries))
	out := &sqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		f.delays = append(f.delays, e.DelaySeconds)
		b := aws.ToString(e.MessageBody)
		f.seen[b]++
		if f.seen[b] <= f.refuse {
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("ThrottlingException")})
			continue
		}
		out.Successful = append(out.Successful, types.SendMessageBatchResultEntry{Id: e.Id})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, output)
}

func TestSendSplitsAndResends(t *testing.T) {
	bodies := make([][]byte, 23)
	for i := range bodies {
		bodies[i] = []byte(strconv.Itoa(i))
	}
	for _, tc := range []struct {
		name    string
		refuse  int
		wantErr bool
	}{{"all accepted", 0, false}, {"refused twice then accepted", 2, false}, {"refused every time", 5, true}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeSQS{refuse: tc.refuse, seen: map[string]int{}}
			err := New(f, "url").Send(context.Background(), bodies, 90*time.Second)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			for _, n := range f.batches {
				if n > queue.MaxBatch {
					t.Errorf("a batch of %d entries", n)
				}
			}
			for _, d := range f.delays {
				if d != 90 {
					t.Errorf("delay %d s, want 90", d)
				}
			}
			if !tc.wantErr {
				for _, b := range bodies {
					if f.seen[string(b)] != tc.refuse+1 {
						t.Errorf("body %s sent %d times", b, f.seen[string(b)])
					}
				}
			}
		})
	}
}

func TestHandleReportsFailures(t *testing.T) {
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "a", Body: "1", Attributes: map[string]string{"ApproximateReceiveCount": "3"}},
		{MessageId: "b", Body: "2"},
	}}
	var counts []int
	resp, err := Handle(func(_ context.Context, msgs []queue.Message) []string {
		for _, m := range msgs {
			counts = append(counts, m.ReceiveCount)
		}
		return []string{"b"}
	})(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "b" {
		t.Errorf("response %+v, %v", resp, err)
	}
	if len(counts) != 2 || counts[0] != 3 || counts[1] != 1 {
		t.Errorf("receive counts %v, want [3 1]", counts)
	}
}

// TestSignedSend: over signed requests in SQS's JSON protocol, 23 messages go in batches of
// ten; an entry SQS failed (not the sender's fault) is sent again; an entry refused as the
// sender's fault fails the send at once, and the error holds no credential.
func TestSignedSend(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int{}
	sends := map[string]int{}
	failOnce := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Target") != "AmazonSQS.SendMessageBatch" || !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256") ||
			!strings.Contains(r.Header.Get("Authorization"), "/eu-west-1/sqs/") {
			http.Error(w, "bad request", 400)
			return
		}
		var req struct {
			QueueURL string `json:"QueueUrl"`
			Entries  []struct{ Id, MessageBody string }
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		defer mu.Unlock()
		if len(req.Entries) > 10 || !strings.HasSuffix(req.QueueURL, "/123/runs") {
			t.Errorf("%d entries to %s", len(req.Entries), req.QueueURL)
		}
		var failed, ok []map[string]any
		for _, e := range req.Entries {
			sends[e.MessageBody]++
			switch {
			case failOnce && e.MessageBody == `{"n":7}`:
				failOnce = false
				failed = append(failed, map[string]any{"Id": e.Id, "Code": "InternalError", "SenderFault": false})
			case e.MessageBody == `{"n":"refused"}`:
				failed = append(failed, map[string]any{"Id": e.Id, "Code": "InvalidMessageContents", "SenderFault": true})
			default:
				got[e.MessageBody]++
				ok = append(ok, map[string]any{"Id": e.Id})
			}
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_ = json.NewEncoder(w).Encode(map[string]any{"Failed": failed, "Successful": ok})
	}))
	defer srv.Close()
	cfg := aws.Config{Region: "eu-west-1", Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""))}
	s, err := NewSigned(cfg, srv.URL+"/123/runs")
	if err != nil {
		t.Fatal(err)
	}
	var bodies [][]byte
	for i := range 23 {
		b, _ := json.Marshal(map[string]int{"n": i})
		bodies = append(bodies, b)
	}
	if err := s.Send(t.Context(), bodies, 0); err != nil {
		t.Fatal(err)
	}
	if len(got) != 23 || sends[`{"n":7}`] != 2 {
		t.Errorf("%d distinct messages arrived, want 23; the failed one was sent %d times, want 2", len(got), sends[`{"n":7}`])
	}
	for b, n := range got {
		if n != 1 {
			t.Errorf("%s arrived %d times", b, n)
		}
	}
	err = s.Send(t.Context(), [][]byte{[]byte(`{"n":"refused"}`)}, 0)
	if err == nil || strings.Contains(err.Error(), "SECRET") || sends[`{"n":"refused"}`] != 1 {
		t.Errorf("a refused message: %v, sent %d times", err, sends[`{"n":"refused"}`])
	}
}
