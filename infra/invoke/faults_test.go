package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/secrets/secretsfault"
	"github.com/evalobs/evalapi/shared/store/storefault"
)

// injection is one kind of fault the matrix puts at each call position.
type injection struct {
	name    string
	table   bool // a store call; otherwise a secrets call
	err     func() error
	applied bool  // the call applies, then its answer is lost (write calls only)
	status  []int // the clean error answers it may produce when it is not retried away
}

// A throttled or timed-out dependency is a 503 with Retry-After; an unknown failure is a
// 500, or a 503 when the handler knows the dependency is down (the secret store).
var (
	unavailable = []int{503}
	failed      = []int{500, 503}
)

var injections = []injection{
	{"throttled", true, storefault.Throttled, false, unavailable},
	{"timeout", true, storefault.Timeout, false, unavailable},
	{"failure", true, func() error { return storefault.ErrInjected }, false, failed},
	{"timeout after write", true, storefault.Timeout, true, unavailable},
	{"secret timeout", false, secretsfault.Timeout, false, unavailable},
	{"secret failure", false, func() error { return secretsfault.ErrInjected }, false, failed},
}

// retryCompletes lists the operations whose effect is several transactions, each exact, so
// that a fault between two of them answers 503 with part of the effect written (by method
// and path, so that every sample of one operation is covered), with why. Their contract is
// the standard's "safe to retry": for each such half-write the matrix sends the same
// request again on what the fault left, and the effect must then be the healthy one, to the
// item; the roll-ups' extremes are checked all the same (checkExtremes). The test fails when
// an operation listed no longer half-writes, so that its entry goes. See
// docs/RELIABILITY.md, "Writes completed by a retry".
var retryCompletes = []struct {
	method string
	path   *regexp.Regexp
	why    string
}{
	// A session's traces go one transaction each (a trace's removal with its counts, sums
	// and repair marker), then the session; a failure between two of them answers 503 with
	// the first traces deleted, exactly, and the rest (and the session) still there. The
	// same request again deletes the rest.
	{"POST", regexp.MustCompile(`^/v2/projects/[^/]+/sessions/delete$`),
		"a session's traces are deleted one transaction each"},
}

// retryCompletesOf is why event's operation is in retryCompletes, or "".
func retryCompletesOf(event []byte) string {
	e, err := DecodeEvent(event)
	if err != nil {
		return ""
	}
	for _, k := range retryCompletes {
		if e.RequestContext.HTTP.Method == k.method && k.path.MatchString(e.RawPath) {
			return k.why
		}
	}
	return ""
}

// TestFaultMatrix drives every writing operation through its real handler and fails each
// store and secrets call it makes in turn (counted first on a healthy twin): the answer
// must be the healthy one (retried) or a clean 503 with Retry-After / 500 without
// internals, and the data, once the table's stream has run (world.settle), must be written
// fully or not at all. A persistent outage must be answered 503 within the request's
// deadline.
func TestFaultMatrix(t *testing.T) {
	root, err := apitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	readEvent := func(rel string) []byte {
		raw, err := os.ReadFile(filepath.Join(root, "events", rel))
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	files, _, err := eventFiles(filepath.Join(root, "events"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []faultCase
	for _, rel := range files {
		g, _, nested := strings.Cut(filepath.ToSlash(rel), "/")
		raw := readEvent(rel)
		e, err := DecodeEvent(raw)
		if err != nil || !nested || !writingMethod(e.RequestContext.HTTP.Method) {
			continue
		}
		cases = append(cases, faultCase{name: filepath.ToSlash(rel), group: g, event: raw})
	}
	cases = append(cases, extraFaultCases(readEvent)...)

	base := fixtureSnapshot(t)
	var runs, ops atomic.Int64
	t.Run("ops", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				ops.Add(1)
				runs.Add(int64(matrix(t, base, c)))
			})
		}
	})
	t.Logf("fault matrix: %d writing requests, %d faulted runs", ops.Load(), runs.Load())
}

