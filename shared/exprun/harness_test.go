package exprun_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

var t0 = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

// fakeModel answers from the rendered prompt; rows whose prompt hashes into failEvery
// buckets are refused with the error kinds of the provider client, round robin.
type fakeModel struct {
	failEvery uint32 // 0: never fails
	delay     time.Duration
	calls     sync.Map // rendered user prompt -> *atomic.Int64
	total     atomic.Int64
	onCall    func()
}

var failKinds = []*exprun.ModelError{
	{Type: exprun.ErrRateLimit, Message: "429 Too Many Requests", Status: 429},
	{Type: exprun.ErrLLMAPI, Message: "500 upstream error", Status: 500},
	{Type: exprun.ErrTimeout, Message: "the provider did not answer in time"},
}

func hashOf(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

func (m *fakeModel) Complete(ctx context.Context, c exprun.Completion) (exprun.Answer, error) {
	m.total.Add(1)
	if m.onCall != nil {
		m.onCall()
	}
	prompt := c.Messages[len(c.Messages)-1].Content
	n, _ := m.calls.LoadOrStore(prompt, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	if m.delay > 0 {
		select {
		case <-time.After(m.delay):
		case <-ctx.Done():
			return exprun.Answer{}, ctx.Err()
		}
	}
	h := hashOf(prompt)
	if m.failEvery > 0 && h%m.failEvery == 0 {
		return exprun.Answer{}, failKinds[(h/m.failEvery)%uint32(len(failKinds))]
	}
	return exprun.Answer{Text: "answer to " + prompt, InputTokens: int64(len(prompt)/4 + 1), OutputTokens: int64(h%50 + 1), FinishReason: "stop"}, nil
}

// fakeScoring scores each trace with every scorer at once, writing the values through the
// observability write path (so the run summary, which operation 12 reads, moves).
type fakeScoring struct {
	tbl   store.Table
	names map[string]string // scorer id -> metric name
	calls atomic.Int64
}

// scoreOf is the score a scorer gives an output: a fixed function, so the test can
// compute the reference from the stored traces.
func scoreOf(metric, output string) float64 {
	h := hashOf(metric + output)
	return float64(h%101) / 100
}

func (s *fakeScoring) Score(ctx context.Context, req exprun.ScoreRequest) error {
	s.calls.Add(1)
	for _, id := range req.TraceIDs {
		it, err := s.readOutput(ctx, req.RunID, id)
		if err != nil {
			return err
		}
		m := map[string]store.MetricValue{}
		for _, sid := range req.ScorerIDs {
			v := scoreOf(s.names[sid], it)
			m[s.names[sid]] = store.MetricValue{Number: &v}
		}
		if err := records.SetTraceMetrics(ctx, s.tbl, req.RunID, id, m, t0); err != nil {
			return err
		}
	}
	return nil
}

func (s *fakeScoring) readOutput(ctx context.Context, runID, id string) (string, error) {
	claim, err := s.tbl.Get(ctx, store.RecordClaimKey(runID, id), true)
	if err != nil {
		return "", err
	}
	it, err := s.tbl.Get(ctx, store.Key{PK: "RUN#" + runID, SK: claim["record_sk"].(string)}, true)
	if err != nil {
		return "", err
	}
	var tr store.Trace
	if err := store.DecodeTraceContent(it, &tr); err != nil {
		return "", err
	}
	return tr.Output.Text(), nil
}

// queue is an in-test queue with at-least-once delivery: a failed message is delivered
// again, dup delivers every message twice, and consumers run at once.
type queue struct {
	mu      sync.Mutex
	pending [][]byte
	dup     bool
	sent    atomic.Int64
}

func (q *queue) Send(_ context.Context, bodies [][]byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, b := range bodies {
		q.sent.Add(1)
		q.pending = append(q.pending, b)
		if q.dup {
			q.pending = append(q.pending, b)
		}
	}
	return nil
}

func (q *queue) take() ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		return nil, false
	}
	b := q.pending[0]
	q.pending = q.pending[1:]
	return b, true
}

