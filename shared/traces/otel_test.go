package traces

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store/storecount"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden reads of the OTLP recordings")

const otlpData = "testdata/otlp"

// otlpPost sends an export to path with the run headers.
func (h *harness) otlpPost(who *authtest.User, path, contentType string, body []byte, headers map[string]string) (int, []byte, http.Header) {
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	if who != nil {
		req.Header = who.Header()
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.rt.ServeHTTP(rec, req)
	h.v.CheckRecorder(h.t, req, rec)
	return rec.Code, rec.Body.Bytes(), rec.Header()
}

var exampleRun = map[string]string{"project": ExampleProjectID, "logstream": ExampleLogStreamID}

// readTrace reads a trace through GET traces/{id}.
func (h *harness) readTrace(id string) map[string]any {
	h.t.Helper()
	code, body := h.do(&h.org.Admin, "GET", "/v2/projects/"+ExampleProjectID+"/traces/"+id, "")
	if code != http.StatusOK {
		h.t.Fatalf("read trace %s: %d %s", id, code, body)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// traceIDOf is the trace a recording's (first) OTel trace becomes in the example run.
func traceIDOf(t *testing.T, js []byte) string {
	t.Helper()
	e, err := otlp.DecodeJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	return otlp.TraceUUID(ExampleLogStreamID, e.Resources[0].Spans[0].TraceID)
}

// TestOTLPGolden: each recording, sent in protobuf and in OTLP/JSON (gzip too), reads back
// through the trace read as its golden answer, and sending it again changes nothing.
func TestOTLPGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(otlpData, "*.json"))
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		js, _ := os.ReadFile(f)
		pb, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".pb")
		if err != nil {
			t.Fatal(err)
		}
		var zipped bytes.Buffer
		zw := gzip.NewWriter(&zipped)
		zw.Write(pb)
		zw.Close()
		for _, enc := range []struct {
			name, ct, path string
			body           []byte
			gzip           bool
		}{
			{"protobuf", ctProtobuf, "/v1/traces", pb, false},
			{"json", ctJSON, "/otel/traces", js, false},
			{"protobuf-gzip", ctProtobuf, "/v2/otel/traces", zipped.Bytes(), true},
		} {
			t.Run(name+"/"+enc.name, func(t *testing.T) {
				h := newOTLPHarness(t)
				headers := map[string]string{"project": ExampleProjectID, "logstream": ExampleLogStreamID}
				if enc.gzip {
					headers["Content-Encoding"] = "gzip"
				}
				code, body, hdr := h.otlpPost(&h.org.Admin, enc.path, enc.ct, enc.body, headers)
				if code != http.StatusOK || hdr.Get("Content-Type") != enc.ct {
					t.Fatalf("export: %d %s %q", code, body, hdr.Get("Content-Type"))
				}
				if enc.ct == ctJSON && string(body) != "{}" || enc.ct == ctProtobuf && len(body) != 0 {
					t.Fatalf("export answer: %q", body)
				}
				id := traceIDOf(t, js)
				got := h.readTrace(id)
				golden := filepath.Join(otlpData, name+".golden.json")
				out, _ := json.MarshalIndent(got, "", " ")
				if *updateGolden && enc.name == "json" {
					os.WriteFile(golden, append(out, '\n'), 0o644)
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update)", err)
				}
				if strings.TrimSpace(string(want)) != strings.TrimSpace(string(out)) {
					t.Errorf("trace read differs from %s:\n%s", golden, out)
				}
				if n := h.writes(func() {
					if code, body, _ := h.otlpPost(&h.org.Admin, enc.path, enc.ct, enc.body, headers); code != http.StatusOK {
						t.Fatalf("re-export: %d %s", code, body)
					}
				}); n != 0 {
					t.Errorf("re-export wrote %d times", n)
				}
			})
		}
	}
}

// newOTLPHarness is the harness on a table that counts its calls.
func newOTLPHarness(t *testing.T) *harness {
	return newHarnessOn(t, storecount.New(testenv.Embedded(t)), Deps{})
}

