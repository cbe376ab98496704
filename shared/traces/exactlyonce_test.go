package traces

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storefault"
)

// eoTraces are n random traces of the property test's kind in a few sessions, spread over
// twenty minutes so that a request needs several chunks.
func eoTraces(seed int64, n int) []store.Trace {
	r := rand.New(rand.NewSource(seed))
	sessions := []string{"30000000-0000-4000-8000-000000000001", "30000000-0000-4000-8000-000000000002",
		"30000000-0000-4000-8000-000000000003"}
	out := make([]store.Trace, n)
	for i := range out {
		out[i] = randomTrace(r, i, sessions)
		out[i].CreatedAt = propStart.Add(time.Duration(r.Int63n(int64(20 * time.Minute))))
	}
	return out
}

func eoRun(id string) store.Run {
	return store.Run{ID: id, ProjectID: "60000000-0000-4000-8000-000000000001", OrgID: "org-eo",
		Kind: store.RunLogStream, MetricSettings: store.MetricSettings{Scorers: propScorers}}
}

// runState is everything an ingestion leaves in a run, as readers see it.
type runState struct {
	Summary store.RunSummary
	Rollups []store.Rollup
	Search  []*searchResponse
	Traces  []string // the stored documents (without their run id), in time order
	Columns map[string]bool
}

