package purge

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/evalobs/evalapi/shared/store/embedded"
)

// Local runs a Worker in the local host, fed by the embedded store's commits: the local
// stand-in for the stream's Lambda trigger. OnCommit (the store's hook) keeps only dataset
// deletions and returns at once, so a bulk deletion answers without waiting for the purge,
// as it does in the cloud; one goroutine purges them in commit order.
type Local struct {
	w      *Worker
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	wake   *sync.Cond
	queue  []Record
	busy   bool
	closed bool
	seq    int
}

// localRetries is how often a failed purge is tried again, waiting localBackoff times the
// attempt in between; after that it is logged and left (a restart of the host does not
// resume it: the local host is for development).
const (
	localRetries = 3
	localBackoff = 200 * time.Millisecond
)

// NewLocal starts w's goroutine. Close stops it.
func NewLocal(w *Worker) *Local {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Local{w: w, ctx: ctx, cancel: cancel, done: make(chan struct{})}
	l.wake = sync.NewCond(&l.mu)
	go l.run()
	return l
}

// OnCommit is the embedded store's hook (embedded.Options.OnCommit).
func (l *Local) OnCommit(changes []embedded.Change) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	for _, c := range changes {
		l.seq++
		r := Record{ID: "local-" + strconv.Itoa(l.seq), Old: c.Old, New: c.New}
		if _, ok := r.deletedDataset(); ok {
			l.queue = append(l.queue, r)
		}
	}
	l.wake.Broadcast()
}

// Wait blocks until every deletion committed so far has been purged (or given up on).
func (l *Local) Wait() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for (len(l.queue) > 0 || l.busy) && !l.closed {
		l.wake.Wait()
	}
}

// Close stops the goroutine: a purge under way is canceled, queued ones are dropped.
func (l *Local) Close() {
	l.mu.Lock()
	l.closed = true
	l.wake.Broadcast()
	l.mu.Unlock()
	l.cancel()
	<-l.done
}

func (l *Local) run() {
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

		l.purge(batch)

		l.mu.Lock()
		l.busy = false
		l.wake.Broadcast()
		l.mu.Unlock()
	}
}

// purge handles batch, trying its failed records again a few times.
func (l *Local) purge(batch []Record) {
	for attempt := 1; len(batch) > 0; attempt++ {
		failed := l.w.Handle(l.ctx, batch)
		if len(failed) == 0 || attempt > localRetries || l.ctx.Err() != nil {
			if len(failed) > 0 {
				l.w.log.Error("purge of deleted datasets given up", "records", len(failed))
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
