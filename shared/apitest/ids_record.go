package apitest

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Recording the UUID4 contract: with IDRecordEnv set to a directory, each test binary
// creates a file of its own there at its first checked success response and appends a line
// per id-named field that holds no UUID4 (IDViolations). After the whole suite,
// IDRecorded reads them (infra/idcheck): no file means the suite did not record, any line
// is a violation. Like the response recorder, the tests only record and judge nothing.

// IDRecordEnv names the directory the test binaries record id violations in.
const IDRecordEnv = "ID_RECORD_DIR"

type legacyIDsKey struct{}

// WithLegacyIDs marks a request whose answer holds ids stored before ids were UUID4 — a
// test that such records continue — so that the UUID4 contract does not record it.
func WithLegacyIDs(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), legacyIDsKey{}, true))
}

func legacyIDs(r *http.Request) bool { return r.Context().Value(legacyIDsKey{}) != nil }

type idRecorder struct {
	mu  sync.Mutex
	dir string
	f   *os.File
	err error
}

var idRecords = sync.OnceValue(func() *idRecorder { return &idRecorder{dir: os.Getenv(IDRecordEnv)} })

// record checks a success response's ids and writes its violations; the first response
// creates the binary's file even when it has none, which proves the binary was recorded.
func (r *idRecorder) record(method, path string, status int, body []byte) {
	// The API description's fields describe ids; they hold none.
	if r.dir == "" || status < 200 || status > 299 || strings.HasSuffix(path, "/openapi.json") {
		return
	}
	found := IDViolations(body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil && r.err == nil {
		if r.err = os.MkdirAll(r.dir, 0o755); r.err == nil {
			r.f, r.err = os.CreateTemp(r.dir, fmt.Sprintf("ids-%d-*.txt", os.Getpid()))
		}
	}
	if r.f == nil {
		return
	}
	for _, v := range found {
		r.f.WriteString(fmt.Sprintf("%s %s %d %s\n", method, path, status, v)) // unbuffered: no exit hook
	}
}

// IDRecorded reads the violations recorded under dir, sorted and once each, and how many
// test binaries recorded.
func IDRecorded(dir string) (violations []string, binaries int, err error) {
	files, err := filepath.Glob(filepath.Join(dir, "ids-*.txt"))
	if err != nil {
		return nil, 0, err
	}
	seen := map[string]bool{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, 0, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				seen[line] = true
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, 0, fmt.Errorf("read %s: %w", name, err)
		}
	}
	for line := range seen {
		violations = append(violations, line)
	}
	sort.Strings(violations)
	return violations, len(files), nil
}