func readState(t *testing.T, tbl store.Table, run store.Run) runState {
	t.Helper()
	ctx := t.Context()
	var s runState
	sums, err := store.GetRunSummaries(ctx, tbl, []string{run.ID})
	if err != nil {
		t.Fatal(err)
	}
	s.Summary = sums[run.ID]
	s.Summary.RunID = ""
	from, to := propStart, propStart.Add(time.Hour)
	for _, level := range []store.RollupLevel{store.RollupMinute, store.RollupHour} {
		for _, col := range append([]string{store.RollupAll}, records.RollupColumns...) {
			err := store.ScanRollups(ctx, tbl, run.ID, level, col, from, to, func(r store.Rollup) error {
				s.Rollups = append(s.Rollups, r)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, group := range []string{"", "model"} {
		q := searchRequest{start: from, end: to, interval: 5 * time.Minute, groupBy: group}
		a, err := runSearch(ctx, tbl, run, q, DefaultScanBound)
		if err != nil {
			t.Fatal(err)
		}
		s.Search = append(s.Search, a)
	}
	err = store.ScanTraces(ctx, tbl, run.ID, from, to, store.ScanOptions{}, func(tr *store.Trace) error {
		c := *tr
		c.RunID = "" // runs differ; the rest must not
		doc, err := json.Marshal(c)
		s.Traces = append(s.Traces, string(doc))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Columns, err = store.FilledColumns(ctx, tbl, run.ID); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestIngestFaultThenRetryIsExactlyOnce fails an ingestion at each of its store calls in
// turn (before the call, and after a write applied with its answer lost), retries the same
// request without fault, and requires the run to read exactly as after one healthy
// ingestion: no trace lost, none counted twice, no roll-up or summary half-written.
//
// It runs on the embedded store and DynamoDB Local, not on moto: moto copies every table in
// every transaction, so the hundreds of faulted ingestions here take minutes and gigabytes
// there; DynamoDB Local holds the transactional semantics, and moto runs the concurrency
// test below.
func TestIngestFaultThenRetryIsExactlyOnce(t *testing.T) {
	for _, b := range testenv.Backends() {
		if b.Name == "moto" {
			continue
		}
		t.Run(b.Name, func(t *testing.T) { ingestFaultThenRetry(t, b.Open(t)) })
	}
}

func ingestFaultThenRetry(t *testing.T, tbl store.Table) {
	// On an emulator every faulted run costs seconds of round trips, so it ingests the
	// fewest traces that still take three transactions: a fault can then fall on the first
	// chunk, on one after a chunk already committed, and on the last (checked below).
	n := 150
	if testing.Short() || !strings.HasSuffix(t.Name(), "/embedded") {
		n = 24
	}
	traces := eoTraces(11, n)
	traces = append(traces, traces[3]) // the same trace twice in one request is stored once
	ingest := func(t store.Table, run store.Run) (int, error) {
		return records.Ingest(context.Background(), t, run, append([]store.Trace(nil), traces...), propStart)
	}
	healthy := eoRun("70000000-0000-4000-8000-000000000000")
	counted := storefault.New(tbl)
	wrote, err := ingest(counted, healthy)
	if err != nil || wrote != n {
		t.Fatalf("healthy ingest wrote %d, %v; want %d", wrote, err, n)
	}
	calls := counted.Calls()
	if tx := countOps(calls, storefault.OpTransact); tx < 3 {
		t.Fatalf("the request made %d transactions (%v): want at least three chunks", tx, opsOf(calls))
	}
	want := readState(t, tbl, healthy)
	if want.Summary.NumTraces != int64(n) || len(want.Traces) != n || want.Summary.NumSessions != 3 {
		t.Fatalf("healthy state: %d traces stored, summary %+v", len(want.Traces), want.Summary)
	}
	faults := []struct {
		name    string
		err     func() error
		applied bool
	}{{"throttled", storefault.Throttled, false}, {"timeout after write", storefault.Timeout, true}}
	runs := 0
	for _, f := range faults {
		for at := 1; at <= len(calls); at++ {
			if f.applied && !calls[at-1].Op.Writes() {
				continue
			}
			runs++
			run := eoRun(fmt.Sprintf("70000000-0000-4000-8000-%012d", runs))
			faulty := storefault.New(tbl, storefault.Fault{At: at, Err: f.err(), Applied: f.applied})
			first, err := ingest(faulty, run)
			if err == nil {
				t.Fatalf("%s at call %d (%s): no error", f.name, at, calls[at-1].Op)
			}
			second, err := ingest(tbl, run)
			if err != nil {
				t.Fatalf("%s at call %d: retry: %v", f.name, at, err)
			}
			if first+second > n {
				t.Errorf("%s at call %d: wrote %d then %d traces, more than %d", f.name, at, first, second, n)
			}
			if diff := stateDiff(readState(t, tbl, run), want); diff != "" {
				t.Errorf("%s at call %d (%s): after the retry the run differs from a healthy ingest: %s",
					f.name, at, calls[at-1].Op, diff)
			}
		}
	}
	t.Logf("%d traces, %d store calls healthy (%v), %d faulted runs", n, len(calls), opsOf(calls), runs)
}

// stateDiff names the first part of got that differs from want, with both values.
func stateDiff(got, want runState) string {
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	switch {
	case !reflect.DeepEqual(got.Summary, want.Summary):
		return fmt.Sprintf("summary\n got %s\nwant %s", js(got.Summary), js(want.Summary))
	case len(got.Rollups) != len(want.Rollups):
		return fmt.Sprintf("%d roll-ups, want %d", len(got.Rollups), len(want.Rollups))
	case !reflect.DeepEqual(got.Rollups, want.Rollups):
		for i := range got.Rollups {
			if !reflect.DeepEqual(got.Rollups[i], want.Rollups[i]) {
				return fmt.Sprintf("roll-up %d\n got %s\nwant %s", i, js(got.Rollups[i]), js(want.Rollups[i]))
			}
		}
	case !reflect.DeepEqual(got.Search, want.Search):
		return fmt.Sprintf("search\n got %s\nwant %s", js(got.Search), js(want.Search))
	case !reflect.DeepEqual(got.Traces, want.Traces):
		return fmt.Sprintf("%d traces stored, want %d (or their documents differ)", len(got.Traces), len(want.Traces))
	case !reflect.DeepEqual(got.Columns, want.Columns):
		return fmt.Sprintf("columns %v, want %v", got.Columns, want.Columns)
	}
	return ""
}

// countOps is how many of calls are op.
func countOps(calls []storefault.Call, op storefault.Op) int {
	n := 0
	for _, c := range calls {
		if c.Op == op {
			n++
		}
	}
	return n
}

func opsOf(calls []storefault.Call) []storefault.Op {
	out := make([]storefault.Op, len(calls))
	for i, c := range calls {
		out[i] = c.Op
	}
	return out
}

// TestIngestConcurrentDuplicatesCountOnce sends overlapping requests at once (each trace in
// two of them, all in the same minutes): transactions conflict or fail their conditions and
// are rebuilt; every trace must be counted once, and the answers must add up to the traces.
func TestIngestConcurrentDuplicatesCountOnce(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		// Each writer sends 2*each traces: 30 take two transactions, so a writer's later
		// chunk can lose to a writer whose request overlaps its committed one; the embedded
		// store takes more for free.
		const writers = 4
		each := 30
		switch {
		case strings.HasSuffix(t.Name(), "/DynamoDBLocal"):
			each = 15
		case strings.HasSuffix(t.Name(), "/moto"):
			each = 10 // moto copies all its tables in every transaction
		}
		all := eoTraces(5, writers*each)
		for i := range all {
			all[i].CreatedAt = propStart.Add(time.Duration(i%50) * time.Second)
		}
		run := eoRun("71000000-0000-4000-8000-000000000000")
		// A bound, not a measure: DynamoDB Local takes seconds here, but late in a full run
		// (after the large dataset tests) it once took over a minute.
		ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
		defer cancel()
		var wg sync.WaitGroup
		wrote := make([]int, writers)
		errs := make([]error, writers)
		counted := storefault.New(tbl)
		for w := range writers {
			// writer w sends its own traces and those of the next writer
			mine := append([]store.Trace(nil), all[w*each:(w+1)*each]...)
			next := (w + 1) % writers
			mine = append(mine, all[next*each:(next+1)*each]...)
			wg.Go(func() { wrote[w], errs[w] = records.Ingest(ctx, counted, run, mine, propStart) })
		}
		wg.Wait()
		// The writers must have met: over an emulator a request takes round trips of
		// milliseconds, so at least one transaction fails its conditions or conflicts and is
		// rebuilt (the embedded store answers in microseconds and may let writers pass).
		lost := 0
		for _, c := range counted.Calls() {
			if c.Op == storefault.OpTransact && c.Err != nil {
				lost++
			}
		}
		t.Logf("%d writers of %d traces: %d store calls, %d transactions lost and rebuilt", writers, 2*each, len(counted.Calls()), lost)
		if lost == 0 && !strings.HasSuffix(t.Name(), "/embedded") {
			t.Errorf("no transaction failed: the writers never met, so nothing was rebuilt")
		}
		total := 0
		for w := range writers {
			if errs[w] != nil && !errors.Is(errs[w], records.ErrBusy) && !lockWaitTimedOut(errs[w]) {
				t.Fatalf("writer %d: %v", w, errs[w])
			}
			total += wrote[w]
		}
		// a writer answered 503 (or 500) after its attempts: its retry finishes its part
		for w := range writers {
			if errs[w] != nil {
				mine := append(append([]store.Trace(nil), all[w*each:(w+1)*each]...), all[((w+1)%writers)*each:((w+1)%writers+1)*each]...)
				n, err := records.Ingest(t.Context(), tbl, run, mine, propStart)
				if err != nil {
					t.Fatalf("writer %d retry: %v", w, err)
				}
				total += n
			}
		}
		got := readState(t, tbl, run)
		if total != len(all) || got.Summary.NumTraces != int64(len(all)) || len(got.Traces) != len(all) {
			t.Errorf("answers wrote %d, summary counts %d, %d stored; want %d", total, got.Summary.NumTraces, len(got.Traces), len(all))
		}
		ref := eoRun("71000000-0000-4000-8000-000000000001")
		if _, err := records.Ingest(t.Context(), tbl, ref, append([]store.Trace(nil), all...), propStart); err != nil {
			t.Fatal(err)
		}
		want := readState(t, tbl, ref)
		if diff := stateDiff(got, want); diff != "" {
			t.Errorf("concurrent ingestion differs from one ingestion: %s", diff)
		}
	})
}

// lockWaitTimedOut is DynamoDB Local's answer to a transaction that waited too long for
// another's locks (a 500 that names itself an emulator limit: "This request will succeed in
// actual DynamoDB API"). On a loaded machine concurrent writers meet it; the service answers
// it as a server error, which the client retries, as it does a 503.
func lockWaitTimedOut(err error) bool {
	return strings.Contains(err.Error(), "too long waiting for a lock")
}

// TestIngestTraceWithMostTags: a trace with every group column set and the most tags a
// request may give it is stored with all its roll-up rows in one transaction; one tag more
// is refused before anything is written.
func TestIngestTraceWithMostTags(t *testing.T) {
	h := newHarness(t, 0)
	body := func(tags int) string {
		var b strings.Builder
		for i := range tags {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"tag-%d"`, i)
		}
		return `{"log_stream_id":"` + ExampleLogStreamID + `","traces":[{"created_at":"2026-01-01T05:00:00Z","name":"n",
		  "model":"m","provider":"p","status_code":200,"session_id":"2f0e0d0c-0b0a-4009-8807-060504030201","tags":[` + b.String() + `]}]}`
	}
	code, resp := h.do(&h.org.Admin, "POST", ingestPath, body(maxTagsPerTrace+1))
	if code != http.StatusUnprocessableEntity || !strings.Contains(resp, `"tags"`) {
		t.Fatalf("%d tags: %d %s, want 422 on tags", maxTagsPerTrace+1, code, resp)
	}
	counted := storefault.New(h.tbl)
	trs := []store.Trace{{ID: "3f0e0d0c-0b0a-4009-8807-060504030201", CreatedAt: time.Date(2026, 1, 1, 5, 0, 0, 0, time.UTC),
		Name: "n", Model: ptr("m"), Provider: ptr("p"), StatusCode: ptr(int64(200)), SessionID: ptr("2f0e0d0c-0b0a-4009-8807-060504030201")}}
	for i := range maxTagsPerTrace {
		trs[0].Tags = append(trs[0].Tags, fmt.Sprintf("tag-%d", i))
	}
	run, err := store.GetRun(t.Context(), h.tbl, h.org.ID, ExampleProjectID, ExampleLogStreamID)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := records.Ingest(t.Context(), counted, run, trs, testNow); err != nil || n != 1 {
		t.Fatalf("ingest: %d, %v", n, err)
	}
	if ops := opsOf(counted.Calls()); fmt.Sprint(ops) != "[BatchGet Transact]" {
		t.Errorf("calls %v, want one read and one transaction", ops)
	}
	a := h.search(`{"start_time":"2026-01-01T05:00:00Z","end_time":"2026-01-01T05:01:00Z","interval":1,"log_stream_id":"` +
		ExampleLogStreamID + `","group_by":"tags"}`)
	if len(a.GroupByColumns) != maxTagsPerTrace {
		t.Errorf("%d tag groups, want %d", len(a.GroupByColumns), maxTagsPerTrace)
	}
}