// matrix runs one case's healthy twin, then every injection at every position; it returns
// the number of faulted runs.
func matrix(t *testing.T, base *snapshot, c faultCase) int {
	from, event := base, c.event
	if c.setup != nil {
		from, event = setUp(t, base, c)
	}
	healthy := newWorld(t, from, nil, nil)
	want := invokeIn(t, healthy, c.group, event, FunctionTimeout)
	after, err := healthy.snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	wantEffect := effect(from, after)
	for _, p := range checkExtremes(from, after) {
		t.Errorf("healthy: %s", p)
	}
	nTable, nSecrets := healthy.ft.Count(), healthy.fs.Count()
	tableCalls := healthy.ft.Calls()
	t.Logf("healthy: %d, %d store calls, %d secrets calls, effect %v", want.StatusCode, nTable, nSecrets, wantEffect)
	if sample := strings.HasSuffix(c.name, ".json"); !sample && want.StatusCode >= 300 || want.StatusCode >= 500 {
		t.Fatalf("the healthy request answers %d %s", want.StatusCode, want.Body)
	}

	known := retryCompletesOf(event)
	var runs, partial atomic.Int64
	// One parallel subtest per injection: the runs are independent (each has its own
	// world), and the longest case (a session's delete, ~100 calls) no longer runs its
	// ~400 faulted runs on one core while the other idles.
	t.Run("faults", func(t *testing.T) {
		for _, inj := range injections {
			t.Run(inj.name, func(t *testing.T) {
				t.Parallel()
				n := nSecrets
				if inj.table {
					n = nTable
				}
				for at := 1; at <= n; at++ {
					if inj.applied && !tableCalls[at-1].Op.Writes() {
						continue
					}
					runs.Add(1)
					var tf []storefault.Fault
					var sf []secretsfault.Fault
					if inj.table {
						tf = []storefault.Fault{{At: at, Err: inj.err(), Applied: inj.applied}}
					} else {
						sf = []secretsfault.Fault{{At: at, Err: inj.err()}}
					}
					w := newWorld(t, from, tf, sf)
					resp := invokeIn(t, w, c.group, event, FunctionTimeout)
					got, err := w.snapshot(t.Context())
					if err != nil {
						t.Fatal(err)
					}
					where := fmt.Sprintf("%s at call %d", inj.name, at)
					if inj.table {
						where += " (" + string(tableCalls[at-1].Op) + ")"
					}
					for _, p := range checkExtremes(from, got) {
						t.Errorf("%s: %s", where, p)
					}
					for _, p := range judge(inj, want, resp, wantEffect, effect(from, got)) {
						if known != "" && strings.HasPrefix(p, "half-written") {
							partial.Add(1)
							for _, p := range retried(t, w, c.group, event, from, wantEffect) {
								t.Errorf("%s: half-written (%s), then %s", where, known, p)
							}
							continue
						}
						t.Errorf("%s: %s", where, p)
					}
				}
			})
		}
	})

	if known != "" && len(wantEffect) > 0 && partial.Load() == 0 {
		t.Errorf("no half-write any more: remove the operation from retryCompletes (and from docs/RELIABILITY.md)")
	}

	// A table that throttles every call: retries must stop at the request's deadline.
	const deadline = 2 * time.Second
	w := newWorld(t, from, []storefault.Fault{{Err: storefault.Throttled(), Sticky: true}}, nil)
	start := time.Now()
	resp := invokeIn(t, w, c.group, event, deadline)
	if took := time.Since(start); took > deadline+time.Second {
		t.Errorf("outage: answered after %v, beyond the %v deadline", took.Round(time.Millisecond), deadline)
	}
	got, err := w.snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range judge(injection{name: "outage", status: unavailable}, want, resp, wantEffect, effect(from, got)) {
		t.Errorf("outage: %s", p)
	}
	return int(runs.Load()) + 1
}

