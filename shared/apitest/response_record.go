package apitest

import (
	"fmt"
	"os"
	"regexp"
	"sync"
)

// Recording every checked response: with ResponseRecordEnv set to a directory, each test
// binary appends a line per response Validate sees — method, path, status and body, with
// ids and times replaced by placeholders — to a file of its own there. Two runs of the
// suite, before and after a change meant to be invisible (a refactoring), then compare as
// sorted sets of lines: `sort dir/*.txt | uniq -c` of each, diffed. The test code only
// records; it judges nothing, so a test never depends on it.

// ResponseRecordEnv names the directory responses are recorded in.
const ResponseRecordEnv = "RESPONSE_RECORD_DIR"

var (
	uuidText = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	timeText = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?`)
)

type responseRecorder struct {
	mu sync.Mutex
	f  *os.File
}

var responses = sync.OnceValue(func() *responseRecorder {
	r := &responseRecorder{}
	dir := os.Getenv(ResponseRecordEnv)
	if dir == "" {
		return r
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		r.f, _ = os.CreateTemp(dir, fmt.Sprintf("responses-%d-*.txt", os.Getpid()))
	}
	return r
})

func (r *responseRecorder) record(method, path string, status int, body []byte) {
	if r.f == nil {
		return
	}
	norm := func(s string) string {
		return timeText.ReplaceAllString(uuidText.ReplaceAllString(s, "<id>"), "<time>")
	}
	line := fmt.Sprintf("%s %s %d %q\n", method, norm(path), status, norm(string(body)))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.f.WriteString(line) // unbuffered: the binary exits without a hook
}