// writes counts the writes fn makes (puts, deletes, updates, batches, transactions).
func (h *harness) writes(fn func()) int {
	c := h.tbl.(*storecount.Table)
	h.authWait()
	c.Reset()
	fn()
	h.authWait() // authentication's own writes are not the export's
	n := 0
	for _, m := range []string{"Put", "Delete", "Update", "BatchWrite", "Transact"} {
		n += c.Snapshot().Calls[m]
	}
	return n
}

// TestOTLPMapping checks the golden reads' meaning: types, tree, content, tokens, errors.
func TestOTLPMapping(t *testing.T) {
	h := newOTLPHarness(t)
	read := func(name string) map[string]any {
		js, _ := os.ReadFile(filepath.Join(otlpData, name+".json"))
		if code, body, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, js, exampleRun); code != http.StatusOK {
			t.Fatalf("%s: %d %s", name, code, body)
		}
		return h.readTrace(traceIDOf(t, js))
	}
	spans := func(rec map[string]any) []map[string]any {
		list, _ := rec["spans"].([]any)
		out := make([]map[string]any, len(list))
		for i, s := range list {
			out[i] = s.(map[string]any)
		}
		return out
	}
	eq := func(what string, got, want any) {
		t.Helper()
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s: got %s, want %s", what, g, w)
		}
	}

	chat := read("chat")
	eq("chat input", chat["input"], "What is the capital of France?")
	eq("chat output", chat["output"], "Paris.")
	llm := spans(chat)[0]
	eq("chat span type", llm["type"], "llm")
	eq("chat model", llm["model"], "gpt-4o-2024-08-06")
	eq("chat provider", llm["provider"], "openai")
	eq("chat temperature", llm["temperature"], 0.2)
	eq("chat finish", llm["finish_reason"], "stop")
	eq("chat input messages", llm["input"], []any{map[string]any{"role": "system", "content": "You are terse."},
		map[string]any{"role": "user", "content": "What is the capital of France?"}})
	eq("chat output message", llm["output"], map[string]any{"role": "assistant", "content": "Paris."})
	m := llm["metrics"].(map[string]any)
	eq("chat tokens", []any{m["num_input_tokens"], m["num_output_tokens"], m["num_total_tokens"], m["duration_ns"]},
		[]any{42, 9, 51, 1250000000})

	rag := read("rag")
	kids := spans(rag)
	eq("rag tree", []any{len(kids), kids[0]["type"], len(spans(kids[0]))}, []any{1, "workflow", 2})
	ret, gen := spans(kids[0])[0], spans(kids[0])[1]
	eq("rag retriever", ret["type"], "retriever")
	eq("rag documents", ret["output"], []any{
		map[string]any{"content": "Refunds within 30 days.", "metadata": map[string]any{"document_id": "doc-1", "score": 0.92, "source": "policy.md"}},
		map[string]any{"content": "Keep your receipt.", "metadata": map[string]any{"document_id": "doc-2", "score": 0.71}}})
	eq("rag llm", []any{gen["type"], gen["model"], gen["provider"], gen["temperature"]}, []any{"llm", "gpt-4o-mini", "openai", 0})
	eq("rag llm tokens", gen["metrics"].(map[string]any)["num_total_tokens"], 128)
	eq("rag output", rag["output"], "Yes, within 30 days.")
	if rag["session_id"] == nil {
		t.Error("rag: no session")
	}

	agent := read("agent")
	root := spans(agent)[0]
	eq("agent root", []any{root["type"], root["agent_name"]}, []any{"agent", "weather_agent"})
	steps := spans(root)
	eq("agent steps", []any{steps[0]["type"], steps[1]["type"], steps[2]["type"]}, []any{"llm", "tool", "llm"})
	eq("agent tool call", steps[0]["output"].(map[string]any)["tool_calls"], []any{map[string]any{"id": "call_1", "type": "function",
		"function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}})
	eq("agent finish (event)", steps[0]["finish_reason"], "tool_calls")
	eq("agent tools", steps[0]["tools"].([]any)[0].(map[string]any)["name"], "get_weather")
	eq("agent tool", []any{steps[1]["tool_call_id"], steps[1]["input"], steps[1]["output"]},
		[]any{"call_1", `{"city":"Paris"}`, `{"temp_c":18,"sky":"sunny"}`})
	http := spans(steps[1])[0]
	eq("agent http", []any{http["type"], http["depth"], http["status_code"]}, []any{"workflow", 3, 200})
	eq("agent tool result message", steps[2]["input"].([]any)[2], map[string]any{"role": "tool", "content": `{"sky":"sunny","temp_c":18}`, "tool_call_id": "call_1"})
	at := agent["metrics"].(map[string]any)
	eq("agent trace tokens", []any{at["num_input_tokens"], at["num_output_tokens"], at["num_total_tokens"]}, []any{200, 29, 229})

	failed := read("error")
	eq("error trace", []any{failed["status_code"], failed["error_message"]}, []any{429, "Rate limit reached for gpt-4o"})
	eq("error span", spans(failed)[0]["status_code"], 429)
}

// TestOTLPSplitExports: a trace's spans in three exports, children first, assemble into
// the trace the whole export makes, whatever the order; repeating any export changes
// nothing. On every backend: the placeholder's move is a delete and a put in one
// transaction.
func TestOTLPSplitExports(t *testing.T) {
	for _, b := range testenv.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			open := func() *harness { return newHarnessOn(t, storecount.New(b.Open(t)), Deps{}) }
			splitExports(t, open)
		})
	}
}

