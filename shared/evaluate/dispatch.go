package evaluate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// DefaultQuietPeriod is how long after its last write a trace the client never marks
// complete is judged (EVAL_QUIET_PERIOD; at most queue.MaxDelay).
const DefaultQuietPeriod = 5 * time.Minute

// Dispatcher is the stream handler that decides what to score: when a trace is written (or
// marked complete), it reads its run's metric settings, decides per scorer whether the trace
// is sampled, marks the metrics pending (sampled) or skipped (not sampled) on the trace, and
// sends one message per (trace, scorer) to the evaluator's queue.
//
// When is a trace judged: at once when it is complete (the client's is_complete, or any
// trace of an experiment run); otherwise its messages are sent with a delay of the quiet
// period and carry the write they were sent for, so that only the messages of the trace's
// last write are judged (see Message.Seen). The delay is SQS's own (DelaySeconds), so no
// scheduler, sweep or extra item is needed; the cost is a few messages per rewritten trace.
type Dispatcher struct {
	table  store.Table
	sender queue.Sender
	log    *slog.Logger
	quiet  time.Duration
	now    func() time.Time
}

// NewDispatcher returns a dispatcher sending to s; quiet <= 0 takes DefaultQuietPeriod.
func NewDispatcher(t store.Table, s queue.Sender, quiet time.Duration, log *slog.Logger) *Dispatcher {
	if quiet <= 0 {
		quiet = DefaultQuietPeriod
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Dispatcher{table: t, sender: s, log: log, quiet: min(quiet, queue.MaxDelay), now: time.Now}
}

var _ stream.Handler = (*Dispatcher)(nil)

// writeMark is the part of a trace's header that says whether a change is a client's write:
// the evaluator's own writes (metric values) change neither.
type writeMark struct {
	IsComplete bool       `json:"is_complete"`
	UpdatedAt  *time.Time `json:"updated_at"`
}

func markOf(it store.Item) (writeMark, bool) {
	var m writeMark
	doc, _ := it["doc"].(string)
	return m, json.Unmarshal([]byte(doc), &m) == nil
}

// Accepts takes a trace's creation, and a client's later write of it (not the pipeline's
// own metric writes, nor writes of a trace already complete before them).
func (d *Dispatcher) Accepts(r stream.Record) bool {
	if isSpanInsert(r) || isJobStep(r) {
		return true
	}
	if r.New == nil || r.New[store.AttrEntity] != store.EntityTrace {
		return false
	}
	if r.Old == nil {
		return true
	}
	o, ok1 := markOf(r.Old)
	n, ok2 := markOf(r.New)
	if !ok1 || !ok2 || o.IsComplete {
		return false
	}
	return n.IsComplete || !timeEq(o.UpdatedAt, n.UpdatedAt)
}

func timeEq(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// Handle dispatches each record; a record whose settings, marks or sends failed is reported
// failed and dispatched again (marks and decisions are the same the second time, and the
// evaluator's claims make a message sent twice count once).
//
// The messages of the batch's records are sent together at the end (SQS batches of ten
// whatever the records' sizes); when a send fails, every record with a message in it is
// reported failed.
func (d *Dispatcher) Handle(ctx context.Context, records []stream.Record) []string {
	runs := map[string]*store.Run{}
	out := &outbox{}
	var failed []string
	for _, r := range records {
		if err := d.dispatch(ctx, r, runs, out); err != nil {
			d.log.Error("dispatch failed", "record", r.ID, "error", err)
			failed = append(failed, r.ID)
		}
	}
	d.countOffered(ctx, out)
	for _, delay := range out.delays {
		g := out.groups[delay]
		if err := d.sender.Send(ctx, g.bodies, delay); err != nil {
			d.log.Error("dispatch: send failed", "messages", len(g.bodies), "error", err)
			failed = append(failed, g.records...)
		}
	}
	return failed
}

// outbox collects a batch's messages by delay.
type outbox struct {
	delays []time.Duration
	groups map[time.Duration]*outGroup
	paced  map[string]*pacing // per run with a budget, read once per batch
}

type outGroup struct {
	bodies  [][]byte
	records []string
}

func (o *outbox) add(recordID string, delay time.Duration, bodies [][]byte) {
	if len(bodies) == 0 {
		return
	}
	if o.groups == nil {
		o.groups = map[time.Duration]*outGroup{}
	}
	g := o.groups[delay]
	if g == nil {
		g = &outGroup{}
		o.groups[delay] = g
		o.delays = append(o.delays, delay)
	}
	g.bodies = append(g.bodies, bodies...)
	g.records = append(g.records, recordID)
}

// run reads a run's settings once per batch (nil: the run is gone).
func (d *Dispatcher) run(ctx context.Context, runs map[string]*store.Run, orgID, projectID, runID string) (*store.Run, error) {
	if run, ok := runs[runID]; ok {
		return run, nil
	}
	got, err := store.GetRun(ctx, d.table, orgID, projectID, runID)
	if errors.Is(err, store.ErrNotFound) {
		runs[runID] = nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("dispatch: %w", err)
	}
	runs[runID] = &got
	return &got, nil
}

func (d *Dispatcher) dispatch(ctx context.Context, r stream.Record, runs map[string]*store.Run, out *outbox) error {
	if isSpanInsert(r) {
		return d.dispatchSpan(ctx, r, runs, out)
	}
	if isJobStep(r) {
		return d.dispatchJob(ctx, r, runs)
	}
	var tr store.Trace
	if err := store.DecodeTrace(r.New, &tr); err != nil {
		d.log.Warn("dispatch: unreadable trace, skipped", "key", r.New.Key().String())
		return nil
	}
	run, err := d.run(ctx, runs, tr.OrgID, tr.ProjectID, tr.RunID)
	if err != nil || run == nil {
		return err
	}
	pc, err := d.pacing(ctx, out, run)
	if err != nil {
		return err
	}
	plan := PlanPaced(run, &tr, pc.paceFunc())
	pc.offer(plan.Offered)
	if len(plan.Marks) == 0 {
		return nil
	}
	if _, err := records.WriteScore(ctx, d.table, records.ScoreWrite{Key: r.New.Key(), Values: plan.Marks, Now: d.now()}); err != nil {
		if errors.Is(err, records.ErrScoreRecordGone) {
			return nil
		}
		return fmt.Errorf("dispatch: mark trace %s: %w", tr.ID, err)
	}
	complete := tr.IsComplete || run.Kind == store.RunExperiment
	seen, delay := "", time.Duration(0)
	if !complete {
		seen, delay = lastWrite(&tr), d.quiet
	}
	bodies := make([][]byte, len(plan.Selected))
	for i, s := range plan.Selected {
		bodies[i] = Message{V: messageVersion, OrgID: tr.OrgID, ProjectID: tr.ProjectID, RunID: tr.RunID, Kind: KindTrace,
			RecordID: tr.ID, CreatedAt: tr.CreatedAt, ScorerID: s.ID, ScorerVersion: pinned(s), Seen: seen}.encode()
	}
	out.add(r.ID, delay, bodies)
	return nil
}

// lastWrite names the trace's last client write (its update time, else its creation).
func lastWrite(tr *store.Trace) string {
	if tr.UpdatedAt != nil {
		return tr.UpdatedAt.UTC().Format(time.RFC3339Nano)
	}
	return tr.CreatedAt.UTC().Format(time.RFC3339Nano)
}

// pinned is the scorer version the setting pins (0: the latest when judged).
func pinned(sc store.ScorerConfig) int64 {
	if sc.ScorerVersion != nil {
		return sc.ScorerVersion.Version
	}
	return 0
}

// DispatchPlan is what the dispatcher does for one trace.
type DispatchPlan struct {
	Selected []store.ScorerConfig         // scorers to judge the trace
	Marks    map[string]store.MetricValue // pending for those, skipped for the others
	Offered  []string                     // ids of the scorers sampled at the unpaced rate
}

// Plan decides, for every trace-level scorer of run's settings, whether tr is judged: all of
// them for an experiment's trace, else by segment sampling.
func Plan(run *store.Run, tr *store.Trace) DispatchPlan { return PlanPaced(run, tr, nil) }

// PlanPaced is Plan with the budget's pacing: pace (nil: 1) lowers each scorer's rate, and
// the same hash decides against the lowered rate, so a trace sampled at the lowered rate is
// sampled at any higher one. A trace sampled at the segment's rate but not at the paced rate
// is marked skipped with the reason "budget" (an evaluate job may score it later).
func PlanPaced(run *store.Run, tr *store.Trace, pace func(scorerID string) float64) DispatchPlan {
	if run.Kind == store.RunExperiment && !tr.HasChildren && tr.NumSpans == 0 {
		return plan(run, tr, pace, rowLevel)
	}
	return plan(run, tr, pace, traceLevel)
}

// rowLevel: an experiment's row is one model call, recorded as a trace without spans, so a
// scorer of llm spans (the original's clients create custom LLM metrics so) judges the row's
// trace: otherwise an experiment run with such a metric would never be scored.
func rowLevel(sc store.ScorerConfig) bool {
	return traceLevel(sc) || slices.Contains(sc.ScoreableNodeTypes, "llm")
}

// plan is PlanPaced and SpanPlanPaced: every scorer of run's settings that applies is
// sampled by the hash of (tr.ID, scorer id) against its segment's rate, then paced. A span
// is planned as a trace made of its trace id, name and metadata, so all the spans of one
// trace are sampled alike.
func plan(run *store.Run, tr *store.Trace, pace func(scorerID string) float64, applies func(store.ScorerConfig) bool) DispatchPlan {
	p := DispatchPlan{Marks: map[string]store.MetricValue{}}
	for _, sc := range run.Scorers {
		if !applies(sc) {
			continue
		}
		rate := 1.0
		if run.Kind != store.RunExperiment {
			rate = sampleRate(run.SegmentFilters, tr, sc)
		}
		name := sc.MetricKey()
		if !sampled(tr.ID, sc.ID, rate) {
			p.Marks[name] = store.MetricValue{State: store.MetricSkipped,
				Explanation: "not sampled (segment sample_rate " + strconv.FormatFloat(rate, 'g', -1, 64) + ")"}
			continue
		}
		p.Offered = append(p.Offered, sc.ID)
		if pace != nil && run.Kind != store.RunExperiment {
			if f := pace(sc.ID); f < 1 && !sampled(tr.ID, sc.ID, rate*f) {
				p.Marks[name] = budgetSkip(rate * f)
				continue
			}
		}
		p.Selected = append(p.Selected, sc)
		p.Marks[name] = store.MetricValue{State: store.MetricPending}
	}
	return p
}

// budgetSkip is the mark of a judgment the daily budget held back.
func budgetSkip(rate float64) store.MetricValue {
	return store.MetricValue{State: store.MetricSkipped, Reason: store.SkipBudget,
		Explanation: "not judged: daily judge budget (effective sample_rate " + strconv.FormatFloat(rate, 'g', 4, 64) + ")"}
}

// traceLevel: a scorer scores traces when its scoreable node types name them or are unset.
func traceLevel(sc store.ScorerConfig) bool {
	return len(sc.ScoreableNodeTypes) == 0 || slices.Contains(sc.ScoreableNodeTypes, "trace")
}
