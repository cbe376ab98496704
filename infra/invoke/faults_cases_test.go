package main

import (
	"encoding/json"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evalobs/evalapi/shared/datasets"
	"github.com/evalobs/evalapi/shared/experiments"
)

// faultCase is one writing request of the fault matrix: an event under events/ (every
// POST, PUT, PATCH and DELETE there, so new samples are covered as they are added), or one
// of extraFaultCases for writes that have no successful sample yet.
type faultCase struct {
	name  string
	group string
	event []byte
	// setup, when set, runs first on a healthy store; the string field capture of its
	// answer replaces "{captured}" in the event (the id of a scorer to version, ...).
	setup      []byte
	setupGroup string
	capture    string
}

// writingMethod reports whether an event of this method may change data.
func writingMethod(m string) bool {
	switch m {
	case "POST", "PUT", "PATCH", "DELETE":
		return true
	}
	return false
}

// fixtureEvent is an API Gateway v2 event acting as the fixture's admin.
func fixtureEvent(method, path, body string) []byte {
	raw, query, _ := strings.Cut(path, "?")
	e := events.APIGatewayV2HTTPRequest{
		Version:        "2.0",
		RouteKey:       method + " " + raw,
		RawPath:        raw,
		RawQueryString: query,
		Headers: map[string]string{
			"content-type":  "application/json",
			"authorization": FixtureAuthorization,
			"host":          "abcdef1234.execute-api.us-east-1.amazonaws.com",
		},
		Body: body,
	}
	e.RequestContext.HTTP.Method = method
	e.RequestContext.HTTP.Path = raw
	e.RequestContext.DomainName = "abcdef1234.execute-api.us-east-1.amazonaws.com"
	e.RequestContext.RequestID = "fault-matrix"
	out, err := json.Marshal(e)
	if err != nil {
		panic(err) // a struct of strings always marshals
	}
	return out
}

// extraFaultCases are the writes without a successful sample under events/, against the
// fixture's example records.
func extraFaultCases(readEvent func(rel string) []byte) []faultCase {
	ds := "/v2/datasets/" + datasets.ExampleDatasetID
	proj := "/v2/projects/" + experiments.ExampleProjectID
	ls := experiments.ExampleLogStreamID
	return []faultCase{
		{name: "append rows", group: "datasets",
			event: fixtureEvent("POST", ds+"/content", `{"rows":[["4 + 4 =","8"]]}`)},
		{name: "update rows", group: "datasets",
			event: fixtureEvent("PATCH", ds+"/content", `{"edits":[{"row_id":"0b6f7c1e-2d3a-4b5c-8d9e-0f1a2b3c4d02","values":{"output":"four"}}]}`)},
		{name: "share dataset with groups", group: "datasets", setup: fixtureEvent("POST", "/v2/groups", `{"name":"fault-share"}`), setupGroup: "identity", capture: "id",
			event: fixtureEvent("POST", ds+"/groups", `[{"group_id":"{captured}","role":"editor"}]`)},
		{name: "share dataset with users", group: "datasets", setup: fixtureEvent("POST", "/v2/users", `{"email":"share@example.com","role":"user"}`), setupGroup: "identity", capture: "id",
			event: fixtureEvent("POST", ds+"/users", `[{"user_id":"{captured}","role":"editor"}]`)},
		{name: "decision version", group: "scorers", setup: readEvent("scorers/create_scorer.json"), setupGroup: "scorers", capture: "id",
			event: fixtureEvent("POST", "/v2/scorers/{captured}/version/decision", `{"question":"Is the answer polite?","answer_options":["yes","no"]}`)},
		{name: "create log stream", group: "projects",
			event: fixtureEvent("POST", proj+"/log_streams", `{"name":"fault-stream"}`)},
		{name: "patch metric settings", group: "projects",
			event: fixtureEvent("PATCH", proj+"/log_streams/"+ls+"/metric_settings", `{"segment_filters":[]}`)},
		{name: "ingest traces", group: "traces",
			event: fixtureEvent("POST", proj+"/traces", `{"log_stream_id":"`+ls+`","traces":[{"id":"1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d","input":"q","output":"a","spans":[{"type":"llm","name":"call","input":"q","output":"a"}]}]}`)},
		{name: "share integration", group: "integrations", setup: readEvent("integrations/put_model_vendor.json"), setupGroup: "integrations", capture: "id",
			event: fixtureEvent("POST", "/v2/integrations/{captured}/users", `[{"user_email":"invitee@example.com","role":"viewer"}]`)},
		{name: "create user", group: "identity",
			event: fixtureEvent("POST", "/v2/users", `{"email":"new-user@example.com","role":"user"}`)},
		{name: "create API key", group: "identity",
			event: fixtureEvent("POST", "/v2/api_keys", `{"description":"fault matrix"}`)},
		{name: "revoke API key", group: "identity", setup: fixtureEvent("POST", "/v2/api_keys", `{"description":"to revoke"}`), setupGroup: "identity", capture: "id",
			event: fixtureEvent("DELETE", "/v2/api_keys/{captured}", "")},
		{name: "create group", group: "identity",
			event: fixtureEvent("POST", "/v2/groups", `{"name":"fault-group"}`)},
		{name: "add group members", group: "identity", setup: fixtureEvent("POST", "/v2/users", `{"email":"member@example.com","role":"user"}`), setupGroup: "identity", capture: "id",
			event: fixtureEvent("POST", "/v2/groups/"+datasets.ExampleGroupID+"/members", `[{"user_id":"{captured}"}]`)},
		{name: "login with API key", group: "identity", setup: fixtureEvent("POST", "/v2/api_keys", `{"description":"to log in"}`), setupGroup: "identity", capture: "api_key",
			event: fixtureEvent("POST", "/login/api_key", `{"api_key":"{captured}"}`)},
	}
}
