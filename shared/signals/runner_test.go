package signals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/store"
)

// fakeModel answers fixed findings. Each finding cites the traces of the prompt whose name
// contains its `match`; a finding matching none is left out of the answer.
type fakeModel struct {
	mu       sync.Mutex
	findings []fakeFinding
	err      error
	calls    []Completion
}

type fakeFinding struct {
	match, kind, title, severity string
}

var traceLine = regexp.MustCompile(`### trace ([0-9a-f-]{36}) \(([^,]*),`)

func (m *fakeModel) Complete(_ context.Context, req Completion) (Answer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, req)
	if m.err != nil {
		return Answer{Usage: Usage{InputTokens: 7}}, m.err
	}
	var out []map[string]any
	for _, f := range m.findings {
		var ids []string
		for _, sub := range traceLine.FindAllStringSubmatch(req.Messages[1].Content, -1) {
			if strings.Contains(sub[2], f.match) {
				ids = append(ids, sub[1])
			}
		}
		if len(ids) == 0 {
			continue
		}
		out = append(out, map[string]any{"kind": f.kind, "title": f.title, "description": "d " + f.title,
			"severity": f.severity, "trace_ids": append(ids, "not-a-trace"), "suggested_action": "fix " + f.title})
	}
	b, _ := json.Marshal(map[string]any{"findings": out})
	return Answer{Text: "```json\n" + string(b) + "\n```", Usage: Usage{InputTokens: 100, OutputTokens: 20}}, nil
}

type typedErr struct{ kind string }

func (e typedErr) Error() string     { return "provider said no" }
func (e typedErr) ErrorType() string { return e.kind }

// recorder is a publisher that keeps what it is given.
type recorder struct {
	mu     sync.Mutex
	events []notify.Event
}

func (r *recorder) Publish(_ context.Context, e notify.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	return nil
}

type world struct {
	t      *testing.T
	tbl    store.Table
	clock  *authtest.Clock
	model  *fakeModel
	pub    *recorder
	runner *Runner
	cfg    store.SignalsConfig
}

func newWorld(t *testing.T, tbl ...store.Table) *world {
	t.Helper()
	if len(tbl) == 0 {
		tbl = append(tbl, testenv.Embedded(t))
	}
	w := &world{t: t, tbl: tbl[0], clock: authtest.NewClock(testNow), model: &fakeModel{}, pub: &recorder{}}
	w.runner = &Runner{Table: w.tbl, Model: w.model, Notify: w.pub, Now: w.clock.Now}
	sched := &store.SignalsSchedule{Cron: "*/10 * * * *", Type: "CRON", Timezone: "UTC"}
	cfg, err := store.PutSignalsConfig(t.Context(), w.tbl, store.SignalsConfig{ID: uuid.NewString(), OrgID: uuid.NewString(),
		ProjectID: uuid.NewString(), RunID: uuid.NewString(), RunKind: store.RunLogStream, RunMode: RunModeScheduled, Model: "m",
		Schedule: sched, ScheduledRunsEnabled: true, FocusOn: "refunds", DontFocusOn: "tone",
		NotificationSeverities: []string{"HIGH", "CRITICAL"}, UpdatedBy: "u1", CreatedAt: testNow, UpdatedAt: testNow})
	if err != nil {
		t.Fatal(err)
	}
	w.cfg = cfg
	return w
}

// traces logs traces named by names, created now, the clock then moves a minute.
func (w *world) traces(names ...string) []string {
	w.t.Helper()
	var trs []store.Trace
	var ids []string
	for i, n := range names {
		tr := store.Trace{ID: uuid.NewString(), RunID: w.cfg.RunID, ProjectID: w.cfg.ProjectID, OrgID: w.cfg.OrgID,
			CreatedAt: w.clock.Now().Add(time.Duration(i) * time.Millisecond), Type: "trace", Name: n, IsComplete: true}
		tr.Input, tr.Output = store.StringContent("question "+n), store.StringContent("answer "+n)
		if strings.Contains(n, "fail") {
			msg := "boom"
			tr.ErrorMessage = &msg
		}
		trs = append(trs, tr)
		ids = append(ids, tr.ID)
	}
	if _, err := store.PutTraces(w.t.Context(), w.tbl, trs); err != nil {
		w.t.Fatal(err)
	}
	w.clock.Advance(time.Minute)
	return ids
}

