package traces

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

var errScanBound = errors.New("scan bound passed")

// scanSlices is how many time slices of the range are read at once for an estimate of est
// traces: one per sliceTraces, up to four or two per core (the reads wait on the table far
// more than they compute, so more slices than cores pay off), and one for a small run.
func scanSlices(est int64) int {
	return int(max(1, min(est/sliceTraces, int64(max(4, 2*runtime.GOMAXPROCS(0))))))
}

// sliceTraces is the number of traces worth a slice of its own.
const sliceTraces = 20_000

// minSliceSpan keeps slices from being cut finer than a minute.
const minSliceSpan = time.Minute

// fromScan reads the traces of the range (about est) in one streaming pass, split into time
// slices read in parallel, each folded into an aggregator of its own (one page in memory per slice) and
// merged at the end. Passing bound traces stops every slice with the 422 of a too-wide query.
func fromScan(ctx context.Context, t store.Table, runID string, q searchRequest, gcol columns.Column, a *aggregator, est, bound int64) error {
	n := scanSlices(est)
	span := q.end.Sub(q.start)
	if span/time.Duration(n) < minSliceSpan {
		n = max(1, int(span/minSliceSpan))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var seen atomic.Int64
	parts := make([]*aggregator, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		step := span / time.Duration(n)
		from, to := q.start.Add(step*time.Duration(i)), q.start.Add(step*time.Duration(i+1))
		if i == n-1 {
			to = q.end
		}
		parts[i] = a.sibling()
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = scanSlice(ctx, t, runID, q, gcol, parts[i], from, to, &seen, bound)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	if errors.Is(errors.Join(errs...), errScanBound) {
		return errTooWide(q.raw, seen.Load(), bound)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, p := range parts {
		a.merge(p)
	}
	return nil
}

func scanSlice(ctx context.Context, t store.Table, runID string, q searchRequest, gcol columns.Column, a *aggregator,
	from, to time.Time, seen *atomic.Int64, bound int64) error {
	var buf []string
	opts := scanOptions(q.filters, q.groupBy)
	// The aggregator copies what it keeps of a trace (numbers, and strings, which the scan
	// does not reuse).
	opts.Transient = true
	return store.ScanTraces(ctx, t, runID, from, to, opts, func(tr *store.Trace) error {
		if seen.Add(1) > bound {
			return errScanBound
		}
		if opts.Content && q.resolve != nil {
			if err := q.resolve(ctx, &tr.RecordContent); err != nil {
				return err
			}
		}
		for _, f := range q.filters {
			if !f.match(tr) {
				return nil
			}
		}
		if q.groupBy == "" {
			a.addErrors(tr)
			a.addTrace("", tr)
			return nil
		}
		// A trace in no group is left out of a grouped answer, errors included, as the
		// roll-ups of a group column hold no row for it.
		buf = records.GroupValues(tr, gcol, buf)
		if len(buf) > 0 {
			a.addErrors(tr)
		}
		for _, g := range buf {
			a.addTrace(g, tr)
		}
		return nil
	})
}

// sibling is an empty aggregator of the same range, buckets and metrics.
func (a *aggregator) sibling() *aggregator {
	return newAggregator(a.start, a.end, a.interval, a.metrics)
}

// merge folds o (a sibling) into a.
func (a *aggregator) merge(o *aggregator) {
	for g, og := range o.groups {
		gr := a.groups[g]
		if gr == nil {
			a.groups[g] = og
			continue
		}
		for i, c := range og.buckets {
			switch {
			case c == nil:
			case gr.buckets[i] == nil:
				gr.buckets[i] = c
			default:
				gr.buckets[i].merge(c)
			}
		}
		gr.total.merge(&og.total)
	}
	for code, e := range o.errors {
		a.errors[code] = e
	}
}

func (c *cell) merge(o *cell) {
	c.count += o.count
	for i := range c.stats {
		c.stats[i].merge(o.stats[i])
	}
}

// contentColumns are the columns of a trace held in its content, not its header.
var contentColumns = map[string]bool{"input": true, "output": true}

// scanOptions say what a scan with these filters and group_by column must decode: the
// content only when a filter or the group names a content column; and, for filters on
// content columns, their test on the raw content, which skips a trace that fails them before
// anything of it is decoded. The test is exact (the text of a field is read from the raw
// JSON, unescaped only when it holds an escape), so most traces of a selective filter cost
// no decode at all; only content kept in the payload store is left to the full test.
func scanOptions(filters []*filter, groupBy string) store.ScanOptions {
	var o store.ScanOptions
	o.Content = contentColumns[groupBy]
	var onContent []*filter
	for _, f := range filters {
		if !contentColumns[f.column] {
			continue
		}
		o.Content = true
		if f.kind == "text" { // the catalog's kind of input and output; rawContentFields has no other
			onContent = append(onContent, f)
		}
	}
	if len(onContent) > 0 {
		o.Prefilter = func(raw string) bool {
			if strings.Contains(raw, "$evalapi_payload") {
				return true // a content kept in the payload store: only its text can tell
			}
			r := &rawContentFields{raw: raw}
			for _, f := range onContent {
				if !f.matches(r) || r.bad {
					return r.bad // not content as the store writes it: the full decode tells
				}
			}
			return true
		}
	}
	return o
}

// rawContentFields are the content columns of a trace read from its raw content; other
// columns are never asked of it (scanOptions only tests content filters on it).
type rawContentFields struct {
	raw string
	bad bool
}

func (r *rawContentFields) text(id string) (string, bool) {
	t, ok := store.ContentText(r.raw, id)
	if !ok {
		r.bad = true
	}
	return t, ok
}
func (*rawContentFields) ident(string) (string, bool)   { return "", false }
func (*rawContentFields) number(string) (float64, bool) { return 0, false }
func (*rawContentFields) boolean(string) (bool, bool)   { return false, false }
func (*rawContentFields) date(string) (time.Time, bool) { return time.Time{}, false }
func (*rawContentFields) tags() []string                { return nil }
