package sqsqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
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
