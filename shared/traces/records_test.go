package traces

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/purge"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

const projectPath = "/v2/projects/" + ExampleProjectID

// call sends a request as the example organization's admin, wants status want and decodes
// the answer into out (when not nil).
func (h *harness) call(method, path, body string, want int, out any) string {
	h.t.Helper()
	code, resp := h.do(&h.org.Admin, method, path, body)
	if code != want {
		h.t.Fatalf("%s %s %s: %d %s, want %d", method, path, body, code, resp, want)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(resp), out); err != nil {
			h.t.Fatalf("%s %s: %v: %s", method, path, err, resp)
		}
	}
	return resp
}

type pageAnswer struct {
	StartingToken     int              `json:"starting_token"`
	Limit             int              `json:"limit"`
	Paginated         bool             `json:"paginated"`
	NextStartingToken *int             `json:"next_starting_token"`
	LastRowID         *string          `json:"last_row_id"`
	Records           []map[string]any `json:"records"`
}

func ids(recs []map[string]any) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i], _ = r["id"].(string)
	}
	return out
}

func (h *harness) count(kind, body string) int {
	h.t.Helper()
	var c struct {
		TotalCount int `json:"total_count"`
	}
	h.call("POST", projectPath+"/"+kind+"/count", body, http.StatusOK, &c)
	return c.TotalCount
}

