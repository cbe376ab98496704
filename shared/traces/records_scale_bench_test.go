//go:build bench

package traces

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

// BenchmarkRecordsAtScale: the observability reads at BENCH_TRACES traces (1,000,000 by
// default) of 5 spans each on the embedded store, through the handlers. Built only by
// `make bench` (the bench tag): loading the store takes minutes and gigabytes.
//
//	BENCH_TRACES=1000000 go test -tags bench -run '^$' -bench RecordsAtScale -benchtime 200x ./shared/traces/
//
// Round trips (rt/op, depth/op) and items read (items/op) are the store calls the handlers
// make, which are the same calls on DynamoDB; times are the embedded store's.
func BenchmarkRecordsAtScale(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("BENCH_TRACES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	db, err := embedded.Open(filepath.Join(b.TempDir(), "scale.db"), embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	items := &itemsRead{Table: db}
	counted := storecount.New(items)
	h := newHarnessOn(b, counted, Deps{})
	run, err := store.GetRun(context.Background(), db, h.org.ID, ExampleProjectID, ExampleLogStreamID)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	ids := loadScale(b, db, run, n)
	b.Logf("loaded %d traces and %d spans in %s", n, 5*n, time.Since(start).Round(time.Second))

	serve := func(b *testing.B, method, path, body string) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header = h.org.Admin.Header()
		r.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.rt.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
		}
	}
	// measure first counts the store calls of 20 requests with every call taking 2 ms, so
	// that calls made at once show as one wave (depth), as on DynamoDB; then it times b.N
	// requests at the embedded store's speed.
	measure := func(b *testing.B, req func(i int) (method, path, body string)) {
		const counted20 = 20
		counted.Reset()
		items.n.Store(0)
		items.delay = 2 * time.Millisecond
		for i := range counted20 {
			m, p, body := req(1_000_000 + i)
			serve(b, m, p, body)
		}
		items.delay = 0
		s, read := counted.Snapshot(), items.n.Load()
		b.Logf("store calls of %d requests: %s", counted20, s)
		b.ResetTimer()
		for i := range b.N {
			m, p, body := req(i)
			serve(b, m, p, body)
		}
		b.StopTimer()
		b.ReportMetric(float64(s.Total)/counted20, "rt/op")
		b.ReportMetric(float64(s.Depth)/counted20, "depth/op")
		b.ReportMetric(float64(read)/counted20, "items/op")
	}
	ls := `"log_stream_id":"` + ExampleLogStreamID + `"`
	b.Run("trace_by_id", func(b *testing.B) {
		measure(b, func(i int) (string, string, string) {
			return "GET", projectPath + "/traces/" + ids[(i*7919)%n], ""
		})
	})
	b.Run("keyset_page_at_middle", func(b *testing.B) {
		// Newest first: the row at the middle of the run, then the 100 after it.
		measure(b, func(i int) (string, string, string) {
			return "POST", projectPath + "/traces/search", `{` + ls + `,"limit":100,"previous_last_row_id":"` + ids[n/2+i%1000] + `"}`
		})
	})
	b.Run("filtered_search_one_hour", func(b *testing.B) {
		// One trace in 100 is named "rare"; an hour of the day's traces is scanned.
		from := scaleDay.Add(10 * time.Hour)
		body := `{` + ls + `,"limit":100,"filters":[{"type":"text","column_id":"name","operator":"eq","value":"rare"},` +
			`{"type":"date","column_id":"created_at","operator":"gte","value":"` + from.Format(time.RFC3339) + `"},` +
			`{"type":"date","column_id":"created_at","operator":"lt","value":"` + from.Add(time.Hour).Format(time.RFC3339) + `"}]}`
		measure(b, func(int) (string, string, string) { return "POST", projectPath + "/traces/search", body })
		b.ReportMetric(float64(n)/24/100, "matches/hour") // a page answers the first 100
	})
	var batches atomic.Int64 // ingestion batches are new traces in every run of the benchmark
	b.Run("ingest_100x5", func(b *testing.B) {
		measure(b, func(int) (string, string, string) {
			i := batches.Add(1)
			var tb strings.Builder
			tb.WriteString(`{` + ls + `,"traces":[`)
			for j := range 100 {
				if j > 0 {
					tb.WriteByte(',')
				}
				fmt.Fprintf(&tb, `{"id":"%08x-1111-4000-8000-%012x","name":"t","input":"q","output":"a","spans":[{"type":"agent","name":"a","spans":[`+
					`{"type":"llm","name":"l","input":"q","output":"a"},{"type":"retriever","name":"r","input":"q","output":"d"},`+
					`{"type":"tool","name":"t","input":"q","output":"o"},{"type":"llm","name":"l2","input":"q","output":"a"}]}]}`, i, j)
			}
			tb.WriteString(`]}`)
			return "POST", projectPath + "/traces", tb.String()
		})
		b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "spans/s")
	})
}

