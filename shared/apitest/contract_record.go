package apitest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Recording which operations the client contract held: with RecordEnv set to a directory,
// every test binary appends to a file there each operation ("METHOD /v2/path") whose
// success response it checked against the contract and found conforming. After the whole
// suite, ContractCoverage reads those files and names each served operation the client
// parses that no test answered — so "every served operation" is a fact of the suite's
// recorded responses, not of a list kept by hand (infra/contractcover, run by test.sh).

// RecordEnv names the directory the test binaries record their checked operations in.
const RecordEnv = "CLIENT_CONTRACT_RECORD_DIR"

// opRecorder appends each operation once per process to its own file.
type opRecorder struct {
	mu   sync.Mutex
	seen map[string]bool
	f    *os.File
	err  error
}

var recorder = sync.OnceValue(func() *opRecorder {
	r := &opRecorder{seen: map[string]bool{}}
	dir := os.Getenv(RecordEnv)
	if dir == "" {
		return r
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.err = err
		return r
	}
	r.f, r.err = os.CreateTemp(dir, fmt.Sprintf("ops-%d-*.txt", os.Getpid()))
	return r
})

// record notes that a success of op conformed. It reports a failure to write, so that a
// suite recording its coverage cannot lose operations silently.
func (r *opRecorder) record(op string) error {
	if r.f == nil {
		return r.err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[op] || r.err != nil {
		return r.err
	}
	r.seen[op] = true
	_, r.err = r.f.WriteString(op + "\n") // unbuffered: the binary exits without a hook
	return r.err
}

// Recorded reads the operations recorded under dir by every test binary.
func Recorded(dir string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "ops-*.txt"))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if op := strings.TrimSpace(sc.Text()); op != "" {
				out[op] = true
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return out, nil
}

// ContractCoverage holds the served operations (docs/openapi.yaml's, which the route
// inventory proves equal to the handlers') to the contract and to what the suite recorded:
// each must have an entry in the contract file, and each the client parses a success of
// (a non-null entry) must have had a conforming success recorded. It returns one line per
// gap, sorted.
func (c *Contract) ContractCoverage(served []string, recorded map[string]bool) []string {
	var gaps []string
	for _, op := range served {
		entry, known := c.Operations[op]
		switch {
		case !known:
			gaps = append(gaps, op+": no entry in shared/apitest/testdata/client-contract.json")
		case entry != nil && !recorded[op]:
			gaps = append(gaps, fmt.Sprintf("%s: no test checked a %d answer against the client's %s", op, entry.Status, or(entry.Body, "empty body")))
		}
	}
	for op := range c.Operations {
		if !slices.Contains(served, op) {
			gaps = append(gaps, op+": in the contract file, but not an operation of docs/openapi.yaml")
		}
	}
	slices.Sort(gaps)
	return gaps
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// Operations lists the document's operations as "METHOD /path", sorted.
func (v *V) Operations() []string {
	var out []string
	for path, item := range v.doc.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+path)
		}
	}
	slices.Sort(out)
	return out
}
