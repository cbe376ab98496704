// Command testreport reads `go test -json` on its standard input and writes what plain
// `go test` would have shown, then where the time went. infra/scripts/test.sh pipes the go
// test step through it:
//
//	go test -json ./... | tee go-test.json | testreport -trim github.com/evalobs/evalapi/
//
// The output of each package appears when the package ends, as go test shows it without -v:
// a passing package as its closing "ok" line only, a failing one as its closing "FAIL" line
// after the output of its failing tests (or all of its output, when no test failed: a panic
// in TestMain, a timeout), build errors as the compiler wrote them. CI reads those closing
// lines, so they are passed through as go test wrote them.
//
// After the last package come the packages by elapsed time and the ten slowest top-level
// tests, each with its slowest subtest: the figures that say where a slow suite goes.
// testreport exits 0 whatever the tests did; the go test status is the caller's to keep.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

func main() {
	trim := flag.String("trim", "", "prefix to cut from package paths in the summary (the module path and a slash)")
	top := flag.Int("top", 10, "how many of the slowest tests to list")
	flag.Parse()
	r := newReport()
	if err := r.read(os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	r.summary(os.Stdout, *trim, *top)
}

// event is one line of `go test -json` (cmd/test2json's TestEvent, plus the build events
// the go command adds).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // build-output and build-fail
	Test       string
	Elapsed    float64 // seconds
	Output     string
}

// line is one line of output of a package, and the test that wrote it ("" for the package).
type line struct {
	test, text string
}

type pkgState struct {
	lines  []line
	failed map[string]bool // tests that failed
	done   map[string]bool // tests that ended (passed, failed or skipped)
}

// result is a test or package that ended, and its time.
type result struct {
	pkg, test  string
	elapsed    float64 // as go test reports it
	start, end time.Time
	failed     bool
}

type report struct {
	pkgs     map[string]*pkgState
	started  map[[2]string]time.Time // by package and test: when it began to run
	packages []result                // in the order they ended
	tests    []result                // every test and subtest that ended
	anyFail  bool
}

func newReport() *report {
	return &report{pkgs: map[string]*pkgState{}, started: map[[2]string]time.Time{}}
}

// read consumes the events of in, writing each package's output to out as it ends and build
// errors to errOut.
func (r *report) read(in io.Reader, out, errOut io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20) // a test may print long lines
	for sc.Scan() {
		b := sc.Bytes()
		var e event
		if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &e) != nil {
			// Not an event (a line the go command or an -exec wrapper wrote to stdout):
			// show it rather than lose it.
			fmt.Fprintf(out, "%s\n", b)
			continue
		}
		r.event(e, out, errOut)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	// Packages that never ended (the go command was killed): show what they wrote.
	for _, name := range slices.Sorted(maps.Keys(r.pkgs)) {
		r.anyFail = true
		fmt.Fprintf(out, "%s(testreport: %s did not finish)\n", r.pkgs[name].text(true), name)
	}
	if r.anyFail {
		// The line go test ends with when anything failed.
		fmt.Fprintln(out, "FAIL")
	}
	return nil
}

func (r *report) event(e event, out, errOut io.Writer) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(errOut, e.Output)
		return
	case "build-fail":
		r.anyFail = true
		return
	}
	if e.Package == "" {
		return
	}
	p := r.pkgs[e.Package]
	if p == nil {
		p = &pkgState{failed: map[string]bool{}, done: map[string]bool{}}
		r.pkgs[e.Package] = p
	}
	switch e.Action {
	case "run":
		r.started[[2]string{e.Package, e.Test}] = e.Time
	case "output":
		p.lines = append(p.lines, line{e.Test, e.Output})
	case "pass", "fail", "skip":
		if e.Test != "" {
			p.done[e.Test] = true
			p.failed[e.Test] = e.Action == "fail"
			r.tests = append(r.tests, result{pkg: e.Package, test: e.Test, elapsed: e.Elapsed,
				start: r.started[[2]string{e.Package, e.Test}], end: e.Time, failed: e.Action == "fail"})
			return
		}
		failed := e.Action == "fail"
		r.anyFail = r.anyFail || failed
		fmt.Fprint(out, p.text(failed))
		r.packages = append(r.packages, result{pkg: e.Package, elapsed: e.Elapsed, failed: failed})
		delete(r.pkgs, e.Package)
	}
}