func (w *world) onDemand() (store.SignalsRun, []store.SignalsFinding) {
	w.t.Helper()
	ctx := w.t.Context()
	// Runs are ordered by creation time (their ids are random): each starts a second later.
	w.clock.Advance(time.Second)
	run, err := w.runner.Queue(ctx, w.cfg, "u2")
	if err != nil {
		w.t.Fatal(err)
	}
	if err := w.runner.RunJob(ctx, Job{OrgID: run.OrgID, ProjectID: run.ProjectID, RunID: run.RunID, SignalsRunID: run.ID}); err != nil {
		w.t.Fatal(err)
	}
	return w.read(run.ID)
}

func (w *world) read(id string) (store.SignalsRun, []store.SignalsFinding) {
	w.t.Helper()
	run, err := store.GetSignalsRun(w.t.Context(), w.tbl, w.cfg.OrgID, w.cfg.RunID, id)
	if err != nil {
		w.t.Fatal(err)
	}
	fs, err := store.SignalsFindings(w.t.Context(), w.tbl, w.cfg.RunID, run.FindingIDs)
	if err != nil {
		w.t.Fatal(err)
	}
	return run, fs
}

func summary(fs []store.SignalsFinding) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s/%s/%s/%d", f.Change, f.Severity, f.Title, len(f.TraceIDs)))
	}
	return strings.Join(parts, "; ")
}

// TestRunsFindDiffAndNotify runs on every store backend (the emulators under CI): the run's
// writes are conditional transactions.
func TestRunsFindDiffAndNotify(t *testing.T) {
	testenv.EachTable(t, testRunsFindDiffAndNotify)
}

func testRunsFindDiffAndNotify(t *testing.T, tbl store.Table) {
	w := newWorld(t, tbl)
	w.model.findings = []fakeFinding{
		{match: "fail", kind: "error", title: "3 checkout failures", severity: "HIGH"},
		{match: "slow", kind: "latency", title: "Slow answers", severity: "LOW"},
	}
	failIDs := w.traces("checkout fail", "checkout fail 2", "slow search", "ok")

	run, fs := w.onDemand()
	if run.State != store.SignalsSucceeded || run.TracesInWindow != 4 || run.TracesRead != 4 || run.NewCount != 2 ||
		run.InputTokens != 100 || run.OutputTokens != 20 || run.WindowEnd == nil || !run.Notified {
		t.Fatalf("first run: %+v", run)
	}
	if got := summary(fs); got != "new/HIGH/3 checkout failures/2; new/LOW/Slow answers/1" {
		t.Fatalf("first findings: %s", got)
	}
	if fs[0].TraceIDs[0] != failIDs[0] || fs[0].TraceIDs[1] != failIDs[1] {
		t.Fatalf("trace ids %v, want %v", fs[0].TraceIDs, failIDs[:2])
	}
	req := w.model.calls[0]
	if req.OrgID != w.cfg.OrgID || req.UserID != "u2" || req.ModelName != "m" || len(req.ResponseSchema) == 0 ||
		!strings.Contains(req.Messages[1].Content, "Focus on: refunds") || !strings.Contains(req.Messages[1].Content, "Do not report findings about: tone") {
		t.Fatalf("request: %+v", req)
	}
	// Notified: the HIGH finding only (LOW is not among the configuration's severities).
	if len(w.pub.events) != 1 || w.pub.events[0].Data.ID != fs[0].ID || w.pub.events[0].ID != "finding_"+fs[0].ID {
		t.Fatalf("events: %+v", w.pub.events)
	}

	// No new traces: no model call, no finding, nothing resolved.
	run2, fs2 := w.onDemand()
	if run2.State != store.SignalsSucceeded || run2.TracesRead != 0 || run2.NewCount != 0 || len(fs2) != 0 || len(run2.Resolved) != 0 || len(w.model.calls) != 1 {
		t.Fatalf("second run: %+v %v calls %d", run2, summary(fs2), len(w.model.calls))
	}
	if !run2.WindowStart.Equal(*run.WindowEnd) {
		t.Fatalf("second window starts %v, first ended %v", run2.WindowStart, run.WindowEnd)
	}

	// New traces show the failures again (another count) and no slow answer: recurring and
	// resolved, compared with the first run (the second read nothing); nothing notified.
	w.model.findings[0].title = "12 checkout failures!"
	w.traces("checkout fail again")
	run3, fs3 := w.onDemand()
	if got := summary(fs3); got != "recurring/HIGH/12 checkout failures!/1" {
		t.Fatalf("third findings: %s", got)
	}
	if run3.PreviousRunID != run.ID || run3.RecurringCount != 1 || run3.NewCount != 0 || len(run3.Resolved) != 1 ||
		run3.Resolved[0].FindingID != fs[1].ID || fs3[0].FirstSeenRunID != run.ID || run3.TracesInWindow != 1 {
		t.Fatalf("third run: %+v", run3)
	}
	if len(w.pub.events) != 1 {
		t.Fatalf("a recurring finding was notified: %d events", len(w.pub.events))
	}
}

