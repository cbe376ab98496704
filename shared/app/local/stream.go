package local

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/stream"
)

// Stream runs the table's stream consumer in the local host, fed by the embedded store's
// commits: the local stand-in for the stream's Lambda trigger. OnCommit (the store's hook)
// keeps the records some handler accepts and returns at once, so a write answers without
// waiting for the background work, as it does in the cloud; one goroutine hands them to the
// consumer in commit order, trying failed records again as the Lambda trigger would.
type Stream struct {
	c      *stream.Consumer
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	wake   *sync.Cond
	queue  []stream.Record
	busy   bool
	closed bool
	seq    int
}

// localRetries is how often a failed record is tried again, waiting localBackoff times the
// attempt in between; after that it is logged and left (a restart of the host does not
// resume it: the local host is for development).
const (
	localRetries = 3
	localBackoff = 200 * time.Millisecond
)

// NewStream starts c's goroutine; it logs to log (discarded when nil). Close stops it.
func NewStream(c *stream.Consumer, log *slog.Logger) *Stream {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Stream{c: c, log: log, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	l.wake = sync.NewCond(&l.mu)
	go l.run()
	return l
}

// OnCommit is the embedded store's hook (embedded.Options.OnCommit).
func (l *Stream) OnCommit(changes []embedded.Change) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	for _, c := range changes {
		l.seq++
		r := stream.Record{ID: "local-" + strconv.Itoa(l.seq), Old: c.Old, New: c.New}
		if l.c.Accepts(r) {
			l.queue = append(l.queue, r)
		}
	}
	l.wake.Broadcast()
}

// Wait blocks until every record committed so far has been handled (or given up on).
func (l *Stream) Wait() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for (len(l.queue) > 0 || l.busy) && !l.closed {
		l.wake.Wait()
	}
}

// Close stops the goroutine: work under way is canceled, queued records are dropped.
func (l *Stream) Close() {
	l.mu.Lock()
	l.closed = true
	l.wake.Broadcast()
	l.mu.Unlock()
	l.cancel()
	<-l.done
}

func (l *Stream) run() {
	defer close(l.done)
	for {
		l.mu.Lock()
		for len(l.queue) == 0 && !l.closed {
			l.wake.Wait()
		}
		if l.closed {
			l.mu.Unlock()
			return
		}
		batch := l.queue
		l.queue, l.busy = nil, true
		l.mu.Unlock()

		l.handle(batch)

		l.mu.Lock()
		l.busy = false
		l.wake.Broadcast()
		l.mu.Unlock()
	}
}

// handle hands batch to the consumer, trying its failed records again a few times.
func (l *Stream) handle(batch []stream.Record) {
	for attempt := 1; len(batch) > 0; attempt++ {
		failed := l.c.Handle(l.ctx, batch)
		if len(failed) == 0 || attempt > localRetries || l.ctx.Err() != nil {
			if len(failed) > 0 {
				l.log.Error("stream records given up", "records", len(failed))
			}
			return
		}
		again := batch[:0]
		for _, r := range batch {
			for _, id := range failed {
				if r.ID == id {
					again = append(again, r)
				}
			}
		}
		batch = again
		select {
		case <-time.After(time.Duration(attempt) * localBackoff):
		case <-l.ctx.Done():
			return
		}
	}
}
