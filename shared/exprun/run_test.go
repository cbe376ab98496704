package exprun_test

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/store"
)

// start starts the fixture's job on q.
func (f *fixture) start(t testing.TB, q exprun.Queue, budget int64) store.ExperimentJob {
	t.Helper()
	svc := &exprun.Service{Table: f.tbl, Queue: q}
	j, err := svc.Start(t.Context(), exprun.StartRequest{UserID: "alice", Experiment: f.exp, Messages: f.msgs, TokenBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func (f *fixture) job(t testing.TB, id string) store.ExperimentJob {
	t.Helper()
	j, err := store.GetExperimentJob(t.Context(), f.tbl, orgID, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// checkAggregates compares the run summary (what operation 12 shows) with a reference
// computed here from the stored traces.
func (f *fixture) checkAggregates(t *testing.T, stored map[string]store.Trace) {
	t.Helper()
	sums, err := store.GetRunSummaries(t.Context(), f.tbl, []string{f.exp.ID})
	if err != nil {
		t.Fatal(err)
	}
	sum := sums[f.exp.ID]
	if sum.NumTraces != int64(len(stored)) {
		t.Errorf("summary counts %d traces, %d stored", sum.NumTraces, len(stored))
	}
	ref := map[string][2]float64{} // metric -> count, sum
	for _, tr := range stored {
		for name, v := range tr.Metrics {
			r := ref[name]
			ref[name] = [2]float64{r[0] + 1, r[1] + *v.Number}
			if want := scoreOf(name, tr.Output.Text()); *v.Number != want {
				t.Errorf("trace %s: %s = %v, want %v", tr.ID, name, *v.Number, want)
			}
		}
		if tr.TotalTokens != nil {
			r := ref["total_tokens"]
			ref["total_tokens"] = [2]float64{r[0] + 1, r[1] + float64(*tr.TotalTokens)}
		}
		if tr.TotalCost != nil {
			r := ref["total_cost"]
			ref["total_cost"] = [2]float64{r[0] + 1, r[1] + *tr.TotalCost}
		}
	}
	for name, r := range ref {
		st := sum.Metrics[name]
		if float64(st.Count) != r[0] || !approx(st.Sum.Float64(), r[1]) {
			t.Errorf("%s: summary count %d sum %v, reference count %v sum %v", name, st.Count, st.Sum.Float64(), r[0], r[1])
		}
		// Operation 12 shows an average only where min and max are known.
		if st.Min == nil || st.Max == nil {
			t.Errorf("%s: the summary has no min or max (operation 12 would show no average)", name)
		}
	}
	if len(ref) < 4 {
		t.Errorf("reference has %d metrics, want quality, relevance, total_tokens, total_cost", len(ref))
	}
}

// TestRunEndToEnd: 1,000 rows, a template, two scorers, every message delivered twice →
// 1,000 traces, each scored by both, the job completed at exactly 100%, aggregates equal to
// the reference from the stored traces, and one provider call per row (the duplicates
// arrive after the first delivery is recorded).
func TestRunEndToEnd(t *testing.T) {
	f := newFixture(t, nil, 1000)
	q := &queue{dup: true}
	j := f.start(t, q, 0)
	if j.State != store.JobQueued || j.Total != 1000 || j.Plan.TokenEstimate <= 0 {
		t.Fatalf("started job: %+v", j)
	}
	if got := q.sent.Load(); got != 1000/exprun.DefaultChunkRows {
		t.Errorf("sent %d messages, want %d", got, 1000/exprun.DefaultChunkRows)
	}
	m := &fakeModel{}
	w := f.worker(m, nil, nil)
	// One consumer: each duplicate comes after its original, so no row is called twice.
	if n := q.drain(t, 1, w.HandleChunk); n != 0 {
		t.Errorf("%d deliveries failed", n)
	}
	j = f.job(t, j.ID)
	if j.State != store.JobCompleted || j.Done != 1000 || j.Failed != 0 || exprun.Progress(j) != 100 {
		t.Errorf("job: state %s done %d failed %d progress %d", j.State, j.Done, j.Failed, exprun.Progress(j))
	}
	if m.total.Load() != 1000 {
		t.Errorf("%d provider calls for 1000 rows", m.total.Load())
	}
	stored := f.storedTraces(t)
	if len(stored) != 1000 {
		t.Fatalf("%d traces stored, want 1000", len(stored))
	}
	for row, tr := range stored {
		if len(tr.Metrics) != 2 || tr.StatusCode == nil || *tr.StatusCode != 200 || tr.DatasetInput == nil ||
			*tr.DatasetInput != "question "+row || tr.DatasetOutput == nil || tr.TotalCost == nil || tr.LatencyMs == nil {
			t.Fatalf("row %s: trace %+v", row, tr)
		}
		if !contains(string(tr.Input), `"Q: question `+row+`"`) {
			t.Fatalf("row %s: input %s", row, tr.Input)
		}
	}
	f.checkAggregates(t, stored)
}

// TestRunFaults: a share of rows refused by the provider (429, 500, timeouts), workers
// killed mid-chunk (after the traces are written, before and after the markers commit) and
// every message delivered twice to concurrent consumers → no row stored twice, none lost,
// counters and errors by type exact, every refused row a trace with its error.
func TestRunFaults(t *testing.T) {
	f := newFixture(t, nil, 1000)
	kill := &killer{}
	tbl := &killTable{Table: f.tbl, k: kill}
	f.tbl = tbl
	q := &queue{dup: true}
	j := f.start(t, q, 0)
	m := &fakeModel{failEvery: 7}
	w := f.worker(m, tbl, &killTraces{Traces: f.worker(m, tbl, nil).Traces, k: kill})
	failures := q.drain(t, 4, w.HandleChunk)
	if failures == 0 {
		t.Fatal("no delivery failed: the faults were not injected")
	}
	wantFailed := map[string]int64{}
	for i := range 1000 {
		prompt := "Q: question " + strconv.Itoa(i)
		if h := hashOf(prompt); h%7 == 0 {
			wantFailed[failKinds[(h/7)%3].Type]++
		}
	}
	var nFailed int64
	for _, n := range wantFailed {
		nFailed += n
	}
	j = f.job(t, j.ID)
	if j.Done+j.Failed != 1000 || j.Failed != nFailed || exprun.Progress(j) != 100 || j.State != store.JobCompleted {
		t.Errorf("job: state %s done %d failed %d, want %d failed", j.State, j.Done, j.Failed, nFailed)
	}
	for typ, n := range wantFailed {
		if j.Errors[typ] != n {
			t.Errorf("errors of type %s: %d, want %d (all: %v)", typ, j.Errors[typ], n, j.Errors)
		}
	}
	stored := f.storedTraces(t)
	if len(stored) != 1000 {
		t.Fatalf("%d traces stored, want 1000", len(stored))
	}
	var errTraces int64
	for _, tr := range stored {
		if tr.ErrorMessage != nil {
			errTraces++
			if tr.StatusCode == nil || *tr.StatusCode == 200 || len(tr.Metrics) != 0 {
				t.Errorf("refused row trace %+v", tr)
			}
		} else if len(tr.Metrics) != 2 {
			t.Errorf("trace %s has %d metrics", tr.ID, len(tr.Metrics))
		}
	}
	if errTraces != nFailed {
		t.Errorf("%d error traces, want %d", errTraces, nFailed)
	}
	f.checkAggregates(t, stored)
}

// TestCancel: a cancel stops new provider calls within one chunk.
func TestCancel(t *testing.T) {
	f := newFixture(t, nil, 500)
	q := &queue{}
	j := f.start(t, q, 0)
	svc := &exprun.Service{Table: f.tbl, Queue: q}
	var once atomic.Bool
	m := &fakeModel{}
	m.onCall = func() {
		if m.total.Load() == 60 && once.CompareAndSwap(false, true) {
			if _, err := svc.Cancel(context.Background(), orgID, j.ID); err != nil {
				t.Error(err)
			}
		}
	}
	w := f.worker(m, nil, nil)
	q.drain(t, 1, w.HandleChunk)
	j = f.job(t, j.ID)
	if j.State != store.JobCancelled {
		t.Fatalf("state %s", j.State)
	}
	if calls := m.total.Load(); calls > 60+exprun.DefaultChunkRows {
		t.Errorf("%d provider calls after a cancel at the 60th (chunks of %d)", calls, exprun.DefaultChunkRows)
	}
	// A retry resumes the rows the cancel left, and calls none of the others again.
	if _, err := svc.Retry(t.Context(), orgID, j.ID); err != nil {
		t.Fatal(err)
	}
	q.drain(t, 1, w.HandleChunk)
	j = f.job(t, j.ID)
	if j.State != store.JobCompleted || j.Done != 500 || m.total.Load() != 500 {
		t.Errorf("resumed: state %s done %d, %d provider calls for 500 rows", j.State, j.Done, m.total.Load())
	}
	if _, err := svc.Retry(t.Context(), orgID, j.ID); !errors.Is(err, exprun.ErrNotRetryable) {
		t.Errorf("retry of a job with every row done: %v", err)
	}
}

// TestRetryFailedRows: a retry runs the failed rows only, replaces their error traces and
// moves the counters from failed to done.
func TestRetryFailedRows(t *testing.T) {
	f := newFixture(t, nil, 300)
	q := &queue{}
	j := f.start(t, q, 0)
	q.drain(t, 2, f.worker(&fakeModel{failEvery: 5}, nil, nil).HandleChunk)
	j = f.job(t, j.ID)
	if j.Failed == 0 || j.State != store.JobCompleted {
		t.Fatalf("first run: %+v", j)
	}
	failed := j.Failed
	svc := &exprun.Service{Table: f.tbl, Queue: q}
	if _, err := svc.Retry(t.Context(), orgID, j.ID); err != nil {
		t.Fatal(err)
	}
	good := &fakeModel{}
	q.drain(t, 2, f.worker(good, nil, nil).HandleChunk)
	if good.total.Load() != failed {
		t.Errorf("the retry called the provider %d times for %d failed rows", good.total.Load(), failed)
	}
	j = f.job(t, j.ID)
	if j.Done != 300 || j.Failed != 0 || j.State != store.JobCompleted || j.Attempt != 2 || len(j.Errors) != 0 {
		t.Errorf("after retry: state %s done %d failed %d attempt %d errors %v", j.State, j.Done, j.Failed, j.Attempt, j.Errors)
	}
	stored := f.storedTraces(t)
	if len(stored) != 300 {
		t.Fatalf("%d traces, want 300", len(stored))
	}
	for _, tr := range stored {
		if tr.ErrorMessage != nil {
			t.Errorf("error trace left: %+v", tr)
		}
	}
	f.checkAggregates(t, stored)
}

// TestTokenBudget: once the job's tokens reach its budget, rows are refused without a
// provider call (checked at each chunk's start and within it).
func TestTokenBudget(t *testing.T) {
	f := newFixture(t, nil, 200)
	q := &queue{}
	j := f.start(t, q, 500)
	m := &fakeModel{}
	q.drain(t, 1, f.worker(m, nil, nil).HandleChunk)
	j = f.job(t, j.ID)
	if j.Errors[exprun.ErrBudget] == 0 || m.total.Load() >= 200 || j.Done+j.Failed != 200 {
		t.Errorf("budget: calls %d, job done %d failed %d errors %v", m.total.Load(), j.Done, j.Failed, j.Errors)
	}
}

// TestPlanProblems: what cannot run is refused before anything is stored.
func TestPlanProblems(t *testing.T) {
	f := newFixture(t, nil, 3)
	cases := []struct {
		name string
		msgs []store.PromptMessage
		edit func(e *store.Experiment)
		want string
	}{
		{"missing variables", []store.PromptMessage{{Role: "user", Content: "{{input}} {{context}} {{ lang }}"}}, nil, "[context lang]"},
		{"no prompt", nil, nil, "no prompt"},
		{"no model", f.msgs, func(e *store.Experiment) { e.PromptModel = nil }, "prompt_model"},
		{"no dataset", f.msgs, func(e *store.Experiment) { e.Dataset = nil }, "no dataset"},
		{"unknown version", f.msgs, func(e *store.Experiment) {
			e.Dataset = &store.ExperimentDataset{DatasetID: e.Dataset.DatasetID, VersionIndex: 9}
		}, "no version 9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := f.exp
			if c.edit != nil {
				c.edit(&e)
			}
			_, _, err := exprun.Plan(t.Context(), f.tbl, e, c.msgs)
			var p *exprun.Problem
			if !errors.As(err, &p) || !contains(p.Msg, c.want) {
				t.Errorf("got %v, want a problem naming %q", err, c.want)
			}
		})
	}
}

// killer decides which calls a killed worker does not survive: every 5th.
type killer struct{ n atomic.Int64 }

func (k *killer) now() bool { return k.n.Add(1)%5 == 0 }

// killTable fails some transactions that record rows, half before they apply and half
// after (the worker dies before it hears the answer).
type killTable struct {
	store.Table
	k     *killer
	after atomic.Bool
}

func (t *killTable) Transact(ctx context.Context, ops []store.Op) error {
	recordsRows := false
	for _, op := range ops {
		if op.Kind == store.OpPut && op.Item[store.AttrEntity] == store.EntityJobRow {
			recordsRows = true
		}
	}
	if !recordsRows || !t.k.now() {
		return t.Table.Transact(ctx, ops)
	}
	if t.after.Swap(!t.after.Load()) {
		if err := t.Table.Transact(ctx, ops); err != nil {
			return err
		}
	}
	return errKilled
}

// killTraces fails some writes after the traces are stored (the worker dies before it
// records the rows).
type killTraces struct {
	exprun.Traces
	k *killer
}

func (t *killTraces) Write(ctx context.Context, run store.Run, trs []store.Trace) error {
	if err := t.Traces.Write(ctx, run, trs); err != nil {
		return err
	}
	if t.k.now() {
		return errKilled
	}
	return nil
}

var _ = time.Second

// TestHandleSQS: a batch's failed messages are reported by id, the others are not.
func TestHandleSQS(t *testing.T) {
	f := newFixture(t, nil, 40)
	q := &queue{}
	f.start(t, q, 0)
	w := f.worker(&fakeModel{}, nil, nil)
	var ev events.SQSEvent
	for i := 0; ; i++ {
		b, ok := q.take()
		if !ok {
			break
		}
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: "m" + strconv.Itoa(i), Body: string(b)})
	}
	ev.Records = append(ev.Records, events.SQSMessage{MessageId: "bad", Body: "not json"})
	resp, err := w.HandleSQS(t.Context(), ev)
	if err != nil || len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "bad" {
		t.Errorf("batch failures: %+v %v", resp.BatchItemFailures, err)
	}
}

// TestRunOnEveryBackend: a small run with refusals, duplicates and a retry on every store
// backend (DynamoDB Local and moto in the full suite): the conditional writes and counters
// hold there too. One chunk of a few rows is enough for what the emulators add (their own
// condition and transaction semantics); the counts are TestRunFaults' on the embedded store.
// That the backend refused a duplicate's markers, the path this test exists for, is
// asserted by counting, not trusted to the row count.
func TestRunOnEveryBackend(t *testing.T) {
	for _, b := range testenv.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel() // the emulators are separate processes: their waits overlap
			const n = 4  // one chunk; row 2 is refused by the model (failEvery 4)
			tbl := newCountTable(b.Open(t))
			f := newFixture(t, tbl, n)
			q := &queue{dup: true}
			j := f.start(t, q, 0)
			if got := q.sent.Load(); got != 1 {
				t.Fatalf("sent %d messages, want one chunk", got)
			}
			q.drain(t, 3, f.worker(&fakeModel{failEvery: 4}, nil, nil).HandleChunk)
			j = f.job(t, j.ID)
			if j.Done+j.Failed != n || j.Failed == 0 || j.State != store.JobCompleted {
				t.Fatalf("job: %+v", j)
			}
			svc := &exprun.Service{Table: f.tbl, Queue: q}
			if _, err := svc.Retry(t.Context(), orgID, j.ID); err != nil {
				t.Fatal(err)
			}
			q.drain(t, 3, f.worker(&fakeModel{}, nil, nil).HandleChunk)
			j = f.job(t, j.ID)
			stored := f.storedTraces(t)
			if j.Done != n || j.Failed != 0 || len(stored) != n {
				t.Fatalf("after retry: done %d failed %d, %d traces", j.Done, j.Failed, len(stored))
			}
			f.checkAggregates(t, stored)
			c := tbl.counts()
			t.Logf("%s: calls %v, %d conditional writes refused (%d of markers)", b.Name, c.calls, c.refused, c.markersRefused)
			if c.markersRefused == 0 {
				t.Errorf("the backend refused no marker transaction: the duplicate deliveries never met (calls %v)", c.calls)
			}
		})
	}
}

// TestPlanModel: the original's clients name the model in prompt_settings.model_alias; a
// prompt_model sent wins over it.
func TestPlanModel(t *testing.T) {
	f := newFixture(t, nil, 3)
	alias, named := "alias-model", "named-model"
	for _, c := range []struct {
		name     string
		model    *string
		settings map[string]any
		want     string
	}{
		{"prompt_model", &named, nil, named},
		{"model_alias when no prompt_model", nil, map[string]any{"model_alias": alias, "temperature": 0.5}, alias},
		{"prompt_model wins", &named, map[string]any{"model_alias": alias}, named},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := f.exp
			e.PromptModel, e.PromptRunSettings = c.model, c.settings
			plan, _, err := exprun.Plan(t.Context(), f.tbl, e, f.msgs)
			if err != nil || plan.Model != c.want {
				t.Errorf("model %q, %v; want %q", plan.Model, err, c.want)
			}
		})
	}
}
