package traces

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evalobs/evalapi/infra/testenv"
)

// bigText is n bytes of text that needs escaping in JSON (quotes, newlines, non-ASCII) and
// differs with seed, so that a byte moved between records shows.
func bigText(seed, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "span %d line %d: \"quoted\"\n\tnaïve ✓ ", seed, i)
	}
	s := b.String()[:n]
	for !utf8.ValidString(s) { // not cut inside a character
		s = s[:len(s)-1]
	}
	return s
}

type sentSpan struct{ input, output string }

// logLargeTrace logs trace id with n tool spans appended in batches of batch, span i with
// an input of size(i) bytes and an output of 100, and returns what it sent by span id.
func logLargeTrace(h *harness, trace string, n, batch int, size func(i int) int) map[string]sentSpan {
	h.t.Helper()
	h.call("POST", projectPath+"/traces", `{"log_stream_id":"`+ExampleLogStreamID+`","traces":[{"id":"`+trace+`","name":"big","created_at":"2026-01-01T10:00:00Z","input":"go"}]}`, 200, nil)
	sent := map[string]sentSpan{}
	for start := 0; start < n; start += batch {
		var spans []map[string]any
		for i := start; i < min(start+batch, n); i++ {
			id := uuidN(7, i)
			s := sentSpan{input: bigText(i, size(i)), output: bigText(-i, 100)}
			sent[id] = s
			spans = append(spans, map[string]any{"id": id, "type": "tool", "name": fmt.Sprint("step ", i), "input": s.input, "output": s.output})
		}
		body, err := json.Marshal(map[string]any{"log_stream_id": ExampleLogStreamID, "trace_id": trace, "parent_id": trace, "spans": spans})
		if err != nil {
			h.t.Fatal(err)
		}
		h.call("POST", projectPath+"/spans", string(body), 200, nil)
	}
	return sent
}

// walkSpanPages reads the spans of trace by pages of limit, following last_row_id, and
// checks each comes once with its content as sent; it returns the pages' body sizes.
func walkSpanPages(h *harness, trace string, limit int, sent map[string]sentSpan) []int {
	h.t.Helper()
	seen := map[string]bool{}
	var sizes []int
	after := ""
	for {
		body := `{"log_stream_id":"` + ExampleLogStreamID + `","filters":[{"type":"id","column_id":"trace_id","value":"` + trace + `"}],"limit":` + fmt.Sprint(limit) + after + `}`
		var p pageAnswer
		sizes = append(sizes, len(h.call("POST", projectPath+"/spans/search", body, 200, &p)))
		for _, r := range p.Records {
			id, _ := r["id"].(string)
			want, ok := sent[id]
			if !ok || seen[id] {
				h.t.Fatalf("span %s: sent %v, seen before %v", id, ok, seen[id])
			}
			seen[id] = true
			if r["input"] != want.input || r["output"] != want.output {
				h.t.Fatalf("span %s: content differs from what was sent (input %d bytes, want %d)", id, len(fmt.Sprint(r["input"])), len(want.input))
			}
		}
		if !p.Paginated {
			break
		}
		if len(p.Records) == 0 || p.LastRowID == nil {
			h.t.Fatalf("a paginated page with %d records and last_row_id %v", len(p.Records), p.LastRowID)
		}
		after = `,"previous_last_row_id":"` + *p.LastRowID + `"`
	}
	if len(seen) != len(sent) {
		h.t.Fatalf("span pages returned %d spans, want %d", len(seen), len(sent))
	}
	return sizes
}

// TestLargeTraceBySpanPages: a trace of 2,000 spans and more than 5 MB, logged as a trace and
// span appends, reads back whole through span pages, and its read by id stays under the
// answer limit with a warning.
func TestLargeTraceBySpanPages(t *testing.T) {
	h := newHarness(t, 0)
	trace := uuidN(6, 1)
	size := func(i int) int {
		if i%500 == 7 { // a few above the payload threshold
			return 40 << 10
		}
		return 2500
	}
	sent := logLargeTrace(h, trace, 2000, 250, size)
	total := 0
	for _, s := range sent {
		total += len(s.input) + len(s.output)
	}
	if total < 5_000_000 {
		t.Fatalf("the trace holds %d bytes of content, want at least 5 MB", total)
	}
	for _, p := range walkSpanPages(h, trace, 1000, sent) {
		if p > DefaultAnswerLimit {
			t.Errorf("a span page of %d bytes, more than %d", p, DefaultAnswerLimit)
		}
	}

	var tr map[string]any
	body := h.call("GET", projectPath+"/traces/"+trace, "", 200, &tr)
	if len(body) > DefaultAnswerLimit {
		t.Errorf("the trace's read answers %d bytes, more than %d", len(body), DefaultAnswerLimit)
	}
	if w, _ := tr["warning_message"].(string); !strings.Contains(w, "spans/search") {
		t.Errorf("the cut trace's warning_message is %q", w)
	}
	if n := countSpans(tr); n == 0 || n > 2000 {
		t.Errorf("the cut trace holds %d spans", n)
	}
}

// TestAnswerLimit: with a small answer limit, search pages are cut by size and continue
// where they stopped, and a read by id keeps the spans that fit and says how many.
func TestAnswerLimit(t *testing.T) {
	const limit = 12_000
	h := newHarnessOn(t, testenv.Embedded(t), Deps{AnswerLimit: limit})
	trace := uuidN(6, 2)
	sent := logLargeTrace(h, trace, 60, 25, func(int) int { return 1000 })
	sizes := walkSpanPages(h, trace, 100, sent)
	if len(sizes) < 5 {
		t.Errorf("60 spans of 1 KB in pages of at most %d bytes came in %d pages", limit, len(sizes))
	}
	for _, p := range sizes {
		if p > limit+1000 { // the page's envelope
			t.Errorf("a page of %d bytes, limit %d", p, limit)
		}
	}

	var tr map[string]any
	body := h.call("GET", projectPath+"/traces/"+trace, "", 200, &tr)
	n := countSpans(tr)
	if len(body) > limit || n >= 60 || n == 0 {
		t.Errorf("the trace's read: %d bytes with %d spans, want at most %d bytes and fewer than 60", len(body), n, limit)
	}
	if w, _ := tr["warning_message"].(string); !strings.Contains(w, fmt.Sprintf("only the first %d of its 60 spans", n)) {
		t.Errorf("warning_message %q does not say %d of 60 spans", w, n)
	}

	// Spans whose texts alone pass the limit are cut, not dropped.
	small := uuidN(6, 3)
	logLargeTrace(h, small, 2, 2, func(int) int { return 20_000 })
	var p pageAnswer
	h.call("POST", projectPath+"/spans/search", `{"log_stream_id":"`+ExampleLogStreamID+`","filters":[{"type":"id","column_id":"trace_id","value":"`+small+`"}],"limit":1}`, 200, &p)
	if len(p.Records) != 1 || utf8.RuneCountInString(fmt.Sprint(p.Records[0]["input"])) != truncateLimit {
		t.Errorf("a page whose one record passes the limit: %d records, input of %d characters", len(p.Records), utf8.RuneCountInString(fmt.Sprint(p.Records[0]["input"])))
	}
}
