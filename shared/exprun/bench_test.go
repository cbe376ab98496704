package exprun_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// writeCounter counts the items written through it (each action of a transaction, each
// put, update and batch item) and the calls that read.
type writeCounter struct {
	store.Table
	items, reads atomic.Int64
}

func (c *writeCounter) Put(ctx context.Context, it store.Item, conds ...store.Cond) error {
	c.items.Add(1)
	return c.Table.Put(ctx, it, conds...)
}

func (c *writeCounter) Update(ctx context.Context, u store.Update) (store.Item, error) {
	c.items.Add(1)
	return c.Table.Update(ctx, u)
}

func (c *writeCounter) Transact(ctx context.Context, ops []store.Op) error {
	n := 0
	for _, op := range ops {
		if op.Kind != store.OpCheck {
			n++
		}
	}
	c.items.Add(int64(n))
	return c.Table.Transact(ctx, ops)
}

func (c *writeCounter) BatchWrite(ctx context.Context, puts []store.Item, dels []store.Key) error {
	c.items.Add(int64(len(puts) + len(dels)))
	return c.Table.BatchWrite(ctx, puts, dels)
}

func (c *writeCounter) Get(ctx context.Context, k store.Key, consistent bool) (store.Item, error) {
	c.reads.Add(1)
	return c.Table.Get(ctx, k, consistent)
}

func (c *writeCounter) Query(ctx context.Context, q store.Query) (store.Page, error) {
	c.reads.Add(1)
	return c.Table.Query(ctx, q)
}

func (c *writeCounter) BatchGet(ctx context.Context, keys []store.Key, consistent bool) ([]store.Item, error) {
	c.reads.Add(1)
	return c.Table.BatchGet(ctx, keys, consistent)
}

// benchRows is the size of the benchmark's experiment: at the ceiling of 100 rows/s (50
// calls at once, 500 ms each) one run takes 5 s.
const benchRows = 500

// BenchmarkGenerate: rows generated per second with a model answering in 500 ms (real
// sleeps), at concurrency 50 (5 chunks at once, the worker's cap, times 10 rows each),
// scoring excluded; and the table's writes per row.
func BenchmarkGenerate(b *testing.B) { benchRun(b, false) }

// BenchmarkGenerateAndScore: the same with two scorers, scored in the worker's path by the
// fake evaluator (one revision of the trace per row): rows fully scored per second.
func BenchmarkGenerateAndScore(b *testing.B) { benchRun(b, true) }

func benchRun(b *testing.B, score bool) {
	var rows, writes, reads int64
	var elapsed time.Duration
	for b.Loop() {
		b.StopTimer()
		f := newFixture(b, nil, benchRows)
		wc := &writeCounter{Table: f.tbl}
		f.tbl = wc
		q := &queue{}
		j := f.start(b, q, 0)
		w := f.worker(&fakeModel{delay: 500 * time.Millisecond}, wc, nil)
		w.RowParallelism = 10
		if !score {
			w.Scoring = nil
		} else {
			f.scoring.tbl = wc
		}
		wc.items.Store(0)
		wc.reads.Store(0)
		b.StartTimer()
		start := time.Now()
		q.drain(b, 5, w.HandleChunk)
		elapsed += time.Since(start)
		b.StopTimer()
		if got := f.job(b, j.ID); got.Done != benchRows {
			b.Fatalf("job done %d of %d", got.Done, benchRows)
		}
		rows += benchRows
		writes += wc.items.Load()
		reads += wc.reads.Load()
		b.StartTimer()
	}
	b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(writes)/float64(rows), "writes/row")
	b.ReportMetric(float64(reads)/float64(rows), "reads/row")
}