func TestRunFailsWithErrorType(t *testing.T) {
	w := newWorld(t)
	w.traces("a")
	w.model.err = fmt.Errorf("calling: %w", typedErr{"rate_limit_error"})
	run, fs := w.onDemand()
	if run.State != store.SignalsFailed || run.ErrorType != "rate_limit_error" || run.ErrorMessage == "" || len(fs) != 0 || run.InputTokens != 7 {
		t.Fatalf("%+v", run)
	}
	// The next run reads the same window again (a failed run does not move it) and can succeed.
	w.model.err = nil
	w.model.findings = []fakeFinding{{match: "a", kind: "quality", title: "t", severity: "MEDIUM"}}
	run2, fs2 := w.onDemand()
	if run2.State != store.SignalsSucceeded || run2.TracesRead != 1 || len(fs2) != 1 {
		t.Fatalf("%+v", run2)
	}
	// An answer that is not JSON fails the run as an invalid response.
	w.traces("b")
	m := &textModel{text: "I think things are fine"}
	w.runner.Model = m
	run3, _ := w.onDemand()
	if run3.State != store.SignalsFailed || run3.ErrorType != ErrTypeInvalidResponse {
		t.Fatalf("%+v", run3)
	}
}

type textModel struct{ text string }

func (m *textModel) Complete(context.Context, Completion) (Answer, error) {
	return Answer{Text: m.text}, nil
}

func TestFiresAreKeyedAndNeverOverlap(t *testing.T) {
	testenv.EachTable(t, testFiresAreKeyedAndNeverOverlap)
}