// retried sends event again on what w holds after a faulted run, with no fault, and says
// how the effect then differs from the healthy one (nothing when the retry completed it).
func retried(t *testing.T, w *world, group string, event []byte, from *snapshot, wantEffect []string) []string {
	t.Helper()
	left, err := w.snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	again := newWorld(t, left, nil, nil)
	resp := invokeIn(t, again, group, event, FunctionTimeout)
	got, err := again.snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	if resp.StatusCode >= 300 {
		problems = append(problems, fmt.Sprintf("the retry answered %d %s", resp.StatusCode, resp.Body))
	}
	if eff := effect(from, got); !slices.Equal(eff, wantEffect) {
		problems = append(problems, fmt.Sprintf("the retry left %v, want %v", eff, wantEffect))
	}
	return append(problems, checkExtremes(from, got)...)
}

// setUp runs c.setup healthy on a copy of base and returns the copy's content and c's event
// with the captured field of the setup's answer in it.
func setUp(t *testing.T, base *snapshot, c faultCase) (*snapshot, []byte) {
	w := newWorld(t, base, nil, nil)
	resp := invokeIn(t, w, c.setupGroup, c.setup, FunctionTimeout)
	var body map[string]any
	if err := json.Unmarshal([]byte(resp.Body), &body); err != nil || resp.StatusCode != 200 {
		t.Fatalf("setup: %d %s", resp.StatusCode, resp.Body)
	}
	v, ok := body[c.capture].(string)
	if !ok {
		t.Fatalf("setup: answer has no string %q: %s", c.capture, resp.Body)
	}
	s, err := w.snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return s, []byte(strings.ReplaceAll(string(c.event), "{captured}", v))
}

// invokeIn runs event in w with the given deadline and waits for auth's background writes.
func invokeIn(t *testing.T, w *world, group string, event []byte, timeout time.Duration) events.APIGatewayV2HTTPResponse {
	t.Helper()
	g, ok := groups.Find(group)
	if !ok {
		t.Fatalf("no group %q", group)
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	resp, err := Invoke(ctx, w.d, g, event)
	w.d.Auth.Wait()
	if err != nil {
		t.Fatalf("invoke: %v", err)
	}
	return resp
}

// internal matches what an error body must not tell: the text of an injected error.
var internal = regexp.MustCompile(`(?i)store:|fault|inject|deadline|throttl|exceeded|[A-Z]+#`)

// judge lists what is wrong with a faulted answer and its effect on the data.
func judge(inj injection, want, got events.APIGatewayV2HTTPResponse, wantEffect, gotEffect []string) []string {
	var problems []string
	h := headerOf(got)
	switch {
	case got.StatusCode == want.StatusCode:
		// retried, or the fault hit a call whose failure does not matter to the answer:
		// then the request must have done all it does when healthy.
		if want.StatusCode < 300 && !slices.Equal(gotEffect, wantEffect) {
			problems = append(problems, fmt.Sprintf("answered %d like the healthy request but wrote %v, want %v", got.StatusCode, gotEffect, wantEffect))
		}
		return problems
	case !slices.Contains(inj.status, got.StatusCode):
		problems = append(problems, fmt.Sprintf("answered %d %s, want one of %v (or the healthy %d)", got.StatusCode, got.Body, inj.status, want.StatusCode))
	case got.StatusCode == 503 && h.Get("Retry-After") == "":
		problems = append(problems, "503 without Retry-After")
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(got.Body), &body); err != nil || len(body) != 1 {
		problems = append(problems, fmt.Sprintf("error body %s is not {\"detail\": ...}", got.Body))
	} else if d, _ := body["detail"].(string); internal.MatchString(d) {
		problems = append(problems, fmt.Sprintf("error body %s tells internals", got.Body))
	}
	if len(gotEffect) > 0 && !slices.Equal(gotEffect, wantEffect) {
		problems = append(problems, fmt.Sprintf("half-written: %v, want all of %v or nothing", gotEffect, wantEffect))
	}
	return problems
}