// drain runs consumers until the queue is empty, redelivering failed messages; it returns
// how many deliveries failed.
func (q *queue) drain(t testing.TB, consumers int, handle func(context.Context, []byte) error) int {
	t.Helper()
	var failures atomic.Int64
	for round := 0; round < 200; round++ {
		var wg sync.WaitGroup
		var retry [][]byte
		var mu sync.Mutex
		for range consumers {
			wg.Go(func() {
				for {
					b, ok := q.take()
					if !ok {
						return
					}
					if err := handle(t.Context(), b); err != nil {
						if failures.Add(1) <= 3 {
							t.Logf("delivery failed (delivered again): %v", err)
						}
						mu.Lock()
						retry = append(retry, b)
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		if len(retry) == 0 {
			return int(failures.Load())
		}
		q.mu.Lock()
		q.pending = append(q.pending, retry...)
		q.mu.Unlock()
	}
	t.Fatal("the queue never drained")
	return 0
}

// fixture is a project with a dataset of n rows and an experiment on it with two scorers.
type fixture struct {
	tbl     store.Table
	org     string
	exp     store.Experiment
	msgs    []store.PromptMessage
	scoring *fakeScoring
}

const orgID = "org-1"

func newFixture(t testing.TB, tbl store.Table, n int) *fixture {
	t.Helper()
	if tbl == nil {
		tbl = testenv.Embedded(t)
	}
	ctx := t.Context()
	p := store.Project{ID: uuid.NewString(), OrgID: orgID, Name: "p", CreatedBy: "alice", CreatedAt: t0, UpdatedAt: t0}
	if err := store.CreateProject(ctx, tbl, p); err != nil {
		t.Fatal(err)
	}
	d := store.Dataset{ID: uuid.NewString(), OrgID: orgID, Name: "ds", ColumnNames: []string{"input", "output", "topic"}, CreatedBy: "alice", CreatedAt: t0}
	rows := make([]store.NewDatasetRow, n)
	for i := range rows {
		rows[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: []any{fmt.Sprint("question ", i), fmt.Sprint("truth ", i), []string{"a", "b"}[i%2]}}
	}
	owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: d.ID, OrgID: orgID, UserID: "alice", Role: store.DatasetOwner, CreatedAt: t0}
	d, err := store.CreateDataset(ctx, tbl, d, owner, rows)
	if err != nil {
		t.Fatal(err)
	}
	model := "gpt-test"
	q1, q2 := "quality", "relevance"
	e := store.Experiment{ID: uuid.NewString(), ProjectID: p.ID, OrgID: orgID, Name: "e1", TaskType: 16, CreatedBy: "alice",
		CreatedAt: t0, UpdatedAt: t0, Dataset: &store.ExperimentDataset{DatasetID: d.ID, VersionIndex: 0, Name: "ds"},
		PromptModel: &model, PromptRunSettings: map[string]any{"temperature": 0.5, "max_tokens": int64(64)}}
	e.Scorers = []store.ScorerConfig{{ID: uuid.NewString(), Name: &q1}, {ID: uuid.NewString(), Name: &q2}}
	if err := store.CreateExperiment(ctx, tbl, e); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{e.Scorers[0].ID: q1, e.Scorers[1].ID: q2}
	return &fixture{tbl: tbl, org: orgID, exp: e, scoring: &fakeScoring{tbl: tbl, names: names},
		msgs: []store.PromptMessage{{Role: "system", Content: "Answer about {{topic}}."}, {Role: "user", Content: "Q: {{ input }}"}}}
}

func (f *fixture) worker(m exprun.Model, tbl store.Table, tr exprun.Traces) *exprun.Worker {
	if tbl == nil {
		tbl = f.tbl
	}
	if tr == nil {
		tr = records.RunnerTraces{Table: tbl}
	}
	return &exprun.Worker{Table: tbl, Model: m, Scoring: f.scoring, Traces: tr, RowParallelism: 8,
		Prices: prices{"gpt-test": {1, 2}}}
}

type prices map[string][2]float64

func (p prices) Price(_ context.Context, _, _, model string) (float64, float64, bool) {
	v, ok := p[model]
	return v[0], v[1], ok
}

// storedTraces are the experiment's traces as stored, by row index; a row stored twice
// fails the test.
func (f *fixture) storedTraces(t *testing.T) map[string]store.Trace {
	t.Helper()
	out := map[string]store.Trace{}
	err := store.ScanTraces(t.Context(), f.tbl, f.exp.ID, time.Time{}, time.Now().Add(time.Hour), store.ScanOptions{Content: true}, func(tr *store.Trace) error {
		row := tr.Metadata["dataset_row_index"]
		if _, dup := out[row]; dup {
			return fmt.Errorf("row %s has two traces", row)
		}
		out[row] = *tr
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

// errKilled is a worker stopped mid-chunk.
var errKilled = errors.New("killed")

func contains(s, sub string) bool { return strings.Contains(s, sub) }
