package evaluate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces"
)

// Evaluator consumes the queue: per message it loads the record (payload pointers
// resolved), asks the Judge, and writes the value or the error on the record together with
// its roll-ups and the (record, scorer version) claim in one transaction
// (traces.WriteScore), so that each is counted exactly once.
type Evaluator struct {
	table           store.Table
	payloads        payload.Store
	judge           Judge
	log             *slog.Logger
	maxReceiveCount int
	parallel        int
	now             func() time.Time
}

// EvaluatorOptions are the evaluator's settings.
type EvaluatorOptions struct {
	// MaxReceiveCount is the queue's redrive setting: on the last delivery a retryable
	// failure is written as the record's error instead of being retried. Default 5.
	MaxReceiveCount int
	// Parallel is how many messages of a batch are judged at once. Default 10.
	Parallel int
	Log      *slog.Logger
}

// NewEvaluator returns an evaluator writing to t, reading payloads from ps (nil: none).
func NewEvaluator(t store.Table, ps payload.Store, j Judge, o EvaluatorOptions) *Evaluator {
	if o.MaxReceiveCount <= 0 {
		o.MaxReceiveCount = 5
	}
	if o.Parallel <= 0 {
		o.Parallel = 10
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Evaluator{table: t, payloads: ps, judge: j, log: o.Log, maxReceiveCount: o.MaxReceiveCount,
		parallel: o.Parallel, now: time.Now}
}

var _ queue.Handler = (*Evaluator)(nil).Handle

// Handle is the queue handler: it returns the messages to deliver again.
func (e *Evaluator) Handle(ctx context.Context, msgs []queue.Message) []string {
	failed := make([]bool, len(msgs))
	sem := make(chan struct{}, e.parallel)
	var wg sync.WaitGroup
	for i, m := range msgs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := e.evaluate(ctx, m); err != nil {
				e.log.Warn("evaluation returns to the queue", "message_id", m.ID, "receives", m.ReceiveCount, "error", err)
				failed[i] = true
			}
		}()
	}
	wg.Wait()
	var out []string
	for i, f := range failed {
		if f {
			out = append(out, msgs[i].ID)
		}
	}
	return out
}

// errRetry returns a message to the queue for a retryable verdict.
var errRetry = errors.New("judge asks for a retry")

// loaded is what one evaluation reads, in parallel.
type loaded struct {
	trace   store.Trace
	traceIt store.Item
	run     store.Run
	version int64
	claimed bool
}

// evaluate handles one message; an error returns it to the queue.
func (e *Evaluator) evaluate(ctx context.Context, qm queue.Message) error {
	m, err := decodeMessage(qm.Body)
	if err != nil {
		e.log.Error("evaluation message dropped", "message_id", qm.ID, "error", err)
		return nil
	}
	l, skip, err := e.load(ctx, m)
	if err != nil || skip {
		return err
	}
	sc, ok := scorerOf(&l.run, m.ScorerID)
	if !ok || l.claimed {
		return nil // the scorer left the settings, or this version was judged before
	}
	if m.Seen != "" && !l.trace.IsComplete && lastWrite(&l.trace) != m.Seen {
		return nil // a later write of the trace sent messages of its own
	}
	content := l.trace.RecordContent
	if e.payloads != nil {
		if err := payload.Resolve(ctx, e.payloads, &content); err != nil {
			return fmt.Errorf("evaluate: %w", err)
		}
	}
	v := e.judge.Judge(ctx, Task{OrgID: m.OrgID, ProjectID: m.ProjectID, LogStreamID: m.RunID, RecordKind: m.Kind,
		RecordID: m.RecordID, ScorerID: m.ScorerID, ScorerVersion: l.version, Scorer: sc,
		Content: Content{Input: content.Input, Output: content.Output, Tools: content.Tools, Metadata: l.trace.Metadata}})
	if v.ErrorType != "" && v.Retryable && qm.ReceiveCount < e.maxReceiveCount {
		return fmt.Errorf("%w: %s", errRetry, v.ErrorType)
	}
	claim := store.ScoreClaimKey(m.RunID, m.RecordID, m.ScorerID, l.version)
	_, err = traces.WriteScore(ctx, e.table, traces.ScoreWrite{Key: l.traceIt.Key(),
		Values: map[string]store.MetricValue{sc.MetricKey(): metricValue(v)}, Claim: &claim, Now: e.now(), Read: l.traceIt})
	if errors.Is(err, traces.ErrScoreRecordGone) {
		return nil
	}
	return err
}

// load reads the trace, the run and the claim at once (and the scorer's latest version when
// the setting pins none, before the claim, whose key needs it). skip: nothing to do.
func (e *Evaluator) load(ctx context.Context, m Message) (loaded, bool, error) {
	var l loaded
	l.version = m.ScorerVersion
	var errs [4]error
	var wg sync.WaitGroup
	wg.Go(func() {
		l.traceIt, errs[0] = e.table.Get(ctx, store.TraceKey(m.RunID, m.CreatedAt, m.RecordID), true)
	})
	wg.Go(func() { l.run, errs[1] = store.GetRun(ctx, e.table, m.OrgID, m.ProjectID, m.RunID) })
	claimRead := func() {
		_, err := e.table.Get(ctx, store.ScoreClaimKey(m.RunID, m.RecordID, m.ScorerID, l.version), true)
		l.claimed = err == nil
		if !errors.Is(err, store.ErrNotFound) {
			errs[3] = err
		}
	}
	if l.version == 0 {
		wg.Go(func() {
			s, err := store.GetScorer(ctx, e.table, m.OrgID, m.ScorerID)
			if err != nil && !errors.Is(err, store.ErrNotFound) { // a preset has no record: version 0
				errs[2] = err
				return
			}
			if err == nil && s.LatestVersion != nil {
				l.version = s.LatestVersion.Version
			}
			claimRead()
		})
	} else {
		wg.Go(claimRead)
	}
	wg.Wait()
	for _, err := range errs {
		if errors.Is(err, store.ErrNotFound) {
			return l, true, nil // the record, the run or the scorer was deleted
		}
		if err != nil {
			return l, false, fmt.Errorf("evaluate: load: %w", err)
		}
	}
	if err := store.DecodeTrace(l.traceIt, &l.trace); err != nil {
		return l, true, nil
	}
	if l.trace.OrgID != m.OrgID {
		return l, true, nil
	}
	return l, false, store.DecodeTraceContent(l.traceIt, &l.trace)
}

func scorerOf(run *store.Run, id string) (store.ScorerConfig, bool) {
	for _, sc := range run.Scorers {
		if sc.ID == id {
			return sc, true
		}
	}
	return store.ScorerConfig{}, false
}
