package sqsqueue

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/queue"
)

// receive plays the Lambda poller once: it receives up to ten messages with their receive
// counts, hands them to the handler as an SQS event and deletes those not reported failed.
func receive(ctx context.Context, t *testing.T, c *sqs.Client, url string, h queue.Handler) int {
	t.Helper()
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount}})
	if err != nil {
		t.Fatal(err)
	}
	var ev events.SQSEvent
	handles := map[string]string{}
	for _, m := range out.Messages {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: aws.ToString(m.MessageId), Body: aws.ToString(m.Body),
			Attributes: m.Attributes})
		handles[aws.ToString(m.MessageId)] = aws.ToString(m.ReceiptHandle)
	}
	resp, err := Handle(h)(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range resp.BatchItemFailures {
		delete(handles, f.ItemIdentifier)
	}
	for _, rh := range handles {
		if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String(rh)}); err != nil {
			t.Fatal(err)
		}
	}
	return len(out.Messages)
}

// TestMoto: batches of more than ten are sent whole; a message its handler always fails
// comes back with a growing receive count and, past maxReceiveCount, is redriven to the
// dead-letter queue, while the rest of its batch is deleted at once.
func TestMoto(t *testing.T) {
	endpoint := testenv.Moto(t)
	c := sqs.NewFromConfig(aws.Config{Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDMOTOTEST", "moto-test-secret", "")},
		func(o *sqs.Options) { o.BaseEndpoint = aws.String(endpoint) })
	ctx := context.Background()
	name := fmt.Sprintf("evalapi-test-%d", time.Now().UnixNano())
	dlq, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-dlq")})
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: dlq.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	redrive := fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"2"}`, attrs.Attributes["QueueArn"])
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: map[string]string{
		"VisibilityTimeout": "0", "RedrivePolicy": redrive}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = c.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: q.QueueUrl})
		_, _ = c.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: dlq.QueueUrl})
	})

	var bodies [][]byte
	for i := range 13 {
		bodies = append(bodies, []byte(strconv.Itoa(i)))
	}
	// The functions' sender (signed requests); the SDK's client reads what it sent.
	sender, err := NewSigned(aws.Config{Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDMOTOTEST", "moto-test-secret", "")}, aws.ToString(q.QueueUrl))
	if err != nil {
		t.Fatal(err)
	}
	if err := sender.Send(ctx, bodies, 0); err != nil {
		t.Fatal(err)
	}
	handled := map[string]int{}
	maxCount := map[string]int{}
	h := func(_ context.Context, msgs []queue.Message) []string {
		var failed []string
		for _, m := range msgs {
			handled[string(m.Body)]++
			maxCount[string(m.Body)] = max(maxCount[string(m.Body)], m.ReceiveCount)
			if string(m.Body) == "7" {
				failed = append(failed, m.ID)
			}
		}
		return failed
	}
	for round := 0; round < 20; round++ {
		if receive(ctx, t, c, aws.ToString(q.QueueUrl), h) == 0 && len(handled) == 13 {
			break
		}
	}
	for i := range 13 {
		b := strconv.Itoa(i)
		if b == "7" {
			if handled[b] != 2 || maxCount[b] != 2 {
				t.Errorf("failing message handled %d times (max receive count %d), want 2", handled[b], maxCount[b])
			}
		} else if handled[b] != 1 {
			t.Errorf("message %s handled %d times, want 1", b, handled[b])
		}
	}
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq.QueueUrl, MaxNumberOfMessages: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) != 1 || aws.ToString(out.Messages[0].Body) != "7" {
		t.Errorf("dead-letter queue holds %d messages, want message 7 alone", len(out.Messages))
	}
}
