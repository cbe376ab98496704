package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
)

// TestLoggerByName logs as the original service's logging client does, on the local host
// started as a process: unprefixed paths, the project and the log stream looked up by name
// and created when missing, a session, traces with nested spans flushed in batches (one
// retried), a span append, a PATCH that completes a trace, then searches and counts.
func TestLoggerByName(t *testing.T) {
	h := startHost(t, "DATA_DIR="+t.TempDir(), "ADMIN_EMAIL="+adminEmail, "ADMIN_PASSWORD="+adminPassword)
	c := client{base: h.URL, v: apitest.Validator(t)}
	m := apiKeyLine.FindStringSubmatch(h.stdout.String())
	if m == nil {
		t.Fatalf("the first start printed no API key:\n%s", h.stdout.String())
	}
	key := m[1]
	call := func(method, path, body string, want int, out any) {
		t.Helper()
		hd := http.Header{"Service-API-Key": {key}, "Content-Type": {"application/json"}}
		resp, got := c.do(t, method, path, hd, strings.NewReader(body))
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, got, want)
		}
		if out != nil {
			if err := json.Unmarshal([]byte(got), out); err != nil {
				t.Fatalf("%s %s: %v: %s", method, path, err, got)
			}
		}
	}
	type named struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}

	// The project, by name: missing, created, then found.
	var projects []named
	call("GET", "/projects?project_name=logger-e2e&type=gen_ai", "", 200, &projects)
	if len(projects) != 0 {
		t.Fatalf("a new host has project logger-e2e: %v", projects)
	}
	var project named
	call("POST", "/projects", `{"name":"logger-e2e","type":"gen_ai"}`, 200, &project)
	call("GET", "/projects?project_name=logger-e2e&type=gen_ai", "", 200, &projects)
	if len(projects) != 1 || projects[0].ID != project.ID {
		t.Fatalf("project logger-e2e by name: %v, want %s", projects, project.ID)
	}
	p := "/projects/" + project.ID

	// The log stream, by name: missing, created, then found.
	var streams struct {
		LogStreams []named `json:"log_streams"`
	}
	byName := `{"filters":[{"name":"name","operator":"eq","value":"prod"}]}`
	call("POST", p+"/log_streams/search", byName, 200, &streams)
	if len(streams.LogStreams) != 0 {
		t.Fatalf("a new project has log stream prod: %v", streams.LogStreams)
	}
	var stream named
	call("POST", p+"/log_streams", `{"name":"prod"}`, 200, &stream)
	call("POST", p+"/log_streams/search", byName, 200, &streams)
	if len(streams.LogStreams) != 1 || streams.LogStreams[0].ID != stream.ID {
		t.Fatalf("log stream prod by name: %v, want %s", streams.LogStreams, stream.ID)
	}
	ls := `"log_stream_id":"` + stream.ID + `"`

	var session named
	call("POST", p+"/sessions", `{`+ls+`,"name":"chat","external_id":"user-9"}`, 200, &session)
	t1, t2 := "00000001-0000-4000-8000-000000000001", "00000001-0000-4000-8000-000000000002"
	agent, llm, tool, appended := "00000002-0000-4000-8000-000000000001", "00000002-0000-4000-8000-000000000002",
		"00000002-0000-4000-8000-000000000003", "00000002-0000-4000-8000-000000000004"
	first := `{` + ls + `,"session_id":"` + session.ID + `","is_complete":false,"traces":[
		{"id":"` + t1 + `","name":"turn 1","input":[{"role":"user","content":"weather?"}],
		 "metrics":{"duration_ns":2000000000,"num_input_tokens":10,"num_output_tokens":5,"num_total_tokens":15},
		 "spans":[{"id":"` + agent + `","type":"agent","name":"planner","spans":[
			{"id":"` + llm + `","type":"llm","name":"call","input":[{"role":"user","content":"weather?"}],"output":{"role":"assistant","content":"use tool"}},
			{"id":"` + tool + `","type":"tool","name":"weather","input":"paris","output":"sunny"}]}]}]}`
	second := `{` + ls + `,"session_id":"` + session.ID + `","traces":[{"id":"` + t2 + `","name":"turn 2","input":"thanks","output":"welcome"}]}`
	call("POST", p+"/traces", first, 200, nil)
	for range 2 { // a retried flush stores nothing twice
		call("POST", p+"/traces", second, 200, nil)
	}
	call("POST", p+"/spans", `{`+ls+`,"trace_id":"`+t1+`","parent_id":"`+agent+`","spans":[{"id":"`+appended+`","type":"tool","name":"summary","input":"sum","output":"done"}]}`, 200, nil)
	call("PATCH", p+"/traces/"+t1, `{`+ls+`,"trace_id":"`+t1+`","output":"final","is_complete":true}`, 200, nil)

	var tr struct {
		Output     any  `json:"output"`
		IsComplete bool `json:"is_complete"`
		Spans      []struct {
			ID    string `json:"id"`
			Spans []struct {
				ID string `json:"id"`
			} `json:"spans"`
		} `json:"spans"`
	}
	call("GET", p+"/traces/"+t1, "", 200, &tr)
	if tr.Output != "final" || !tr.IsComplete || len(tr.Spans) != 1 || len(tr.Spans[0].Spans) != 3 {
		t.Errorf("trace %s read back: %+v", t1, tr)
	}
	var page struct {
		Records []named `json:"records"`
	}
	call("POST", p+"/traces/search", `{`+ls+`,"filters":[{"type":"id","column_id":"session_id","value":"`+session.ID+`"}],"sort":{"column_id":"created_at","ascending":true}}`, 200, &page)
	if len(page.Records) != 2 {
		t.Errorf("traces of the session: %v, want 2", page.Records)
	}
	call("POST", p+"/sessions/search", `{`+ls+`,"filters":[{"type":"text","column_id":"external_id","operator":"eq","value":"user-9"}]}`, 200, &page)
	if len(page.Records) != 1 || page.Records[0].ID != session.ID {
		t.Errorf("sessions with external id user-9: %v, want %s", page.Records, session.ID)
	}
	for kind, want := range map[string]int64{"traces": 2, "spans": 4, "sessions": 1} {
		var n struct {
			TotalCount int64 `json:"total_count"`
		}
		call("POST", p+"/"+kind+"/count", `{`+ls+`}`, 200, &n)
		if n.TotalCount != want {
			t.Errorf("%s counted %d, want %d", kind, n.TotalCount, want)
		}
	}
}
