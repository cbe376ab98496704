package evaluate

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
	"github.com/evalobs/evalapi/shared/stream"
)

func i64(n int64) *int64     { return &n }
func f64(f float64) *float64 { return &f }
func tokens(n int64) *store.JudgeBudget {
	return &store.JudgeBudget{BudgetLimit: store.BudgetLimit{DailyTokens: i64(n)}}
}

// setBudget gives the env's log stream a daily judge budget.
func setBudget(t *testing.T, tbl store.Table, b *store.JudgeBudget) {
	t.Helper()
	ls := store.LogStream{ID: runID, ProjectID: projectID, OrgID: orgID}
	if _, err := store.ChangeMetricSettings(context.Background(), tbl, ls, "", store.SettingsChange{Budget: &b}, base); err != nil {
		t.Fatal(err)
	}
}

// spendDay records judgments of 100 + 20 tokens (and 0.01 USD each) and offered judgments.
func spendDay(t *testing.T, tbl store.Table, day time.Time, judgments, offered int) {
	t.Helper()
	usd, _ := fixed.FromFloat(0.01)
	for range judgments {
		if _, err := tbl.Update(context.Background(), store.UsageUpdate(runID, day, scorerID, 100, 20, &usd)); err != nil {
			t.Fatal(err)
		}
	}
	if offered > 0 {
		if _, err := tbl.Update(context.Background(), store.OfferedUpdate(runID, day, map[string]int64{scorerID: int64(offered)})); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPace: the pace is remaining / (today's spend projected to the day's end at the
// unpaced demand), at most 1, 0 once spent.
func TestPace(t *testing.T) {
	noon := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name               string
		budget             *store.JudgeBudget
		at                 time.Time
		judgments, offered int
		want               float64
	}{
		{"no budget", nil, noon, 5, 5, 1},
		{"nothing judged yet", tokens(1000), noon, 0, 0, 1},
		{"on track", tokens(1000), noon, 4, 4, 1},           // 480 spent, 480 more expected, 520 left
		{"too fast", tokens(1000), noon, 6, 6, 280.0 / 720}, // 720 spent, 720 more expected, 280 left
		{"demand twice the judgments", tokens(1000), noon, 6, 12, 280.0 / 1440},
		{"spent", tokens(700), noon, 6, 6, 0},
		{"evening", tokens(1000), noon.Add(6 * time.Hour), 6, 6, math.Min(1, 280.0/240)},
		{"usd on the scorer", &store.JudgeBudget{Scorers: map[string]store.BudgetLimit{scorerID: {DailyUSD: f64(0.1)}}}, noon, 6, 6, 0.04 / 0.06},
		{"other scorer's budget", &store.JudgeBudget{Scorers: map[string]store.BudgetLimit{"other": {DailyTokens: i64(1)}}}, noon, 6, 6, 1},
		{"early: the first quarter hour is the floor", tokens(1000), noon.Truncate(24 * time.Hour).Add(time.Minute), 1, 1, 880.0 / (120 * 1439.0 / 15)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tbl := embeddedTable(t)
			spendDay(t, tbl, c.at, c.judgments, c.offered)
			u, err := store.GetDayUsage(context.Background(), tbl, runID, c.at)
			if err != nil {
				t.Fatal(err)
			}
			if got := store.Pace(c.budget, u, scorerID, c.at); math.Abs(got-c.want) > 1e-9 {
				t.Errorf("pace %v, want %v", got, c.want)
			}
		})
	}
}

// TestPacedSamplingDeterministic: the paced decision is the same hash against the lowered
// rate: within 3σ of rate × pace, the same set twice, a subset of the unpaced set, and the
// traces held back are marked with the reason "budget".
func TestPacedSamplingDeterministic(t *testing.T) {
	name, typ := metric, "llm"
	run := &store.Run{ID: runID, Kind: store.RunLogStream, MetricSettings: store.MetricSettings{
		Scorers:        []store.ScorerConfig{{ID: scorerID, Name: &name, ScorerType: &typ}},
		SegmentFilters: []store.SegmentFilter{{SampleRate: 0.5}}}}
	pace := func(string) float64 { return 0.4 }
	const n = 10000
	var paced, unpaced, skippedForBudget int
	first := map[string]bool{}
	for round := range 2 {
		for i := range n {
			tr := &store.Trace{ID: traceID(i), Name: "chat"}
			p := PlanPaced(run, tr, pace)
			u := Plan(run, tr)
			sel := len(p.Selected) == 1
			if round == 0 {
				first[tr.ID] = sel
				if sel {
					paced++
				}
				if len(u.Selected) == 1 {
					unpaced++
				}
				if m := p.Marks[metric]; m.Reason == store.SkipBudget {
					skippedForBudget++
				}
			} else if first[tr.ID] != sel {
				t.Fatalf("trace %s decided differently the second time", tr.ID)
			}
			if sel && len(u.Selected) == 0 {
				t.Fatalf("trace %s sampled paced but not unpaced", tr.ID)
			}
		}
	}
	p := 0.5 * 0.4
	if sigma := math.Sqrt(n * p * (1 - p)); math.Abs(float64(paced)-n*p) > 3*sigma {
		t.Errorf("%d paced selections, want %v ± %v", paced, n*p, 3*sigma)
	}
	if skippedForBudget != unpaced-paced {
		t.Errorf("%d marked skipped for budget, want %d", skippedForBudget, unpaced-paced)
	}
}

// TestDispatcherPaces: the dispatcher reads the day's usage and lowers the rate accordingly,
// and counts the offered judgments.
func TestDispatcherPaces(t *testing.T) {
	tbl := embeddedTable(t)
	e := newEnv(t, tbl, 1000, nil)
	noon := time.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	setBudget(t, tbl, tokens(1000))
	spendDay(t, tbl, noon, 6, 6) // pace 280/720
	c := &captured{}
	d := NewDispatcher(tbl, c, 0, nil)
	d.now = func() time.Time { return noon }
	if f := d.Handle(context.Background(), e.records()); len(f) != 0 {
		t.Fatal("dispatch failed")
	}
	p := 280.0 / 720
	if sigma := math.Sqrt(1000 * p * (1 - p)); math.Abs(float64(len(c.bodies))-1000*p) > 3*sigma {
		t.Errorf("%d sent, want %v ± %v", len(c.bodies), 1000*p, 3*sigma)
	}
	skipped := 0
	for _, tr := range e.traces {
		it, _ := tbl.Get(context.Background(), store.TraceKey(runID, tr.CreatedAt, tr.ID), true)
		var got store.Trace
		if err := store.DecodeTrace(it, &got); err != nil {
			t.Fatal(err)
		}
		if got.Metrics[metric].Reason == store.SkipBudget {
			skipped++
		}
	}
	if skipped+len(c.bodies) != 1000 {
		t.Errorf("%d sent + %d marked skipped for budget, want 1000", len(c.bodies), skipped)
	}
	u, _ := store.GetDayUsage(context.Background(), tbl, runID, noon)
	if p2 := store.Pace(tokens(1000), u, scorerID, noon); p2 >= p {
		t.Errorf("pace %v after 1,000 offered judgments counted, want below %v", p2, p)
	}
}

// deliverRounds delivers msgs to racing evaluators (each of them gets every message, as
// duplicate deliveries) until none fails or the last allowed receive, as SQS would.
func deliverRounds(t *testing.T, evs []*Evaluator, msgs []queue.Message) {
	t.Helper()
	for receive := 1; len(msgs) > 0 && receive <= 5; receive++ {
		failed := map[string]bool{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, ev := range evs {
			wg.Go(func() {
				f := ev.Handle(context.Background(), msgs)
				mu.Lock()
				defer mu.Unlock()
				for _, id := range f {
					failed[id] = true
				}
			})
		}
		wg.Wait()
		var next []queue.Message
		for _, m := range msgs {
			if failed[m.ID] {
				m.ReceiveCount = receive + 1
				next = append(next, m)
			}
		}
		msgs = next
	}
	if len(msgs) != 0 {
		t.Fatalf("%d messages still failing after the last receive", len(msgs))
	}
}

// TestBudgetStopsJudgments: four racing evaluators under a 100-token budget with 12-token
// judgments stop within it, leak no reservation, mark the rest skipped for budget; an
// evaluate job then scores those, each trace counted once.
func TestBudgetStopsJudgments(t *testing.T) {
	ctx := context.Background()
	tbl := embeddedTable(t)
	e := newEnv(t, tbl, 40, nil)
	msgs := e.dispatchAll()
	setBudget(t, tbl, tokens(100))
	j := newFakeJudge()
	evs := make([]*Evaluator, 4)
	for i := range evs {
		evs[i] = NewEvaluator(tbl, nil, j, EvaluatorOptions{})
	}
	deliverRounds(t, evs, msgs)

	u, err := store.GetDayUsage(ctx, tbl, runID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// Spent + reserved never exceeds the budget, so the overshoot is the calls in flight's
	// cost beyond their estimates (at most one call, in general). Here there is none: the
	// first call reserves the whole budget and every later one today's average, which is
	// exactly a call's cost. A call run on a reservation below its cost shows above 100.
	spent, judged := u.Tokens(""), u.Judgments("")
	if spent > 100 || judged < 1 {
		t.Errorf("%d tokens in %d judgments; want at least one and at most the budget, 100 (every estimate is a call's cost)", spent, judged)
	}
	t.Logf("spent %d tokens in %d judgments", spent, judged)
	if bt, _ := u.Committed(""); bt != spent {
		t.Errorf("budget counter %d, spent %d: a reservation leaked", bt, spent)
	}
	left, err := store.QueryAll(ctx, tbl, store.Query{PK: "RUN#" + runID, SKOp: store.SKPrefix, From: "RESERVE#", Consistent: true})
	if err != nil || len(left) != 0 {
		t.Errorf("%d reservations left (%v)", len(left), err)
	}
	scored, skipped := 0, 0
	for _, tr := range e.traces {
		it, _ := tbl.Get(ctx, store.TraceKey(runID, tr.CreatedAt, tr.ID), true)
		var got store.Trace
		if err := store.DecodeTrace(it, &got); err != nil {
			t.Fatal(err)
		}
		switch v := got.Metrics[metric]; {
		case v.HasResult():
			scored++
		case v.State == store.MetricSkipped && v.Reason == store.SkipBudget:
			skipped++
		}
	}
	if int64(scored) != judged || scored+skipped != 40 {
		t.Errorf("%d scored (usage says %d), %d skipped for budget; want all 40 either", scored, judged, skipped)
	}

	// A later evaluate job (an explicit request: not paced, not reserved) scores the rest.
	job := store.EvalJob{ID: store.EvalJobID(runID, base, base.Add(time.Hour), []string{scorerID}), OrgID: orgID, ProjectID: projectID,
		RunID: runID, Start: base, End: base.Add(time.Hour), ScorerIDs: []string{scorerID}, CreatedAt: base, Status: store.EvalJobDispatching}
	if _, _, err := store.CreateEvalJob(ctx, tbl, job); err != nil {
		t.Fatal(err)
	}
	c := &captured{}
	d := NewDispatcher(tbl, c, 0, nil)
	var old store.Item
	for range 5 {
		cur, err := tbl.Get(ctx, store.EvalJobKey(runID, job.ID), true)
		if err != nil {
			t.Fatal(err)
		}
		r := stream.Record{ID: "job", Old: old, New: cur}
		if !d.Accepts(r) {
			break
		}
		if f := d.Handle(ctx, []stream.Record{r}); len(f) != 0 {
			t.Fatal("job dispatch failed")
		}
		old = cur
	}
	before := j.total()
	deliverRounds(t, evs[:1], c.messages())
	if recs, rolls, sum := e.counted(); recs != 40 || rolls != 40 || sum != 40 {
		t.Errorf("after the job: %d on records, %d in roll-ups, %d in the summary; want 40 each", recs, rolls, sum)
	}
	if asked := j.total() - before; asked != 40-scored {
		t.Errorf("the job asked the judge %d times, want %d (the budget-skipped ones only)", asked, 40-scored)
	}
}

// pricedJudge is fakeJudge with a price: 0.01 USD per judgment.
type pricedJudge struct{ *fakeJudge }

func (j pricedJudge) Judge(ctx context.Context, t Task) Verdict {
	v := j.fakeJudge.Judge(ctx, t)
	if v.ErrorType == "" {
		usd, _ := fixed.FromFloat(0.01)
		v.CostUSD = &usd
	}
	return v
}

// TestReservationReleasedOnce: whatever the deliveries (a retryable verdict first, whose
// reservation the redelivery reuses; a USD budget), the counters end equal to the spend and
// no reservation is left.
func TestReservationReleasedOnce(t *testing.T) {
	retryFirst := func(_ string, call int) *Verdict {
		if call == 1 {
			return &Verdict{ErrorType: ErrRateLimit, Retryable: true}
		}
		return nil
	}
	cases := []struct {
		name       string
		budget     *store.JudgeBudget
		fail       func(string, int) *Verdict
		priced     bool
		wantJudged int64
	}{
		{"tokens, retry first", tokens(1000), retryFirst, false, 10},
		{"usd on the scorer, 0.05 for 0.01 each", &store.JudgeBudget{Scorers: map[string]store.BudgetLimit{scorerID: {DailyUSD: f64(0.05)}}}, nil, true, 5},
		{"usd and tokens, retry first", &store.JudgeBudget{BudgetLimit: store.BudgetLimit{DailyUSD: f64(1), DailyTokens: i64(60)}}, retryFirst, true, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			tbl := embeddedTable(t)
			e := newEnv(t, tbl, 10, nil)
			msgs := e.dispatchAll()
			setBudget(t, tbl, c.budget)
			fj := newFakeJudge()
			fj.fail = c.fail
			var j Judge = fj
			if c.priced {
				j = pricedJudge{fj}
			}
			deliverRounds(t, []*Evaluator{NewEvaluator(tbl, nil, j, EvaluatorOptions{Parallel: 1})}, msgs)
			u, err := store.GetDayUsage(ctx, tbl, runID, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			usd := u.USD("")
			bt, bu := u.Committed("")
			if bt != u.Tokens("") || bu != store.NanoUSD(&usd) {
				t.Errorf("counters %d tokens, %d nano-USD; spent %d, %d", bt, bu, u.Tokens(""), store.NanoUSD(&usd))
			}
			if u.Judgments("") != c.wantJudged {
				t.Errorf("%d judged, want %d", u.Judgments(""), c.wantJudged)
			}
			left, err := store.QueryAll(ctx, tbl, store.Query{PK: "RUN#" + runID, SKOp: store.SKPrefix, From: "RESERVE#", Consistent: true})
			if err != nil || len(left) != 0 {
				t.Errorf("%d reservations left (%v)", len(left), err)
			}
		})
	}
}

// TestBudgetedJudgmentRoundTrips: with a budget, a judgment adds one wave of two reads
// (reservation, usage) and the reservation's transaction before the judge: four sequential
// waves, two transactions.
func TestBudgetedJudgmentRoundTrips(t *testing.T) {
	e := newEnv(t, embeddedTable(t), 3, nil)
	msgs := e.dispatchAll()
	setBudget(t, e.tbl, tokens(1_000_000))
	for i, m := range msgs {
		counted := storecount.New(slowTable{Table: e.tbl, rtt: 20 * time.Millisecond})
		if failed := NewEvaluator(counted, nil, newFakeJudge(), EvaluatorOptions{}).Handle(context.Background(), msgs[i:i+1]); len(failed) != 0 {
			t.Fatal("evaluation failed")
		}
		c := counted.Snapshot()
		if c.Depth > 4 || c.Calls["Transact"] != 2 || c.Total > 8 {
			t.Errorf("message %s: %s; want depth 4, two transactions, at most 8 calls", m.ID, c)
		}
	}
}
