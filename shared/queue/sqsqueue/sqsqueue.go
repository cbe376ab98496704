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
	"net/url"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/evalobs/evalapi/shared/awscall"
	"github.com/evalobs/evalapi/shared/queue"
)

// API sends one SQS operation over its JSON protocol: in encoded, the answer decoded into
// out. *awscall.JSON implements it (the SDK's SQS client would add its tables and
// initialisers to the stream and evaluator bootstraps for one operation).
type API interface {
	Call(ctx context.Context, op string, in, out any) error
}

// SendMessageBatch's input and output, in the wire's names.
type (
	sendEntry struct {
		Id           string
		MessageBody  string
		DelaySeconds int32 `json:",omitempty"`
	}
	sendInput struct {
		QueueUrl string
		Entries  []sendEntry
	}
	sendOutput struct {
		Successful []struct{ Id string }
		Failed     []struct {
			Id, Code    string
			SenderFault bool
		}
	}
)

// Sender sends to one queue.
type Sender struct {
	api API
	url string
}

var _ queue.Sender = (*Sender)(nil)

// New returns a sender to the queue at url.
func New(api API, url string) *Sender { return &Sender{api: api, url: url} }

// NewSigned returns a sender to the queue at queueURL over signed requests with awsCfg's
// region and credentials, sent to the queue URL's host (the queue's regional endpoint, or
// an emulator).
func NewSigned(awsCfg aws.Config, queueURL string) (*Sender, error) {
	u, err := url.Parse(queueURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("sqs: queue URL %q is not an absolute URL", queueURL)
	}
	c := awscall.SQS(awscall.NewSigner(awsCfg.Region, awsCfg.Credentials), u.Scheme+"://"+u.Host)
	return New(c, queueURL), nil
}

// sendAttempts bounds the sends of the entries SQS reports failed (throttling, an internal
// error) in one Send; resendWait×attempt is the wait before each resend.
const (
	sendAttempts = 4
	resendWait   = 50 * time.Millisecond
)

// Send implements queue.Sender: batches of ten, entries SQS failed sent again a few times,
// after a short wait; an entry refused as the sender's fault (its contents) fails the send at
// once, as sending it again would not change the answer.
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
		if attempt > 1 {
			if err := awscall.Sleep(ctx, time.Duration(attempt-1)*resendWait); err != nil {
				return fmt.Errorf("sqs send batch: %w", err)
			}
		}
		in := sendInput{QueueUrl: s.url}
		for id, b := range pending {
			in.Entries = append(in.Entries, sendEntry{Id: id, MessageBody: string(b), DelaySeconds: delay})
		}
		var out sendOutput
		if err := s.api.Call(ctx, "SendMessageBatch", in, &out); err != nil {
			return fmt.Errorf("sqs send batch: %w", err)
		}
		for _, ok := range out.Successful {
			delete(pending, ok.Id)
		}
		for _, f := range out.Failed {
			if f.SenderFault {
				return fmt.Errorf("sqs send batch: entry %s refused (%s)", f.Id, f.Code)
			}
		}
		if len(pending) > 0 && attempt >= sendAttempts {
			var codes []error
			for _, f := range out.Failed {
				codes = append(codes, fmt.Errorf("%s: %s", f.Id, f.Code))
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
