package traces

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/infra/testenv"
)

// contentShapes are the content shapes the original's client logs, per span type: each is
// ingested, then read by id, by search and by export, and must come back JSON-equal.
var contentShapes = []struct {
	name, spanType, input, output string
}{
	{"text", "workflow", `"plain text"`, `"answer"`},
	{"messages", "llm", `[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}]`,
		`{"role":"assistant","content":"hello","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`},
	{"tool reply", "llm", `[{"role":"tool","content":"42","tool_call_id":"c1"}]`, `{"role":"assistant","content":"it is 42"}`},
	{"documents", "retriever", `"query"`, `[{"content":"doc one","metadata":{"source":"a","page":3}},{"content":"doc two","metadata":{}}]`},
	{"tool", "tool", `"{\"city\":\"Paris\"}"`, `"sunny"`},
	{"agent", "agent", `[{"role":"user","content":"plan"}]`, `{"role":"assistant","content":"done"}`},
	{"unicode", "workflow", `"π ≈ 3.14159 — “quoted” \u0000 \ud83d\ude00"`, `"ok"`},
}

// TestContentRoundTrip ingests every content shape and reads it back by id, by search and
// by export: each comes back as sent.
func TestContentRoundTrip(t *testing.T) {
	h := newHarness(t, 0)
	var traces []string
	for i, s := range contentShapes {
		tid, sid := uuidN(5, i), uuidN(6, i)
		traces = append(traces, `{"id":"`+tid+`","name":"`+s.name+`","input":"q","output":"a","spans":[{"id":"`+sid+
			`","type":"`+s.spanType+`","name":"`+s.name+`","input":`+s.input+`,"output":`+s.output+`}]}`)
	}
	h.call("POST", projectPath+"/traces", `{"log_stream_id":"`+ExampleLogStreamID+`","traces":[`+strings.Join(traces, ",")+`]}`, 200, nil)

	var byID map[string]map[string]any
	exported := h.export(`{"log_stream_id":"` + ExampleLogStreamID + `","root_type":"span","redact":false}`)
	for i, s := range contentShapes {
		sid := uuidN(6, i)
		var read map[string]any
		h.call("GET", projectPath+"/spans/"+sid, "", 200, &read)
		var p pageAnswer
		h.call("POST", projectPath+"/spans/search", `{"log_stream_id":"`+ExampleLogStreamID+`","filters":[{"type":"id","column_id":"id","value":"`+sid+`"}]}`, 200, &p)
		if len(p.Records) != 1 {
			t.Fatalf("%s: search by id found %d spans", s.name, len(p.Records))
		}
		byID = map[string]map[string]any{"read": read, "search": p.Records[0], "export": exported[sid]}
		for how, rec := range byID {
			for field, sent := range map[string]string{"input": s.input, "output": s.output} {
				var want any
				if err := json.Unmarshal([]byte(sent), &want); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(rec[field], want) {
					t.Errorf("%s, %s by %s: %v, sent %v", s.name, field, how, rec[field], want)
				}
			}
		}
	}
}

// export posts an export and answers its JSON lines by record id.
func (h *harness) export(body string) map[string]map[string]any {
	h.t.Helper()
	resp := h.call("POST", projectPath+"/export_records", body, 200, nil)
	out := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(resp))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			h.t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		id, _ := rec["id"].(string)
		out[id] = rec
	}
	return out
}

// TestExportFormats: CSV has a header of the chosen columns and one row per record; redact
// writes the redacted contents; a capped export answers 413 before any byte.
func TestExportFormats(t *testing.T) {
	h := newHarness(t, 0)
	tid := uuidN(7, 1)
	h.call("POST", projectPath+"/traces", `{"log_stream_id":"`+ExampleLogStreamID+`","traces":[{"id":"`+tid+
		`","name":"secret","input":"my card is 4111","redacted_input":"my card is [redacted]","output":"ok"}]}`, 200, nil)
	byID := h.export(`{"log_stream_id":"` + ExampleLogStreamID + `","root_type":"trace"}`)
	if got := byID[tid]["input"]; got != "my card is [redacted]" {
		t.Errorf("redacted export input %v", got)
	}
	resp := h.call("POST", projectPath+"/export_records", `{"log_stream_id":"`+ExampleLogStreamID+`","root_type":"trace","export_format":"csv",
		"column_ids":["id","name","input"],"redact":false,"filters":[{"type":"id","column_id":"id","value":"`+tid+`"}]}`, 200, nil)
	rows, err := csv.NewReader(strings.NewReader(resp)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"id", "name", "input"}, {tid, "secret", "my card is 4111"}}; !reflect.DeepEqual(rows, want) {
		t.Errorf("csv export %q, want %q", rows, want)
	}

	capped := newHarnessOn(t, testenv.Embedded(t), Deps{ExportLimit: 100})
	code, body := capped.do(&capped.org.Admin, "POST", projectPath+"/export_records", `{"log_stream_id":"`+ExampleLogStreamID+`","root_type":"trace"}`)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "created_at") {
		t.Errorf("capped export: %d %s", code, body)
	}
}

// TestRecordColumns: spans and sessions list only the columns that apply to them.
func TestRecordColumns(t *testing.T) {
	h := newHarness(t, 0)
	for _, c := range []struct {
		kind       string
		has, lacks []string
	}{
		{"spans", []string{"model", "trace_id", "parent_id", "input"}, []string{"dataset_generated_output"}},
		{"sessions", []string{"name", "created_at", "external_id"}, []string{"tags", "trace_id", "model"}},
	} {
		var got struct {
			Columns []struct{ ID string } `json:"columns"`
		}
		h.call("POST", projectPath+"/"+c.kind+"/available_columns", `{"log_stream_id":"`+ExampleLogStreamID+`"}`, 200, &got)
		ids := map[string]bool{}
		for _, col := range got.Columns {
			ids[col.ID] = true
		}
		for _, id := range c.has {
			if !ids[id] {
				t.Errorf("%s columns lack %s", c.kind, id)
			}
		}
		for _, id := range c.lacks {
			if ids[id] {
				t.Errorf("%s columns hold %s", c.kind, id)
			}
		}
	}
}