// loadScale writes n traces of 5 spans each (an agent with llm, retriever, tool and llm
// spans under it) over scaleDay straight into the table, in key order, and counts them in
// the run's summary; it returns the trace ids, newest first.
func loadScale(b *testing.B, db store.Table, run store.Run, n int) []string {
	ctx := context.Background()
	step := 24 * time.Hour / time.Duration(n)
	ids := make([]string, n)
	const chunk = 20_000
	var traces, spans []store.Item
	flush := func() {
		slices.SortFunc(spans, func(x, y store.Item) int { return strings.Compare(x.Key().PK+x.Key().SK, y.Key().PK+y.Key().SK) })
		for _, batch := range [][]store.Item{traces, spans} {
			if err := db.BatchWrite(ctx, batch, nil); err != nil {
				b.Fatal(err)
			}
		}
		traces, spans = traces[:0], spans[:0]
	}
	kinds := []string{"llm", "retriever", "tool", "llm"}
	for i := range n {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", 0x5ca1e, i)
		ids[n-1-i] = id
		at := scaleDay.Add(time.Duration(i) * step)
		name := "turn"
		if i%100 == 0 {
			name = "rare"
		}
		tr := store.Trace{ID: id, RunID: run.ID, ProjectID: run.ProjectID, OrgID: run.OrgID, Type: "trace", Name: name,
			CreatedAt: at, IsComplete: true, HasChildren: true, NumSpans: 5,
			RecordContent: store.RecordContent{Input: store.StringContent("question " + id), Output: store.StringContent("answer")}}
		it, err := store.TraceItem(tr)
		if err != nil {
			b.Fatal(err)
		}
		traces = append(traces, it)
		agent := fmt.Sprintf("%08x-0000-4000-8000-%012x", 0xa9e7, i)
		for k := range 5 {
			sp := store.Span{ID: agent, TraceID: id, ParentID: id, RunID: run.ID, ProjectID: run.ProjectID, OrgID: run.OrgID,
				Depth: 1, Type: "agent", Name: "agent", CreatedAt: at, IsComplete: true, HasChildren: true,
				RecordContent: store.RecordContent{Input: store.StringContent("question"), Output: store.StringContent("answer")}}
			if k > 0 {
				sp.ID, sp.ParentID, sp.Depth, sp.Type, sp.Name, sp.HasChildren = fmt.Sprintf("%08x-%04x-4000-8000-%012x", 0x5fa7, k, i), agent, 2, kinds[k-1], kinds[k-1], false
			}
			it, err := store.SpanItem(sp)
			if err != nil {
				b.Fatal(err)
			}
			spans = append(spans, it)
		}
		if len(traces) == chunk {
			flush()
		}
	}
	flush()
	sum := store.RunSummary{RunID: run.ID, NumTraces: int64(n), NumSpans: 5 * int64(n)}
	if err := store.AddToRunSummary(ctx, db, run.ID, sum, scaleDay); err != nil {
		b.Fatal(err)
	}
	return ids
}

// itemsRead counts the items the store answers: one per Get, those of each BatchGet and Query.
type itemsRead struct {
	store.Table
	n     atomic.Int64
	delay time.Duration // each call's added latency while round trips are counted
}

func (c *itemsRead) wait() {
	if c.delay > 0 {
		time.Sleep(c.delay)
	}
}

func (c *itemsRead) Get(ctx context.Context, k store.Key, consistent bool) (store.Item, error) {
	c.wait()
	it, err := c.Table.Get(ctx, k, consistent)
	if err == nil {
		c.n.Add(1)
	}
	return it, err
}

func (c *itemsRead) BatchGet(ctx context.Context, keys []store.Key, consistent bool) ([]store.Item, error) {
	c.wait()
	its, err := c.Table.BatchGet(ctx, keys, consistent)
	c.n.Add(int64(len(its)))
	return its, err
}

func (c *itemsRead) Query(ctx context.Context, q store.Query) (store.Page, error) {
	c.wait()
	p, err := c.Table.Query(ctx, q)
	c.n.Add(int64(len(p.Items)))
	return p, err
}

func (c *itemsRead) Put(ctx context.Context, it store.Item, conds ...store.Cond) error {
	c.wait()
	return c.Table.Put(ctx, it, conds...)
}

func (c *itemsRead) Update(ctx context.Context, u store.Update) (store.Item, error) {
	c.wait()
	return c.Table.Update(ctx, u)
}

func (c *itemsRead) Transact(ctx context.Context, ops []store.Op) error {
	c.wait()
	return c.Table.Transact(ctx, ops)
}

func (c *itemsRead) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	c.wait()
	return c.Table.BatchWrite(ctx, puts, deletes)
}
