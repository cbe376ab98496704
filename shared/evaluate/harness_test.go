package evaluate

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

const (
	orgID     = "org-1"
	projectID = "0b7d3f6a-8a3e-4c55-9e59-000000000001"
	runID     = "0b7d3f6a-8a3e-4c55-9e59-000000000002"
	scorerID  = "0b7d3f6a-8a3e-4c55-9e59-00000000000a"
	metric    = "judged"
)

var base = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// fakeJudge answers deterministically from the record id: a boolean, true for even first
// digest bytes. fail decides a verdict error per record and attempt (nil: none).
type fakeJudge struct {
	mu    sync.Mutex
	calls map[string]int
	fail  func(recordID string, call int) *Verdict
}

func newFakeJudge() *fakeJudge { return &fakeJudge{calls: map[string]int{}} }

func (j *fakeJudge) Judge(_ context.Context, t Task) Verdict {
	j.mu.Lock()
	j.calls[t.RecordID]++
	n := j.calls[t.RecordID]
	j.mu.Unlock()
	if j.fail != nil {
		if v := j.fail(t.RecordID, n); v != nil {
			return *v
		}
	}
	b := expected(t.RecordID)
	return Verdict{Value: Value{Bool: &b}, Explanation: "because " + string(t.Content.Input), Usage: Usage{InputTokens: 10, OutputTokens: 2}}
}

func (j *fakeJudge) total() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, c := range j.calls {
		n += c
	}
	return n
}

func expected(recordID string) bool {
	s := sha256.Sum256([]byte(recordID))
	return s[0]%2 == 0
}

func traceID(i int) string { return fmt.Sprintf("7c0e5a4e-0000-4000-8000-%012d", i) }

// env is a log stream with one LLM scorer and n complete traces.
type env struct {
	t      testing.TB
	tbl    store.Table
	traces []store.Trace
	items  []store.Item
}

func newEnv(t testing.TB, tbl store.Table, n int, segments []store.SegmentFilter) *env {
	t.Helper()
	ctx := context.Background()
	if err := store.CreateProject(ctx, tbl, store.Project{ID: projectID, OrgID: orgID, Name: "p", Type: "gen_ai", CreatedAt: base, UpdatedAt: base}); err != nil {
		t.Fatal(err)
	}
	ls := store.LogStream{ID: runID, ProjectID: projectID, OrgID: orgID, Name: "prod", CreatedAt: base, UpdatedAt: base}
	if err := store.CreateLogStream(ctx, tbl, ls); err != nil {
		t.Fatal(err)
	}
	name, typ := metric, "llm"
	ver := &store.ScorerVersionRecord{ID: "v-1", Version: 1, ScorerID: scorerID}
	scorers := []store.ScorerConfig{{ID: scorerID, Name: &name, ScorerType: &typ, ScorerVersion: ver}}
	if _, err := store.SetMetricSettings(ctx, tbl, ls, &scorers, &segments, base); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, tbl: tbl}
	for i := range n {
		tr := store.Trace{ID: traceID(i), RunID: runID, ProjectID: projectID, OrgID: orgID, Type: "trace", Name: "chat",
			CreatedAt: base.Add(time.Duration(i) * time.Second), IsComplete: true,
			RecordContent: store.RecordContent{Input: store.Content(`"q` + fmt.Sprint(i) + `"`), Output: store.Content(`"a"`)}}
		e.traces = append(e.traces, tr)
	}
	if _, err := store.PutTraces(ctx, tbl, e.traces); err != nil {
		t.Fatal(err)
	}
	for _, tr := range e.traces {
		it, err := tbl.Get(ctx, store.TraceKey(runID, tr.CreatedAt, tr.ID), true)
		if err != nil {
			t.Fatal(err)
		}
		e.items = append(e.items, it)
		// the id claim ingestion writes with each trace (spans find their trace by it)
		ops, err := store.TracePutOps(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := tbl.Put(ctx, ops[1].Item); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// records are the stream records of the traces' creation.
func (e *env) records() []stream.Record {
	out := make([]stream.Record, len(e.items))
	for i, it := range e.items {
		out[i] = stream.Record{ID: fmt.Sprint(i), New: it}
	}
	return out
}

// captured is a Sender that keeps what it is sent.
type captured struct {
	mu     sync.Mutex
	bodies [][]byte
	delays []time.Duration
}

func (c *captured) Send(_ context.Context, bodies [][]byte, delay time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range bodies {
		c.bodies = append(c.bodies, b)
		c.delays = append(c.delays, delay)
	}
	return nil
}

func (c *captured) messages() []queue.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]queue.Message, len(c.bodies))
	for i, b := range c.bodies {
		out[i] = queue.Message{ID: fmt.Sprint(i), Body: b, ReceiveCount: 1}
	}
	return out
}

// dispatchAll runs the dispatcher over the traces' creation and returns the messages sent.
func (e *env) dispatchAll() []queue.Message {
	e.t.Helper()
	c := &captured{}
	d := NewDispatcher(e.tbl, c, 0, nil)
	recs := e.records()
	for _, r := range recs {
		if !d.Accepts(r) {
			e.t.Fatalf("dispatcher refuses the creation of a trace")
		}
	}
	if failed := d.Handle(context.Background(), recs); len(failed) != 0 {
		e.t.Fatalf("dispatch failed for %v", failed)
	}
	return c.messages()
}

// counted reads what the store counted of the metric: values on the traces, the sum over
// the minute roll-ups of the totals, and the run summary's.
func (e *env) counted() (onRecords, inRollups, inSummary int64) {
	e.t.Helper()
	ctx := context.Background()
	for _, tr := range e.traces {
		it, err := e.tbl.Get(ctx, store.TraceKey(runID, tr.CreatedAt, tr.ID), true)
		if err != nil {
			e.t.Fatal(err)
		}
		var got store.Trace
		if err := store.DecodeTrace(it, &got); err != nil {
			e.t.Fatal(err)
		}
		if v := got.Metrics[metric]; v.HasResult() {
			onRecords++
		}
	}
	err := store.ScanRollups(ctx, e.tbl, runID, store.RollupMinute, store.RollupAll, base.Add(-time.Hour), base.Add(24*time.Hour), func(r store.Rollup) error {
		if m := r.Metrics[metric]; m != nil {
			for _, n := range m.Categories {
				inRollups += n
			}
		}
		for _, er := range r.Errors {
			inRollups += er.Count
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	sums, err := store.GetRunSummaries(ctx, e.tbl, []string{runID})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, n := range sums[runID].Metrics[metric].Categories {
		inSummary += n
	}
	return onRecords, inRollups, inSummary
}

func embeddedTable(t testing.TB) store.Table { return testenv.Embedded(t) }

// usage reads today's judge usage of the run: judgments and input tokens.
func (e *env) usage() (n, in int64) {
	e.t.Helper()
	it, err := e.tbl.Get(context.Background(), store.UsageKey(runID, time.Now()), true)
	if err != nil {
		return 0, 0
	}
	n, _ = it["n"].(int64)
	in, _ = it["in"].(int64)
	return n, in
}
