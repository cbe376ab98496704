package evaluate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// Evaluator consumes the queue: per message it loads the record (payload pointers
// resolved), asks the Judge, and writes the value or the error on the record together with
// its roll-ups and the (record, scorer version) claim in one transaction
// (records.WriteScore), so that each is counted exactly once.
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

// deadlineMargin is kept free at the end of an invocation, so that judgments cut short
// report their messages failed instead of the whole batch timing out.
const deadlineMargin = 5 * time.Second

// Handle is the queue handler: it returns the messages to deliver again.
func (e *Evaluator) Handle(ctx context.Context, msgs []queue.Message) []string {
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-deadlineMargin))
		defer cancel()
	}
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
	trace   store.Trace // a trace's header and content
	span    store.Span  // or a span's
	traceIt store.Item  // the record's item (a trace's or a span's)
	run     store.Run
	version int64
	claimed bool
}

// recordKey is the key of the message's record.
func (m Message) recordKey() store.Key {
	if m.Kind == KindSpan {
		return store.SpanKey(m.TraceID, m.RecordID)
	}
	return store.TraceKey(m.RunID, m.CreatedAt, m.RecordID)
}

// evaluate handles one message; an error returns it to the queue. A job's message, once
// handled, counts in its job's progress.
func (e *Evaluator) evaluate(ctx context.Context, qm queue.Message) error {
	m, err := decodeMessage(qm.Body)
	if err != nil {
		e.log.Error("evaluation message dropped", "message_id", qm.ID, "error", err)
		return nil
	}
	if err := e.judgeAndWrite(ctx, qm, m); err != nil || m.Job == "" {
		return err
	}
	return e.countJob(ctx, m)
}

// judgeAndWrite judges the message's (record, scorer) unless it was judged before, and
// writes the result exactly once.
func (e *Evaluator) judgeAndWrite(ctx context.Context, qm queue.Message, m Message) error {
	l, skip, err := e.load(ctx, m)
	if err != nil || skip {
		return err
	}
	sc, ok := scorerOf(&l.run, m.ScorerID)
	if !ok || l.claimed {
		return nil // the scorer left the settings, or this version was judged before
	}
	if m.Kind == KindTrace && m.Seen != "" && !l.trace.IsComplete && lastWrite(&l.trace) != m.Seen {
		return nil // a later write of the trace sent messages of its own
	}
	content, metadata := l.trace.RecordContent, l.trace.Metadata
	if m.Kind == KindSpan {
		content, metadata = l.span.RecordContent, l.span.Metadata
	}
	if e.payloads != nil {
		if err := payload.Resolve(ctx, e.payloads, &content); err != nil {
			return fmt.Errorf("evaluate: %w", err)
		}
	}
	c := Content{Input: content.Input, Output: content.Output, Tools: content.Tools, Metadata: metadata}
	if m.Kind == KindSpan && l.span.Type == "retriever" {
		c.Documents = content.Output
	}
	var rsv *store.Reservation
	if l.run.JudgeBudget != nil && m.Job == "" && l.run.Kind != store.RunExperiment {
		rsv, err = e.reserve(ctx, m, &l)
		switch {
		case errors.Is(err, errBudgetSpent), errors.Is(err, errBudgetBusy) && qm.ReceiveCount >= e.maxReceiveCount:
			return e.skipForBudget(ctx, m, &l, sc)
		case err != nil:
			return err
		}
	}
	v := e.judge.Judge(ctx, Task{OrgID: m.OrgID, UserID: l.run.JudgeUser(), ProjectID: m.ProjectID, LogStreamID: m.RunID, RecordKind: m.Kind,
		RecordID: m.RecordID, ScorerID: m.ScorerID, ScorerVersion: l.version, Scorer: sc, Content: c})
	if v.ErrorType != "" && v.Retryable && qm.ReceiveCount < e.maxReceiveCount {
		// The reservation stays held for the redelivery.
		return fmt.Errorf("%w: %s", errRetry, v.ErrorType)
	}
	claim := store.ScoreClaimKey(m.RunID, m.RecordID, m.ScorerID, l.version)
	now := e.now()
	w := records.ScoreWrite{Key: l.traceIt.Key(), Values: map[string]store.MetricValue{sc.MetricKey(): metricValue(v)},
		Claim: &claim, Now: now, Read: l.traceIt}
	switch {
	case v.Usage != (Usage{}) || v.CostUSD != nil:
		w.Extra = store.UsageOps(m.RunID, now, m.ScorerID, v.Usage.InputTokens, v.Usage.OutputTokens, v.CostUSD, rsv)
	case rsv != nil:
		w.Extra = store.ReleaseOps(m.RunID, m.ScorerID, *rsv)
	}
	// A reservation stays held when the write fails (the redelivery reuses it), and is
	// released when this delivery will not write the judgment.
	write := records.WriteScore
	if m.Kind == KindSpan {
		write = records.WriteSpanScore
	}
	wrote, err := write(ctx, e.table, w)
	if errors.Is(err, records.ErrScoreRecordGone) {
		e.release(ctx, m, rsv)
		return nil
	}
	if err != nil {
		return err
	}
	if !wrote {
		e.release(ctx, m, rsv)
	}
	if m.Kind == KindTrace {
		return nil
	}
	// The trace's roll-up is recomputed whether this delivery wrote the span's value or
	// found it written (a retry after the roll-up failed).
	return records.RollUpSpanScores(ctx, e.table, m.RunID, m.TraceID, sc.MetricKey(), rollUpStrategy(sc))
}

// rollUpStrategy is the setting's roll_up_strategy, avg when unset; none when the scorer
// also scores traces (the trace's own value is not overwritten by its spans').
func rollUpStrategy(sc store.ScorerConfig) string {
	if slices.Contains(sc.ScoreableNodeTypes, "trace") {
		return records.RollUpNone
	}
	if sc.RollUpStrategy != nil && *sc.RollUpStrategy != "" {
		return *sc.RollUpStrategy
	}
	return records.RollUpAvg
}

// load reads the trace, the run and the claim at once (and the scorer's latest version when
// the setting pins none, before the claim, whose key needs it). skip: nothing to do.
func (e *Evaluator) load(ctx context.Context, m Message) (loaded, bool, error) {
	var l loaded
	l.version = m.ScorerVersion
	var errs [4]error
	var wg sync.WaitGroup
	wg.Go(func() {
		l.traceIt, errs[0] = e.table.Get(ctx, m.recordKey(), true)
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
	if m.Kind == KindSpan {
		if err := store.DecodeSpan(l.traceIt, &l.span, true); err != nil || l.span.OrgID != m.OrgID {
			return l, true, nil
		}
		return l, false, nil
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
