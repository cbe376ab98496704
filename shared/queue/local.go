package queue

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// Options are a queue's settings, named as SQS and the Lambda event source mapping name them.
type Options struct {
	// VisibilityTimeout is how long a delivered message stays hidden: a message its handler
	// reported failed (or did not answer for) comes back after it. Default 30s.
	VisibilityTimeout time.Duration
	// MaxReceiveCount moves a message to the dead-letter list when it would be delivered
	// more often (the redrive policy). Default 5.
	MaxReceiveCount int
	// BatchSize is the most messages one handler call gets. Default MaxBatch.
	BatchSize int
	// MaxConcurrency is the most handler calls at once (ScalingConfig.MaximumConcurrency).
	// Default 2.
	MaxConcurrency int
	// Log receives a line per message moved to the dead-letter list (discarded when nil).
	Log *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.VisibilityTimeout <= 0 {
		o.VisibilityTimeout = 30 * time.Second
	}
	if o.MaxReceiveCount <= 0 {
		o.MaxReceiveCount = 5
	}
	if o.BatchSize <= 0 || o.BatchSize > MaxBatch {
		o.BatchSize = MaxBatch
	}
	if o.MaxConcurrency <= 0 {
		o.MaxConcurrency = 2
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

type localMsg struct {
	id        string
	body      []byte
	visibleAt time.Time
	receives  int
	inFlight  bool
}

// Local is the in-process queue: the same visibility timeout, redelivery, maximum receive
// count, dead-letter list, partial batch failures and concurrency cap as SQS consumed by
// Lambda. It keeps messages in memory (a restart of the local host loses them).
type Local struct {
	opts Options

	mu      sync.Mutex
	wake    *sync.Cond
	msgs    []*localMsg
	dead    []Message
	seq     int
	running int
	peak    int
	closed  bool
	handler Handler
	cancel  context.CancelFunc
	done    sync.WaitGroup
	timerAt time.Time // when the pending wake-up timer fires (zero: none)
	passes  int       // of take over the messages: tests hold idle consumers to waiting
}

var _ Sender = (*Local)(nil)

// NewLocal returns an empty queue; Start begins consuming it.
func NewLocal(opts Options) *Local {
	q := &Local{opts: opts.withDefaults()}
	q.wake = sync.NewCond(&q.mu)
	return q
}

// ErrClosed answers a send to a closed queue.
var ErrClosed = errors.New("queue: closed")

// Send implements Sender.
func (q *Local) Send(_ context.Context, bodies [][]byte, delay time.Duration) error {
	delay = min(max(delay, 0), MaxDelay)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	at := time.Now().Add(delay)
	for _, b := range bodies {
		q.seq++
		q.msgs = append(q.msgs, &localMsg{id: "local-" + strconv.Itoa(q.seq), body: append([]byte(nil), b...), visibleAt: at})
	}
	q.wake.Broadcast()
	return nil
}

// Start runs MaxConcurrency consumers calling h until Close.
func (q *Local) Start(h Handler) {
	ctx, cancel := context.WithCancel(context.Background())
	q.mu.Lock()
	q.handler, q.cancel = h, cancel
	q.mu.Unlock()
	for range q.opts.MaxConcurrency {
		q.done.Add(1)
		go q.consume(ctx)
	}
}

// Close stops the consumers (handler calls under way see their context canceled).
func (q *Local) Close() {
	q.mu.Lock()
	q.closed = true
	q.wake.Broadcast()
	cancel := q.cancel
	q.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	q.done.Wait()
}

// Dead returns the messages moved to the dead-letter list, oldest first.
func (q *Local) Dead() []Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Message(nil), q.dead...)
}

// Len is the number of messages not yet deleted nor dead (visible, delayed or in flight).
func (q *Local) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.msgs)
}

// Pending returns the bodies of the messages not yet deleted nor dead, in send order.
func (q *Local) Pending() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([][]byte, len(q.msgs))
	for i, m := range q.msgs {
		out[i] = m.body
	}
	return out
}

// PeakConcurrency is the most handler calls that ran at once.
func (q *Local) PeakConcurrency() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.peak
}

// Wait blocks until the queue is empty (every message deleted or dead) or ctx ends.
func (q *Local) Wait(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.wake.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.msgs) > 0 && !q.closed {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		q.wake.Wait()
	}
	return nil
}

// take waits for a batch of visible messages; nil when the queue is closed.
func (q *Local) take() []*localMsg {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if q.closed {
			return nil
		}
		q.passes++
		now := time.Now()
		var batch []*localMsg
		next, dead := time.Time{}, false
		keep := q.msgs[:0]
		for _, m := range q.msgs {
			if m.inFlight || m.visibleAt.After(now) {
				if !m.inFlight && (next.IsZero() || m.visibleAt.Before(next)) {
					next = m.visibleAt
				}
				keep = append(keep, m)
				continue
			}
			if len(batch) == q.opts.BatchSize {
				keep = append(keep, m)
				continue
			}
			if m.receives >= q.opts.MaxReceiveCount { // the redrive policy
				q.dead = append(q.dead, Message{ID: m.id, Body: m.body, ReceiveCount: m.receives})
				q.opts.Log.Warn("message moved to the dead-letter list", "message_id", m.id, "receives", m.receives)
				dead = true
				continue
			}
			m.receives++
			m.inFlight = true
			m.visibleAt = now.Add(q.opts.VisibilityTimeout)
			batch = append(batch, m)
			keep = append(keep, m)
		}
		q.msgs = keep
		if len(batch) > 0 {
			q.running++
			q.peak = max(q.peak, q.running)
			return batch
		}
		if dead {
			// Wait may be waiting for the queue to empty. Only then: every consumer that
			// finds nothing passes here, and a broadcast each time would wake the others
			// into the same pass, for ever (the consumers spun a core while idle).
			q.wake.Broadcast()
		}
		if !next.IsZero() && (q.timerAt.IsZero() || next.Before(q.timerAt)) {
			at := next
			q.timerAt = at
			time.AfterFunc(time.Until(at), func() {
				q.mu.Lock()
				if q.timerAt.Equal(at) {
					q.timerAt = time.Time{}
				}
				q.wake.Broadcast()
				q.mu.Unlock()
			})
		}
		q.wake.Wait()
	}
}

func (q *Local) consume(ctx context.Context) {
	defer q.done.Done()
	for {
		batch := q.take()
		if batch == nil {
			return
		}
		msgs := make([]Message, len(batch))
		for i, m := range batch {
			msgs[i] = Message{ID: m.id, Body: m.body, ReceiveCount: m.receives}
		}
		failed := q.call(ctx, msgs)
		q.mu.Lock()
		q.running--
		drop := map[*localMsg]bool{}
		for _, m := range batch {
			m.inFlight = false
			if !failed[m.id] {
				drop[m] = true
			}
		}
		keep := q.msgs[:0]
		for _, m := range q.msgs {
			if !drop[m] {
				keep = append(keep, m)
			}
		}
		q.msgs = keep
		q.wake.Broadcast()
		q.mu.Unlock()
	}
}

// call runs the handler; a panic fails the whole batch, as a crashed Lambda invocation does.
func (q *Local) call(ctx context.Context, msgs []Message) (failed map[string]bool) {
	failed = map[string]bool{}
	defer func() {
		if r := recover(); r != nil {
			q.opts.Log.Error("queue handler panicked", "panic", r)
			for _, m := range msgs {
				failed[m.ID] = true
			}
		}
	}()
	for _, id := range q.handler(ctx, msgs) {
		failed[id] = true
	}
	return failed
}
