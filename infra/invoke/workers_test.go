package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
)

// TestWorkerEvents runs the sample events of the worker functions (events/workers/: a
// DynamoDB stream events for the stream function, an SQS event for the evaluator) through
// their handlers on the seeded fixture and compares the answers with their expectations.
func TestWorkerEvents(t *testing.T) {
	root, err := apitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ fn, file string }{
		{"stream", "stream_trace_insert.json"},
		{"stream", "stream_extremes_repair.json"}, // a marker its revision already removed: one read
		{"evaluator", "sqs_evaluate.json"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(root, "events", "workers", tc.file)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ExpectedSuffix)
			if err != nil {
				t.Fatal(err)
			}
			d := fixtureDeps(t, nil)
			got, err := InvokeWorker(t.Context(), d, tc.fn, raw)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(got)
			apitest.SameJSON(t, string(b), string(want))
		})
	}
}