func splitExports(t *testing.T, open func() *harness) {
	js, _ := os.ReadFile(filepath.Join(otlpData, "agent.json"))
	whole, err := otlp.DecodeJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	h1 := open()
	pb, _ := os.ReadFile(filepath.Join(otlpData, "agent.pb"))
	h1.otlpPost(&h1.org.Admin, "/otel/traces", ctProtobuf, pb, exampleRun)
	id := otlp.TraceUUID(ExampleLogStreamID, whole.Resources[0].Spans[0].TraceID)
	read := func(h *harness) string {
		tr := h.readTrace(id)
		delete(tr, "updated_at") // a merge stamps it
		b, _ := json.Marshal(tr)
		return string(b)
	}
	want := read(h1)

	for _, order := range [][]int{{2, 1, 0}, {1, 0, 2}, {0, 2, 1}} {
		h := open()
		spans := whole.Resources[0].Spans // root first: parts 0 = root, 1 = chats, 2 = tool + http
		parts := [][]otlp.Span{{spans[0]}, {spans[1], spans[4]}, {spans[2], spans[3]}}
		for i, p := range order {
			body := jsonExport(t, whole.Resources[0].Attrs, parts[p])
			if code, resp, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, body, exampleRun); code != http.StatusOK {
				t.Fatalf("export %d: %d %s", i, code, resp)
			}
			if i == 0 && p != 0 {
				tr := h.readTrace(id)
				if tr["is_complete"] != false || tr["user_metadata"].(map[string]any)[otelPlaceholder] != "true" {
					t.Errorf("order %v: the first export without the root is not a placeholder: %v", order, tr)
				}
			}
		}
		if got := read(h); got != want {
			t.Errorf("order %v: the assembled trace differs from the whole export's:\n%s\n%s", order, got, want)
		}
		if n := h.writes(func() {
			for _, p := range order {
				h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, jsonExport(t, whole.Resources[0].Attrs, parts[p]), exampleRun)
			}
		}); n != 0 {
			t.Errorf("order %v: re-exports wrote %d times", order, n)
		}
	}
}

// jsonExport writes spans as an OTLP/JSON export.
func jsonExport(t *testing.T, res []otlp.KeyValue, spans []otlp.Span) []byte {
	t.Helper()
	return otlp.EncodeJSON(&otlp.Export{Resources: []otlp.ResourceSpans{{Attrs: res, Spans: spans}}})
}
