package main

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// ev writes one event line of `go test -json`.
func ev(action, pkg, test, output string, elapsed float64) string {
	e := event{Action: action, Test: test, Output: output, Elapsed: elapsed}
	if action == "build-output" || action == "build-fail" {
		e.ImportPath = pkg
	} else {
		e.Package = pkg
	}
	b, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// The text of each package is what plain `go test` (without -v) shows of it.
func TestPackageText(t *testing.T) {
	passing := ev("start", "m/a", "", "", 0) +
		ev("run", "m/a", "TestOK", "", 0) +
		ev("output", "m/a", "TestOK", "=== RUN   TestOK\n", 0) +
		ev("output", "m/a", "TestOK", "    a_test.go:3: a log line nobody asked for\n", 0) +
		ev("output", "m/a", "TestOK", "--- PASS: TestOK (0.00s)\n", 0) +
		ev("pass", "m/a", "TestOK", "", 0.5) +
		ev("output", "m/a", "", "PASS\n", 0) +
		ev("output", "m/a", "", "ok  \tm/a\t0.6s\n", 0) +
		ev("pass", "m/a", "", "", 0.6)
	failing := ev("start", "m/b", "", "", 0) +
		ev("output", "m/b", "", "TestMain says hello\n", 0) +
		ev("output", "m/b", "TestSub", "=== RUN   TestSub\n", 0) +
		ev("output", "m/b", "TestSub/one", "=== RUN   TestSub/one\n", 0) +
		ev("output", "m/b", "TestSub/one", "    b_test.go:4: fine\n", 0) +
		ev("output", "m/b", "TestSub/one", "--- PASS: TestSub/one (0.00s)\n", 0) +
		ev("pass", "m/b", "TestSub/one", "", 0) +
		ev("output", "m/b", "TestSub/two", "=== RUN   TestSub/two\n", 0) +
		ev("output", "m/b", "TestSub/two", "    b_test.go:9: bad two\n", 0) +
		ev("output", "m/b", "TestSub/two", "--- FAIL: TestSub/two (2.00s)\n", 0) +
		ev("fail", "m/b", "TestSub/two", "", 2) +
		ev("output", "m/b", "TestSub", "--- FAIL: TestSub (2.00s)\n", 0) +
		ev("fail", "m/b", "TestSub", "", 2) +
		ev("output", "m/b", "TestSkip", "=== RUN   TestSkip\n", 0) +
		ev("output", "m/b", "TestSkip", "--- SKIP: TestSkip (0.00s)\n", 0) +
		ev("skip", "m/b", "TestSkip", "", 0) +
		ev("output", "m/b", "", "FAIL\n", 0) +
		ev("output", "m/b", "", "FAIL\tm/b\t2.1s\n", 0) +
		ev("fail", "m/b", "", "", 2.1)
	timedOut := ev("start", "m/c", "", "", 0) +
		ev("output", "m/c", "TestHang", "=== RUN   TestHang\n", 0) +
		ev("output", "m/c", "TestHang", "panic: test timed out after 1s\n", 0) +
		ev("output", "m/c", "", "FAIL\tm/c\t1.0s\n", 0) +
		ev("fail", "m/c", "", "", 1)
	buildFail := ev("build-output", "m/d [m/d.test]", "", "# m/d [m/d.test]\n", 0) +
		ev("build-output", "m/d [m/d.test]", "", "d.go:2:23: cannot use \"x\"\n", 0) +
		ev("build-fail", "m/d [m/d.test]", "", "", 0) +
		ev("start", "m/d", "", "", 0) +
		ev("output", "m/d", "", "FAIL\tm/d [build failed]\n", 0) +
		ev("fail", "m/d", "", "", 0)
	unfinished := ev("start", "m/e", "", "", 0) +
		ev("output", "m/e", "TestLong", "=== RUN   TestLong\n", 0) +
		ev("output", "m/e", "TestLong", "    e_test.go:7: step 1\n", 0)

	for _, tc := range []struct {
		name, in, out, errOut string
	}{
		{"a passing package shows its closing line", passing, "ok  \tm/a\t0.6s\n", ""},
		{"a failing package shows its failed tests, nested", failing,
			"TestMain says hello\n--- FAIL: TestSub (2.00s)\n    --- FAIL: TestSub/two (2.00s)\n        b_test.go:9: bad two\nFAIL\nFAIL\tm/b\t2.1s\nFAIL\n", ""},
		{"a test that never ended is shown", timedOut, "panic: test timed out after 1s\nFAIL\tm/c\t1.0s\nFAIL\n", ""},
		{"build errors go to stderr as the compiler wrote them", buildFail,
			"FAIL\tm/d [build failed]\nFAIL\n", "# m/d [m/d.test]\nd.go:2:23: cannot use \"x\"\n"},
		{"a package cut off is shown and fails", unfinished, "    e_test.go:7: step 1\n(testreport: m/e did not finish)\nFAIL\n", ""},
		{"a line that is no event is kept", "go: something the go command said\n" + passing,
			"go: something the go command said\nok  \tm/a\t0.6s\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			if err := newReport().read(strings.NewReader(tc.in), &out, &errOut); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.out || errOut.String() != tc.errOut {
				t.Errorf("stdout:\n%s\nstderr:\n%s\nwant stdout:\n%s\nstderr:\n%s", out.String(), errOut.String(), tc.out, tc.errOut)
			}
		})
	}
}