// uuidN is a fixed test uuid numbered n.
func uuidN(prefix, n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", prefix, n) }

// TestLoggerFlow walks what the original's logging client does: a session, traces with
// spans three levels deep flushed in two batches (one sent twice), a span appended, the
// trace completed by PATCH, then searches by session and by external id, and counts:
// every record is there exactly once.
func TestLoggerFlow(t *testing.T) {
	h := newHarness(t, 0)
	var sess struct {
		ID string `json:"id"`
	}
	h.call("POST", projectPath+"/sessions", `{"log_stream_id":"`+ExampleLogStreamID+`","name":"chat","external_id":"user-7"}`, 200, &sess)
	t1, t2 := uuidN(1, 1), uuidN(1, 2)
	agent, llm, tool, retr, appended, llm2 := uuidN(2, 1), uuidN(2, 2), uuidN(2, 3), uuidN(2, 4), uuidN(2, 5), uuidN(2, 6)
	batch1 := `{"log_stream_id":"` + ExampleLogStreamID + `","session_id":"` + sess.ID + `","is_complete":false,"traces":[
		{"id":"` + t1 + `","name":"turn 1","created_at":"2026-01-01T10:00:00Z","input":[{"role":"user","content":"weather?"}],
		 "metrics":{"duration_ns":2000000000,"num_input_tokens":10,"num_output_tokens":5,"num_total_tokens":15},
		 "spans":[{"id":"` + agent + `","type":"agent","name":"planner","spans":[
			{"id":"` + llm + `","type":"llm","name":"call","model":"m1","input":[{"role":"user","content":"weather?"}],"output":{"role":"assistant","content":"use tool"}},
			{"id":"` + tool + `","type":"tool","name":"weather","input":"paris","spans":[
				{"id":"` + retr + `","type":"retriever","name":"docs","input":"paris","output":[{"content":"sunny","metadata":{"src":"a"}}]}]}]}]}]}`
	batch2 := `{"log_stream_id":"` + ExampleLogStreamID + `","session_id":"` + sess.ID + `","traces":[
		{"id":"` + t2 + `","name":"turn 2","created_at":"2026-01-01T10:01:00Z","input":"thanks","output":"welcome",
		 "spans":[{"id":"` + llm2 + `","type":"llm","name":"call","input":"thanks","output":"welcome"}]}]}`
	h.call("POST", projectPath+"/traces", batch1, 200, nil)
	for range 2 { // a retried flush stores nothing twice
		h.call("POST", projectPath+"/traces", batch2, 200, nil)
	}
	h.call("POST", projectPath+"/spans", `{"log_stream_id":"`+ExampleLogStreamID+`","trace_id":"`+t1+`","parent_id":"`+agent+`",
		"spans":[{"id":"`+appended+`","type":"llm","name":"summary","input":"sum","output":"done"}]}`, 200, nil)
	h.call("PATCH", projectPath+"/traces/"+t1, `{"log_stream_id":"`+ExampleLogStreamID+`","trace_id":"`+t1+`","output":"final","is_complete":true}`, 200, nil)

	var tr map[string]any
	h.call("GET", projectPath+"/traces/"+t1, "", 200, &tr)
	if tr["output"] != "final" || tr["is_complete"] != true {
		t.Errorf("trace after PATCH: output %v, is_complete %v", tr["output"], tr["is_complete"])
	}
	if got := countSpans(tr); got != 5 {
		t.Errorf("trace %s holds %d spans in its tree, want 5", t1, got)
	}

	var p pageAnswer
	h.call("POST", projectPath+"/traces/search", `{"log_stream_id":"`+ExampleLogStreamID+`","filters":[{"type":"id","column_id":"session_id","value":"`+sess.ID+`"}],"sort":{"column_id":"created_at","ascending":true}}`, 200, &p)
	if got := ids(p.Records); !slices.Equal(got, []string{t1, t2}) {
		t.Errorf("traces of the session: %v, want [%s %s]", got, t1, t2)
	}
	h.call("POST", projectPath+"/sessions/search", `{"log_stream_id":"`+ExampleLogStreamID+`","filters":[{"type":"text","column_id":"external_id","operator":"eq","value":"user-7"}],"include_counts":true}`, 200, &p)
	if len(p.Records) != 1 || p.Records[0]["id"] != sess.ID || p.Records[0]["num_traces"] != float64(2) {
		t.Errorf("sessions with external id user-7: %v", p.Records)
	}
	h.call("POST", projectPath+"/spans/search", `{"log_stream_id":"`+ExampleLogStreamID+`","filters":[{"type":"id","column_id":"trace_id","value":"`+t1+`"}],"limit":3}`, 200, &p)
	seen := ids(p.Records)
	for p.Paginated {
		h.call("POST", projectPath+"/spans/search", `{"log_stream_id":"`+ExampleLogStreamID+`","filters":[{"type":"id","column_id":"trace_id","value":"`+t1+`"}],"limit":3,"previous_last_row_id":"`+*p.LastRowID+`"}`, 200, &p)
		seen = append(seen, ids(p.Records)...)
	}
	slices.Sort(seen)
	if want := []string{agent, llm, tool, retr, appended}; !slices.Equal(seen, sorted(want)) {
		t.Errorf("spans of %s by pages of 3: %v, want %v", t1, seen, sorted(want))
	}
	run := `{"log_stream_id":"` + ExampleLogStreamID + `"}`
	base := h.count("traces", run) // the example's own traces are there too
	all := `{"log_stream_id":"` + ExampleLogStreamID + `","filters":[{"type":"date","column_id":"created_at","operator":"gte","value":"2000-01-01T00:00:00Z"}]}`
	if scanned := h.count("traces", all); scanned != base {
		t.Errorf("traces counted by the run's summary %d, by reading them %d", base, scanned)
	}
	if n := h.count("spans", all); n != h.count("spans", run) {
		t.Errorf("spans counted by the summary %d, by reading them %d", h.count("spans", run), n)
	}
	bySession := `{"log_stream_id":"` + ExampleLogStreamID + `","filters":[{"type":"id","column_id":"session_id","value":"` + sess.ID + `"}]}`
	if n := h.count("traces", bySession); n != 2 {
		t.Errorf("traces of the session counted %d, want 2", n)
	}
	if n := h.count("spans", bySession); n != 6 {
		t.Errorf("spans of the session counted %d, want 6", n)
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

// countSpans counts the spans of a trace's tree.
func countSpans(rec map[string]any) int {
	n := 0
	kids, _ := rec["spans"].([]any)
	for _, k := range kids {
		if m, ok := k.(map[string]any); ok {
			n += 1 + countSpans(m)
		}
	}
	return n
}

// TestDeleteTraces deletes a trace by id: it is gone from reads, searches, counts and the
// metrics search; the stream consumer then purges its spans; deleting again counts nothing.
func TestDeleteTraces(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		h := newHarnessOn(t, tbl, Deps{})
		run := `{"log_stream_id":"` + ExampleLogStreamID + `"}`
		traces, spans := h.count("traces", run), h.count("spans", run)
		found, err := store.RecordItem(t.Context(), tbl, h.org.ID, ExampleTraceID)
		if err != nil {
			t.Fatal(err)
		}
		before, err := tbl.Get(t.Context(), found.Key(), true)
		if err != nil {
			t.Fatal(err)
		}
		del := `{"log_stream_id":"` + ExampleLogStreamID + `","filters":[{"type":"id","column_id":"id","value":"` + ExampleTraceID + `"}]}`
		var msg struct{ Message string }
		h.call("POST", projectPath+"/traces/delete", del, 200, &msg)
		if msg.Message != "Deleted 1 traces" {
			t.Errorf("message %q", msg.Message)
		}
		h.call("GET", projectPath+"/traces/"+ExampleTraceID, "", 404, nil)
		if n := h.count("traces", run); n != traces-1 {
			t.Errorf("traces after the delete: %d, want %d", n, traces-1)
		}
		var tr store.Trace
		if err := store.DecodeTrace(before, &tr); err != nil {
			t.Fatal(err)
		}
		if n := h.count("spans", run); n != spans-int(tr.NumSpans) {
			t.Errorf("spans counted after the delete: %d, want %d", n, spans-int(tr.NumSpans))
		}
		h.call("POST", projectPath+"/traces/delete", del, 200, &msg)
		if msg.Message != "Deleted 0 traces" || h.count("traces", run) != traces-1 {
			t.Errorf("a second delete: %q, %d traces", msg.Message, h.count("traces", run))
		}
		// The stream reports the trace's removal; the consumer purges its spans, twice harmlessly.
		w := purge.New(tbl, nil)
		for range 2 {
			if failed := w.Handle(t.Context(), []stream.Record{{ID: "1", Old: before}}); len(failed) != 0 {
				t.Fatalf("purge failed: %v", failed)
			}
		}
		left, err := store.TraceSpans(t.Context(), tbl, ExampleTraceID, false)
		if err != nil || len(left) != 0 {
			t.Errorf("spans left after the purge: %d (%v)", len(left), err)
		}
	})
}

// TestDeleteNeedsAFilter: a delete without filters would empty the run; it is refused.
func TestDeleteNeedsAFilter(t *testing.T) {
	h := newHarness(t, 0)
	resp := h.call("POST", projectPath+"/traces/delete", `{"log_stream_id":"`+ExampleLogStreamID+`"}`, 422, nil)
	if !strings.Contains(resp, "filters or filter_tree") {
		t.Errorf("422 without saying what to send: %s", resp)
	}
}

// TestPartialSearch: the original's clients page through a run with partial_search; each
// record carries its identity and the columns selected, nothing else.
func TestPartialSearch(t *testing.T) {
	h := newHarness(t, 0)
	t1 := uuidN(7, 1)
	h.call("POST", projectPath+"/traces", `{"log_stream_id":"`+ExampleLogStreamID+`","traces":[
		{"id":"`+t1+`","name":"one","created_at":"2026-01-01T10:00:00Z","input":"in","output":"out","tags":["x"],
		 "metrics":{"duration_ns":5},"spans":[{"id":"`+uuidN(7, 2)+`","type":"llm","name":"call","input":"a","output":"b"}]}]}`, 200, nil)
	byID := `"filters":[{"type":"id","column_id":"trace_id","value":"` + t1 + `"}]`
	for _, tc := range []struct {
		name, kind, body string
		want, absent     []string
	}{
		{"traces: fields selected", "traces", `{"log_stream_id":"` + ExampleLogStreamID + `",` + byID + `,"select_columns":{"column_ids":["input","tags","nope"]}}`,
			[]string{"type", "id", "created_at", "input", "tags"}, []string{"output", "name", "metrics", "nope"}},
		{"traces: a usage metric", "traces", `{"log_stream_id":"` + ExampleLogStreamID + `",` + byID + `,"select_columns":{"column_ids":["duration_ns"]}}`,
			[]string{"id", "metrics"}, []string{"input", "output"}},
		{"spans: all metrics", "spans", `{"log_stream_id":"` + ExampleLogStreamID + `",` + byID + `,"select_columns":{"include_all_metrics":true}}`,
			[]string{"type", "id", "trace_id", "metrics"}, []string{"input", "output", "name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p pageAnswer
			h.call("POST", projectPath+"/"+tc.kind+"/partial_search", tc.body, 200, &p)
			if len(p.Records) != 1 {
				t.Fatalf("%d records, want 1", len(p.Records))
			}
			for _, k := range tc.want {
				if _, ok := p.Records[0][k]; !ok {
					t.Errorf("%s missing from %v", k, p.Records[0])
				}
			}
			for _, k := range tc.absent {
				if _, ok := p.Records[0][k]; ok {
					t.Errorf("%s answered in %v", k, p.Records[0])
				}
			}
		})
	}
	if m, _ := func() (map[string]any, bool) {
		var p pageAnswer
		h.call("POST", projectPath+"/traces/partial_search", `{"log_stream_id":"`+ExampleLogStreamID+`",`+byID+`,"select_columns":{"column_ids":["duration_ns"]}}`, 200, &p)
		m, ok := p.Records[0]["metrics"].(map[string]any)
		return m, ok
	}(); len(m) != 1 || m["duration_ns"] != float64(5) {
		t.Errorf("metrics of a selected usage value: %v", m)
	}
	body := `{"log_stream_id":"` + ExampleLogStreamID + `","select_columns":{}}`
	for _, tc := range []struct {
		who    *authtest.User
		path   string
		body   string
		status int
	}{
		{nil, projectPath + "/traces/partial_search", body, 401},
		{&h.other.Admin, projectPath + "/sessions/partial_search", body, 404},
		{&h.org.Admin, "/v2/projects/" + uuidN(9, 9) + "/traces/partial_search", body, 404},
		{&h.org.Admin, projectPath + "/traces/partial_search", `{"log_stream_id":"` + ExampleLogStreamID + `"}`, 422},
		{&h.org.Admin, projectPath + "/spans/partial_search", `{"log_stream_id":"` + ExampleLogStreamID + `","select_columns":{"column_ids":[""]}}`, 422},
	} {
		if code, resp := h.do(tc.who, "POST", tc.path, tc.body); code != tc.status {
			t.Errorf("%s %s: %d %s, want %d", tc.path, tc.body, code, resp, tc.status)
		}
	}
}