func testFiresAreKeyedAndNeverOverlap(t *testing.T, tbl store.Table) {
	w := newWorld(t, tbl)
	ctx := t.Context()
	w.traces("x")
	fire := schedule.Fire{Target: schedule.Target{ConfigurationID: w.cfg.ID, OrgID: w.cfg.OrgID, ProjectID: w.cfg.ProjectID, RunID: w.cfg.RunID},
		ScheduledTime: w.clock.Now().Truncate(time.Minute)}
	for range 3 {
		if err := w.runner.RunFire(ctx, fire); err != nil {
			t.Fatal(err)
		}
	}
	runs, _, err := store.ListSignalsRuns(ctx, w.tbl, w.cfg.RunID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Trigger != TriggerScheduled || !runs[0].ScheduledTime.Equal(fire.ScheduledTime) || runs[0].State != store.SignalsSucceeded {
		t.Fatalf("runs of one fire: %+v", runs)
	}

	// While an on-demand run holds the lease, a fire is recorded as skipped and another
	// on-demand run is refused. (The clock moves between the runs: they are ordered by
	// their creation time, ids being random.)
	w.clock.Advance(time.Second)
	queued, err := w.runner.Queue(ctx, w.cfg, "u")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.runner.Queue(ctx, w.cfg, "u"); !errors.Is(err, store.ErrSignalsBusy) {
		t.Fatalf("second queue: %v", err)
	}
	fire2 := fire
	fire2.ScheduledTime = fire.ScheduledTime.Add(10 * time.Minute)
	w.clock.Advance(time.Second)
	if err := w.runner.RunFire(ctx, fire2); err != nil {
		t.Fatal(err)
	}
	runs, _, _ = store.ListSignalsRuns(ctx, w.tbl, w.cfg.RunID, 0, 10)
	if len(runs) != 3 || runs[0].State != store.SignalsSkipped || runs[1].ID != queued.ID {
		t.Fatalf("runs newest first: %+v", runs)
	}
	// After the lease expires a new run may start (a crashed worker blocks at most that long).
	w.clock.Advance(DefaultLeaseFor + time.Minute)
	if _, err := w.runner.Queue(ctx, w.cfg, "u"); err != nil {
		t.Fatal(err)
	}

	// A fire of a replaced or disabled configuration starts nothing.
	stale := fire
	stale.ConfigurationID = uuid.NewString()
	stale.ScheduledTime = fire.ScheduledTime.Add(time.Hour)
	if err := w.runner.RunFire(ctx, stale); err != nil {
		t.Fatal(err)
	}
	if runs, _, _ = store.ListSignalsRuns(ctx, w.tbl, w.cfg.RunID, 0, 10); len(runs) != 4 {
		t.Fatalf("a stale fire started a run: %d runs", len(runs))
	}
}

func TestFindingKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"12 checkout failures", "31 Checkout failures!"},
		{"Timeouts — payment API (p95 > 3s)", "timeouts: payment-api p99 4s"},
		{"  Slow   answers ", "slow-answers"},
	} {
		if FindingKey("error", tc.a) != FindingKey("error", tc.b) {
			t.Errorf("%q and %q differ: %q %q", tc.a, tc.b, FindingKey("error", tc.a), FindingKey("error", tc.b))
		}
	}
	if FindingKey("error", "x") == FindingKey("latency", "x") || FindingKey("error", "slow answers") == FindingKey("error", "slow answer") {
		t.Error("different findings share a key")
	}
}

func TestSampleIsBoundedAndRanked(t *testing.T) {
	var all []header
	base := testNow
	for i := range 200 {
		h := header{id: fmt.Sprintf("t%03d", i), createdAt: base.Add(time.Duration(i) * time.Second), lowScore: 2}
		switch {
		case i%50 == 0:
			h.failed = true
		case i%50 == 1:
			h.lowScore = 0.1
		case i == 77:
			h.latency = 9000
		case i == 78:
			h.cost = 3
		}
		all = append(all, h)
	}
	got := pickSample(all, 10, "seed")
	if len(got) != 10 {
		t.Fatalf("%d", len(got))
	}
	has := map[string]bool{}
	for i, h := range got {
		has[h.id] = true
		if i > 0 && got[i-1].createdAt.After(h.createdAt) {
			t.Fatal("not oldest first")
		}
	}
	for _, id := range []string{"t150", "t100", "t001", "t051", "t077", "t078"} {
		if !has[id] {
			t.Errorf("%s not sampled: %v", id, got)
		}
	}
	again := pickSample(all, 10, "seed")
	for i := range got {
		if got[i].id != again[i].id {
			t.Fatal("the sample of one run id is not stable")
		}
	}
}
