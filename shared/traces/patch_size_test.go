package traces

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestPatchTooLargeForOneTransaction: an update that would move more roll-up rows than one
// transaction holds (a trace of 40 tags, 6 of them replaced, and its latency changed: every
// tag's row of both levels, the old and the new) is refused with a 422 naming the tags, and
// the trace stays as it was; the same tag change alone fits and is applied.
func TestPatchTooLargeForOneTransaction(t *testing.T) {
	h := newHarness(t, 0)
	id := uuidN(7, 1)
	tags := make([]string, 40)
	for i := range tags {
		tags[i] = fmt.Sprintf("tag-%02d", i)
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	h.call("POST", projectPath+"/traces", `{"log_stream_id":"`+ExampleLogStreamID+`","traces":[{"id":"`+id+`","name":"t",
		"created_at":"2026-01-01T10:00:00Z","input":"q","output":"a","tags":`+js(tags)+`,"metrics":{"duration_ns":1000000}}]}`, 200, nil)

	replaced := append(append([]string{}, tags[6:]...), "new-0", "new-1", "new-2", "new-3", "new-4", "new-5")
	body := h.call("PATCH", projectPath+"/traces/"+id, `{"log_stream_id":"`+ExampleLogStreamID+`","tags":`+js(replaced)+`,
		"metrics":{"duration_ns":2000000}}`, 422, nil)
	if !strings.Contains(body, `"loc":["body","tags"]`) {
		t.Errorf("422 body names no tags: %s", body)
	}
	var tr map[string]any
	h.call("GET", projectPath+"/traces/"+id, "", 200, &tr)
	if got := fmt.Sprint(tr["tags"]); got != fmt.Sprint(tags) {
		t.Errorf("tags after the refused update: %s, want them unchanged", got)
	}

	h.call("PATCH", projectPath+"/traces/"+id, `{"log_stream_id":"`+ExampleLogStreamID+`","tags":`+js(replaced)+`}`, 200, nil)
	h.call("GET", projectPath+"/traces/"+id, "", 200, &tr)
	if got := fmt.Sprint(tr["tags"]); got != fmt.Sprint(replaced) {
		t.Errorf("tags after the update: %s, want %v", got, replaced)
	}
}
