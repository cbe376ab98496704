// Package sqsqueue is the Amazon SQS adapter of shared/queue: a Sender over SendMessageBatch
// and the handler of the SQS events a Lambda event source mapping delivers (with
// ReportBatchItemFailures, so that only the failed messages of a batch come back). Redrive to
// the dead-letter queue, the visibility timeout and the concurrency cap are the queue's and
// the mapping's settings (template.yaml).
package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/evalobs/evalapi/shared/queue"
)

// API is the part of the SQS client the adapter uses.
type API interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

// Sender sends to one queue.
type Sender struct {
	api API
	url string
}

var _ queue.Sender = (*Sender)(nil)

// New returns a sender to the queue at url.
func New(api API, url string) *Sender { return &Sender{api: api, url: url} }

// sendAttempts bounds the resends of the entries SQS reports failed (throttling) in one Send.
const sendAttempts = 3

// Send implements queue.Sender: batches of ten, entries SQS refused sent again a few times.
func (s *Sender) Send(ctx context.Context, bodies [][]byte, delay time.Duration) error {
	delay = min(max(delay, 0), queue.MaxDelay)
	for start := 0; start < len(bodies); start += queue.MaxBatch {
		batch := bodies[start:min(start+queue.MaxBatch, len(bodies))]
		if err := s.sendBatch(ctx, batch, int32(delay/time.Second)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sender) sendBatch(ctx context.Context, batch [][]byte, delay int32) error {
	pending := make(map[string][]byte, len(batch))
	for i, b := range batch {
		pending[strconv.Itoa(i)] = b
	}
	for attempt := 1; len(pending) > 0; attempt++ {
		in := &sqs.SendMessageBatchInput{QueueUrl: aws.String(s.url)}
		for id, b := range pending {
			in.Entries = append(in.Entries, types.SendMessageBatchRequestEntry{Id: aws.String(id),
				MessageBody: aws.String(string(b)), DelaySeconds: delay})
		}
		out, err := s.api.SendMessageBatch(ctx, in)
		if err != nil {
			return fmt.Errorf("sqs send batch: %w", err)
		}
		for _, ok := range out.Successful {
			delete(pending, aws.ToString(ok.Id))
		}
		if len(pending) > 0 && attempt >= sendAttempts {
			var codes []error
			for _, f := range out.Failed {
				codes = append(codes, fmt.Errorf("%s: %s", aws.ToString(f.Id), aws.ToString(f.Code)))
			}
			return fmt.Errorf("sqs send batch: %d entries refused: %w", len(pending), errors.Join(codes...))
		}
	}
	return nil
}

// Messages converts the records of an SQS event.
func Messages(ev events.SQSEvent) []queue.Message {
	out := make([]queue.Message, len(ev.Records))
	for i, r := range ev.Records {
		n, _ := strconv.Atoi(r.Attributes["ApproximateReceiveCount"])
		out[i] = queue.Message{ID: r.MessageId, Body: []byte(r.Body), ReceiveCount: max(n, 1)}
	}
	return out
}

// Handle is the Lambda handler of an SQS event source mapping with ReportBatchItemFailures:
// h's failed messages are reported as batch item failures and come back after the
// visibility timeout; the others are deleted by Lambda.
func Handle(h queue.Handler) func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		resp := events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{}}
		for _, id := range h(ctx, Messages(ev)) {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
		return resp, nil
	}
}
