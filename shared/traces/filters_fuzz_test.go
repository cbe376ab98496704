package traces

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/evalobs/evalapi/shared/validate"
)

// FuzzReadSearch reads any JSON body as a metrics search: a refused one is a well-formed
// HTTPValidationError under body; an accepted one holds a range that ends after it starts,
// a positive interval and one filter per filter sent, each of a known kind with an operator
// of that kind and the operands the operator takes, which can be matched against a trace.
func FuzzReadSearch(f *testing.F) {
	const head = `{"start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-02T00:00:00Z","log_stream_id":"5b2e8c1d-3f4a-4b6c-8d9e-0f1a2b3c4d5e",`
	for _, s := range []string{
		head + `"interval":60,"filters":[{"type":"text","name":"input","operator":"contains","value":"x","case_sensitive":false}]}`,
		head + `"filters":[{"type":"number","name":"latency_ms","operator":"between","value":[1,2]}]}`,
		head + `"filters":[{"type":"number","name":"latency_ms","operator":"between","value":[2,1]}]}`,
		head + `"filters":[{"type":"date","name":"created_at","operator":"gte","value":"2026-01-01T06:00:00Z"}]}`,
		head + `"filters":[{"type":"id","column_id":"id","value":["a","b"],"operator":"one_of"}]}`,
		head + `"filters":[{"type":"boolean","name":"is_complete","value":true},{"type":"collection","name":"tags","operator":"not_in","value":["prod"]}]}`,
		head + `"filters":[{"type":"fully_annotated","user_ids":["7d1e4b2a-9c3f-4e8d-b5a6-1f2e3d4c5b6a"]}]}`,
		head + `"filters":[{"type":"nope"},{"name":"x"},7,null],"group_by":""}`,
		`{"start_time":"2026-01-02T00:00:00Z","end_time":"2026-01-01T00:00:00Z","experiment_id":"x"}`,
		`{"start_time":"2000-01-01T00:00:00Z","end_time":"2099-01-01T00:00:00Z","log_stream_id":"5b2e8c1d-3f4a-4b6c-8d9e-0f1a2b3c4d5e","interval":1}`,
		`[]`, `{}`, `null`,
	} {
		f.Add([]byte(s))
	}
	tr := filterTrace()
	f.Fuzz(func(t *testing.T, body []byte) {
		raw, present, verr := validate.DecodeBody(body)
		if verr != nil {
			return // the decoder has its own target
		}
		errs := validate.New()
		q := readSearch(errs, raw, present)
		if err := errs.Err(); err != nil {
			for _, d := range errs.Detail {
				if len(d.Loc) == 0 || d.Loc[0] != "body" || d.Type == "" || d.Msg == "" {
					t.Fatalf("malformed problem %+v", d)
				}
			}
			if _, err := json.Marshal(errs); err != nil {
				t.Fatalf("the 422 body does not marshal: %v", err)
			}
			return
		}
		if !q.start.Before(q.end) || q.interval <= 0 {
			t.Fatalf("accepted range [%v, %v) by %v", q.start, q.end, q.interval)
		}
		sent, _ := raw.(map[string]any)["filters"].([]any)
		if len(q.filters) != len(sent) {
			t.Fatalf("%d filters sent, %d read", len(sent), len(q.filters))
		}
		for _, fl := range q.filters {
			checkFilter(t, fl)
			fl.match(tr) // must not panic, whatever the operands
		}
	})
}

func checkFilter(t *testing.T, fl *filter) {
	t.Helper()
	// The column is checked against the run's catalog later (columnAccepts), not here.
	if !slices.Contains(filterKinds, fl.kind) {
		t.Fatalf("accepted filter %+v", fl)
	}
	if fl.kind == filterFullyAnnotated {
		return
	}
	if !slices.Contains(operators[fl.kind], fl.op) {
		t.Fatalf("accepted operator %q for a %s filter", fl.op, fl.kind)
	}
	switch fl.kind {
	case "number":
		want := 1
		if fl.op == "between" {
			want = 2
		}
		if len(fl.nums) != want || want == 2 && fl.nums[0] > fl.nums[1] {
			t.Fatalf("accepted operands %v for %s", fl.nums, fl.op)
		}
	case "id", "text", "collection":
		if fl.strs == nil {
			t.Fatalf("accepted a %s filter without operand", fl.kind)
		}
	case "date":
		if fl.when.IsZero() {
			t.Fatal("accepted a date filter without a date")
		}
	}
}