// The summary lists packages of a second or more by time, and the slowest top-level tests
// with the slowest subtest of each.
func TestSummary(t *testing.T) {
	in := ev("pass", "m/x/fast", "TestA", "", 0.2) +
		ev("pass", "m/x/fast", "", "", 0.3) +
		ev("pass", "m/x/slow", "TestBig/embedded", "", 1) +
		ev("pass", "m/x/slow", "TestBig/moto/nested", "", 30) +
		ev("pass", "m/x/slow", "TestBig/moto", "", 31) +
		ev("pass", "m/x/slow", "TestBig", "", 32.04) +
		ev("fail", "m/x/slow", "TestSmall", "", 2) +
		ev("fail", "m/x/slow", "", "", 34.5) +
		ev("pass", "m/y", "TestC", "", 0.1) +
		ev("pass", "m/y", "", "", 0.4)
	r := newReport()
	if err := r.read(strings.NewReader(in), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	r.summary(&b, "m/", 2)
	want := `go test: packages by elapsed time (s)
     34.5  x/slow FAIL
      0.7  (2 more packages, each under 1 s)
     35.2  in all, 3 packages (more than the step's wall time when packages ran in parallel)
go test: the 2 slowest tests (s, parallel subtests included)
     32.0  x/slow TestBig  (slowest subtest moto 31.0)
      2.0  x/slow TestSmall FAIL
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// A top-level test lasts until its last subtest ends: parallel subtests run after their
// parent returned, and go test's elapsed for the parent leaves them out.
func TestParallelSubtestsCount(t *testing.T) {
	in := `{"Time":"2026-01-01T00:00:00Z","Action":"run","Package":"m/p","Test":"TestPar"}
{"Time":"2026-01-01T00:00:01Z","Action":"pass","Package":"m/p","Test":"TestPar","Elapsed":1}
{"Time":"2026-01-01T00:01:40Z","Action":"pass","Package":"m/p","Test":"TestPar/a","Elapsed":99}
{"Time":"2026-01-01T00:01:41Z","Action":"pass","Package":"m/p","Elapsed":101}
`
	r := newReport()
	if err := r.read(strings.NewReader(in), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	r.summary(&b, "m/", 10)
	if want := "    100.0  p TestPar  (slowest subtest a 99.0)\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("got\n%s\nwant it to end with\n%s", b.String(), want)
	}
}
