package traces

import (
	"context"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

// Benchmarks of the metrics search; docs/PERFORMANCE.md ("Metrics search") has the figures.
//
//	go test -run '^$' -bench . -benchtime 1x ./shared/traces/

// benchTraces are n random traces of the property test's kind, spread over three hours.
func benchTraces(run store.Run, n int) []store.Trace {
	r := rand.New(rand.NewSource(7))
	sessions := []string{"30000000-0000-4000-8000-000000000001", "30000000-0000-4000-8000-000000000002"}
	out := make([]store.Trace, n)
	for i := range out {
		out[i] = randomTrace(r, i, sessions)
		out[i].RunID, out[i].ProjectID, out[i].OrgID = run.ID, run.ProjectID, run.OrgID
	}
	return out
}

func benchRun() store.Run {
	return store.Run{ID: "60000000-0000-4000-8000-000000000002", ProjectID: "60000000-0000-4000-8000-000000000001",
		OrgID: "org-bench", Kind: store.RunLogStream, MetricSettings: store.MetricSettings{Scorers: propScorers}}
}

// BenchmarkScanAggregation is the throughput of the streaming pass over trace items already
// read: decode, filter and fold, grouped by model, 5-minute buckets over three hours.
func BenchmarkScanAggregation(b *testing.B) {
	run := benchRun()
	trs := benchTraces(run, 20_000)
	items := make([]store.Item, len(trs))
	for i, tr := range trs {
		items[i], _ = store.TraceItem(tr)
	}
	f := &filter{kind: "number", column: "status_code", op: "gte", nums: []float64{0}}
	col, _ := columns.Lookup("model")
	b.ResetTimer()
	for range b.N {
		a := newAggregator(propStart, propStart.Add(3*time.Hour), 5*time.Minute, metricsFor(run))
		var tr store.Trace
		var buf []string
		for _, it := range items {
			if err := store.DecodeTrace(it, &tr); err != nil {
				b.Fatal(err)
			}
			if !f.match(&tr) {
				continue
			}
			buf = records.GroupValues(&tr, col, buf)
			for _, g := range buf {
				a.addTrace(g, &tr)
			}
		}
		_ = a.response(true)
	}
	b.ReportMetric(float64(len(items)*b.N)/b.Elapsed().Seconds(), "traces/s")
}

// BenchmarkRollupDay is a 24-hour query in 5-minute buckets answered from the roll-ups of a
// day holding about a million traces.
func BenchmarkRollupDay(b *testing.B) {
	base := testenv.Embedded(b)
	run := scaleRun(b, base)
	bulkRollups(b, base, run, 695)
	benchSearchBothPaths(b, base, run, dayQuery(b, run, ""), 0)
}

// benchSearchBothPaths times the search q of run on base in two sub-benchmarks: items,
// through Query's pages of items (DynamoDB's path, and wrapped tables'), and ranged, through
// the embedded store's RangeAttrs and RangeItems. traces > 0 also reports traces/s.
func benchSearchBothPaths(b *testing.B, base store.Table, run store.Run, q searchRequest, traces int) {
	for _, ranged := range []bool{false, true} {
		b.Run(map[bool]string{false: "items", true: "ranged"}[ranged], func(b *testing.B) {
			ic := &itemCounter{Table: base}
			var tbl store.Table = ic
			if ranged {
				tbl = rangeCounter{ic, base.(ranger)}
			}
			b.ResetTimer()
			for range b.N {
				if _, err := runSearch(context.Background(), tbl, run, q, DefaultScanBound); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(ic.items.Load())/float64(b.N), "items/op")
			if traces > 0 {
				b.ReportMetric(float64(traces*b.N)/b.Elapsed().Seconds(), "traces/s")
			}
		})
	}
}

// BenchmarkFilteredScan100k is a filtered query over 100,000 stored traces (the scan path).
func BenchmarkFilteredScan100k(b *testing.B) {
	base := testenv.Embedded(b)
	run := scaleRun(b, base)
	trs := benchTraces(run, 100_000)
	items := make([]store.Item, len(trs))
	for i, tr := range trs {
		items[i], _ = store.TraceItem(tr)
	}
	// In key order, so that the embedded store appends instead of splitting pages.
	slices.SortFunc(items, func(x, y store.Item) int { return strings.Compare(x.Key().SK, y.Key().SK) })
	if err := base.BatchWrite(context.Background(), items, nil); err != nil {
		b.Fatal(err)
	}
	sum := store.RunSummary{RunID: run.ID, NumTraces: int64(len(items))}
	if err := store.AddToRunSummary(context.Background(), base, run.ID, sum, propStart); err != nil {
		b.Fatal(err)
	}
	q := searchRequest{start: propStart, end: propStart.Add(3 * time.Hour), interval: 5 * time.Minute,
		filters: []*filter{{kind: "text", column: "input", op: "contains", strs: []string{"input 1"}, caseSensitive: true}}}
	benchSearchBothPaths(b, base, run, q, len(items))
}

// ranger is the embedded store's ranging.
type ranger interface {
	store.AttrRanger
	store.ItemRanger
}

// rangeCounter is an itemCounter that ranges: it counts the items RangeAttrs and RangeItems
// show.
type rangeCounter struct {
	*itemCounter
	r ranger
}

func (c rangeCounter) RangeItems(ctx context.Context, q store.Query, fn func([]store.Attr) error) error {
	return c.r.RangeItems(ctx, q, func(a []store.Attr) error {
		c.items.Add(1)
		return fn(a)
	})
}

func (c rangeCounter) RangeAttrs(ctx context.Context, q store.Query, names []string, keep func([]store.AttrView) bool, fn func([]store.AttrView) error) error {
	if keep == nil {
		keep = func([]store.AttrView) bool { return true }
	}
	return c.r.RangeAttrs(ctx, q, names, func(v []store.AttrView) bool {
		c.items.Add(1) // every item visited is read, kept or not
		return keep(v)
	}, fn)
}

// BenchmarkIngest1000 is one ingestion request of 1000 traces spread over ten minutes: one
// batch read of what is stored already, then the chunks of traces, one transaction each,
// which store the traces with their session claims and fold them into the roll-ups, the
// column summary and the run summary.
func BenchmarkIngest1000(b *testing.B) {
	base := testenv.Embedded(b)
	run := scaleRun(b, base)
	run.Scorers = propScorers
	counted := storecount.New(base)
	actions := &actionCounter{Table: counted}
	r := rand.New(rand.NewSource(3))
	sessions := []string{"30000000-0000-4000-8000-000000000001"}
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		trs := make([]store.Trace, 1000)
		for i := range trs {
			trs[i] = randomTrace(r, n*1000+i, sessions)
			trs[i].CreatedAt = propStart.Add(time.Duration(r.Int63n(int64(10 * time.Minute))))
		}
		counted.Reset()
		actions.n.Store(0)
		b.StartTimer()
		if _, err := records.Ingest(context.Background(), actions, run, trs, propStart); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s := counted.Snapshot()
	b.ReportMetric(float64(s.Calls["Transact"]), "transactions/op")
	b.ReportMetric(float64(s.Calls["BatchGet"]), "batchgets/op") // BatchGetItem requests of 100 keys
	b.ReportMetric(float64(actions.n.Load()), "actions/op")
	b.ReportMetric(float64(s.Total), "calls/op")
}

// actionCounter counts the actions of the transactions of the last request.
type actionCounter struct {
	store.Table
	n atomic.Int64
}

func (c *actionCounter) Transact(ctx context.Context, ops []store.Op) error {
	c.n.Add(int64(len(ops)))
	return c.Table.Transact(ctx, ops)
}
