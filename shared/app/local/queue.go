package local

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Queue is the local stand-in for an SQS queue with a Lambda consumer: Send keeps messages,
// at most Concurrency handlers run at once (the event source's MaximumConcurrency), a
// message whose handler fails is delivered again after a backoff, and after MaxReceives
// deliveries it is set aside in DeadLetters (the DLQ) and logged. Messages live in memory:
// a restart of the local host drops what was not handled.
type Queue struct {
	handle      func(context.Context, []byte) error
	log         *slog.Logger
	MaxReceives int
	Backoff     time.Duration

	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{}
	wg     sync.WaitGroup

	mu   sync.Mutex
	dead [][]byte
}

// NewQueue starts a queue that hands messages to handle, concurrency at a time.
func NewQueue(handle func(context.Context, []byte) error, concurrency int, log *slog.Logger) *Queue {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Queue{handle: handle, log: log, MaxReceives: 5, Backoff: 200 * time.Millisecond,
		ctx: ctx, cancel: cancel, slots: make(chan struct{}, max(1, concurrency))}
}

// Send queues bodies; each is handled on its own goroutine once a slot is free.
func (q *Queue) Send(_ context.Context, bodies [][]byte) error {
	for _, b := range bodies {
		body := append([]byte(nil), b...)
		q.wg.Go(func() { q.deliver(body) })
	}
	return nil
}

func (q *Queue) deliver(body []byte) {
	for receive := 1; ; receive++ {
		select {
		case q.slots <- struct{}{}:
		case <-q.ctx.Done():
			return
		}
		err := q.handle(q.ctx, body)
		<-q.slots
		if err == nil || q.ctx.Err() != nil {
			return
		}
		if receive >= q.MaxReceives {
			q.log.Error("message to the dead-letter queue", "receives", receive, "error", err.Error())
			q.mu.Lock()
			q.dead = append(q.dead, body)
			q.mu.Unlock()
			return
		}
		select {
		case <-time.After(q.Backoff * time.Duration(receive)):
		case <-q.ctx.Done():
			return
		}
	}
}

// Wait blocks until every message sent so far is handled or dead (tests).
func (q *Queue) Wait() { q.wg.Wait() }

// DeadLetters are the messages that failed MaxReceives times.
func (q *Queue) DeadLetters() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([][]byte(nil), q.dead...)
}

// Close stops the handlers (in-flight ones see their context cancelled) and waits for them.
func (q *Queue) Close() {
	q.cancel()
	q.wg.Wait()
}

// HeldQueue keeps what is sent and runs nothing: the queue of hosts that start experiments
// but do not run them (the event runner and tests); infra/local replaces it with a Queue.
type HeldQueue struct {
	mu   sync.Mutex
	sent [][]byte
}

// Send keeps bodies.
func (q *HeldQueue) Send(_ context.Context, bodies [][]byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sent = append(q.sent, bodies...)
	return nil
}

// Sent is what was sent so far.
func (q *HeldQueue) Sent() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([][]byte(nil), q.sent...)
}
