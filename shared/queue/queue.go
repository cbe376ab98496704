// Package queue is the message-queue port of the background pipeline: a producer sends
// batches of small messages, a consumer receives them in batches and reports which it could
// not finish (partial batch failures), and the queue delivers those again after their
// visibility timeout until a maximum receive count sends them to a dead-letter queue.
//
// Two adapters have the same semantics: sqsqueue (Amazon SQS, consumed by a Lambda event
// source mapping with ReportBatchItemFailures and a MaximumConcurrency cap) and Local (in
// process, for `make run` and tests). Messages carry ids only, never content or credentials.
package queue

import (
	"context"
	"time"
)

// MaxBatch is the most messages one send or one delivery holds (SQS's limit).
const MaxBatch = 10

// MaxDelay is the longest delay a message can be sent with (SQS's limit).
const MaxDelay = 15 * time.Minute

// Message is one delivery of a message.
type Message struct {
	// ID names the message in a batch's failure report (SQS's message id).
	ID   string
	Body []byte
	// ReceiveCount is how many times the message was delivered, this delivery included
	// (SQS's ApproximateReceiveCount): a consumer that sees the last allowed delivery can
	// record a failure instead of leaving the message to the dead-letter queue.
	ReceiveCount int
}

// Sender sends messages.
type Sender interface {
	// Send sends bodies (any number: split at MaxBatch), each visible after delay (at most
	// MaxDelay). An error means some may not have been sent; sending again is safe because
	// consumers are idempotent.
	Send(ctx context.Context, bodies [][]byte, delay time.Duration) error
}

// Handler consumes one batch and returns the IDs of the messages it could not finish: those
// are delivered again, the others are deleted.
type Handler func(ctx context.Context, msgs []Message) (failed []string)