// text is what go test without -v shows of a package that ended: of a passing one, its
// closing line; of a failing one, its own output and that of every test that did not pass
// (failed, or never ended), each test's "--- FAIL" line first and subtests indented under
// their parent, without the "=== RUN" framing that -json adds.
func (p *pkgState) text(failed bool) string {
	var b strings.Builder
	if !failed {
		for _, l := range p.lines {
			if l.test == "" && isClosing(l.text) {
				b.WriteString(l.text)
			}
		}
		return b.String()
	}
	// The lines of each test, and its subtests in the order they first wrote.
	own := map[string][]string{}
	header := map[string]string{}
	children := map[string][]string{}
	seen := map[string]bool{}
	var order []line // the package's own lines and its top-level tests (text ""), in order
	for _, l := range p.lines {
		if l.test == "" {
			order = append(order, l)
			continue
		}
		if !seen[l.test] {
			seen[l.test] = true
			if i := strings.LastIndexByte(l.test, '/'); i >= 0 && seen[l.test[:i]] {
				children[l.test[:i]] = append(children[l.test[:i]], l.test)
			} else {
				order = append(order, line{test: l.test})
			}
		}
		switch {
		case isFraming(l.text):
		case header[l.test] == "" && isResult(l.text, l.test):
			header[l.test] = l.text
		default:
			own[l.test] = append(own[l.test], l.text)
		}
	}
	var write func(test string, depth int)
	write = func(test string, depth int) {
		if p.done[test] && !p.failed[test] {
			return
		}
		indent := strings.Repeat("    ", depth)
		if h := header[test]; h != "" {
			b.WriteString(indent + h)
		}
		for _, s := range own[test] {
			if s != "\n" {
				s = indent + s
			}
			b.WriteString(s)
		}
		for _, c := range children[test] {
			write(c, depth+1)
		}
	}
	for _, l := range order {
		if l.test == "" {
			b.WriteString(l.text)
		} else {
			write(l.test, 0)
		}
	}
	return b.String()
}

// isResult reports whether s is the "--- FAIL: test (1.23s)" line (or PASS, SKIP) of test.
func isResult(s, test string) bool {
	for _, p := range []string{"--- FAIL: ", "--- PASS: ", "--- SKIP: "} {
		if strings.HasPrefix(s, p+test+" (") {
			return true
		}
	}
	return false
}

// isClosing reports whether s is a package's closing line: "ok  \tpkg\t1.2s" or "?   \tpkg\t[no test files]".
func isClosing(s string) bool {
	return strings.HasPrefix(s, "ok  \t") || strings.HasPrefix(s, "?   \t")
}

// isFraming reports whether s is one of the lines test2json mode adds around tests.
func isFraming(s string) bool {
	for _, p := range []string{"=== RUN ", "=== PAUSE ", "=== CONT ", "=== NAME "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// summary writes the packages by elapsed time (those of a second or more) and the top
// slowest top-level tests, each with its slowest subtest.
func (r *report) summary(w io.Writer, trim string, top int) {
	if len(r.packages) == 0 {
		return
	}
	short := func(pkg string) string { return strings.TrimPrefix(pkg, trim) }
	pkgs := slices.Clone(r.packages)
	slices.SortStableFunc(pkgs, func(a, b result) int { return cmp.Compare(b.elapsed, a.elapsed) })
	var sum, rest float64
	var nrest int
	fmt.Fprintln(w, "go test: packages by elapsed time (s)")
	for _, p := range pkgs {
		sum += p.elapsed
		if p.elapsed < 1 {
			rest += p.elapsed
			nrest++
			continue
		}
		fmt.Fprintf(w, "  %7.1f  %s%s\n", p.elapsed, short(p.pkg), failMark(p.failed))
	}
	if nrest > 0 {
		fmt.Fprintf(w, "  %7.1f  (%d more packages, each under 1 s)\n", rest, nrest)
	}
	fmt.Fprintf(w, "  %7.1f  in all, %d packages (more than the step's wall time when packages ran in parallel)\n", sum, len(pkgs))

	// A top-level test's time is from its start to the end of the last of its subtests: go
	// test's own figure leaves out parallel subtests, which end after their parent returned.
	// Beside it, its slowest subtest at any depth: with eachTable-style tests it names the
	// backend that costs.
	type key struct{ pkg, test string }
	var tops []result
	at := map[key]int{}
	slowestSub := map[key]result{}
	for _, t := range r.tests {
		if !strings.Contains(t.test, "/") {
			at[key{t.pkg, t.test}] = len(tops)
			tops = append(tops, t)
		}
	}
	for _, t := range r.tests {
		root, _, sub := strings.Cut(t.test, "/")
		if !sub {
			continue
		}
		k := key{t.pkg, root}
		if s, ok := slowestSub[k]; !ok || t.elapsed > s.elapsed {
			slowestSub[k] = t
		}
		if i, ok := at[k]; ok && t.end.After(tops[i].end) {
			tops[i].end = t.end
		}
	}
	if len(tops) == 0 {
		return
	}
	for i, t := range tops {
		if !t.start.IsZero() && !t.end.IsZero() {
			tops[i].elapsed = max(t.elapsed, t.end.Sub(t.start).Seconds())
		}
	}
	slices.SortStableFunc(tops, func(a, b result) int { return cmp.Compare(b.elapsed, a.elapsed) })
	fmt.Fprintf(w, "go test: the %d slowest tests (s, parallel subtests included)\n", min(top, len(tops)))
	for _, t := range tops[:min(top, len(tops))] {
		fmt.Fprintf(w, "  %7.1f  %s %s%s", t.elapsed, short(t.pkg), t.test, failMark(t.failed))
		if s, ok := slowestSub[key{t.pkg, t.test}]; ok {
			fmt.Fprintf(w, "  (slowest subtest %s %.1f)", strings.TrimPrefix(s.test, t.test+"/"), s.elapsed)
		}
		fmt.Fprintln(w)
	}
}

func failMark(failed bool) string {
	if failed {
		return " FAIL"
	}
	return ""
}
