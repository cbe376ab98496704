package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// TestEventFilesPairs checks that the runner refuses an event without expectation and an
// expectation without event, so that no event goes unchecked.
func TestEventFilesPairs(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.json", "a.expected.json", "g/b.json", "g/c.expected.json", "notes.txt"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	evs, problems, err := eventFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(evs, " ") != "a.json g/b.json" {
		t.Errorf("events = %v", evs)
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "g/b.json has no expectation") ||
		!strings.Contains(problems[1], "g/c.json, which does not exist") {
		t.Errorf("problems = %q", problems)
	}
}

func TestCompare(t *testing.T) {
	resp := events.APIGatewayV2HTTPResponse{
		StatusCode: 404,
		Headers:    map[string]string{"Content-Type": "application/json"},
		Body:       `{"detail":"Dataset not found","extra":{"a":1,"b":[1,2]}}`,
	}
	for _, tc := range []struct {
		expected string
		problems int
	}{
		{`{"statusCode":404}`, 0},
		{`{"statusCode":200}`, 1},
		{`{"statusCode":404,"headers":{"content-type":"application/json"}}`, 0},
		{`{"statusCode":404,"headers":{"Content-Type":"text/plain"}}`, 1},
		{`{"statusCode":404,"body":{"detail":"Dataset not found","extra":{"b":[1,2],"a":1}}}`, 0},
		{`{"statusCode":404,"body":{"detail":"Dataset not found"}}`, 1},
		{`{"statusCode":404,"body_subset":{"extra":{"a":1}}}`, 0},
		{`{"statusCode":404,"body_subset":{"extra":{"a":2}}}`, 1},
		{`{"statusCode":404,"body_subset":{"extra":{"b":[1]}}}`, 1},
		{`{"statusCode":404,"body_contains":["not found","Dataset"]}`, 0},
		{`{"statusCode":404,"body_contains":["Scorer"]}`, 1},
		{`{"statusCode":500,"body":{},"body_contains":["zzz"]}`, 3},
	} {
		var want Expected
		if err := json.Unmarshal([]byte(tc.expected), &want); err != nil {
			t.Fatal(err)
		}
		if got := compare(want, resp); len(got) != tc.problems {
			t.Errorf("compare(%s) = %q, want %d problem(s)", tc.expected, got, tc.problems)
		}
	}
}

func TestDecodeEventRefusesOtherPayloads(t *testing.T) {
	for _, raw := range []string{
		`{"httpMethod":"GET","path":"/v2/healthcheck"}`, // REST API (v1)
		`{"version":"2.0","rawPath":"/v2/healthcheck"}`, // no method
		`{"version":"2.0","requestContext":{"http":{"method":"GET"}}}`,
		`not json`,
	} {
		if _, err := DecodeEvent([]byte(raw)); err == nil {
			t.Errorf("DecodeEvent(%s) accepted it", raw)
		}
	}
}

func TestFixtureAuthorization(t *testing.T) {
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(FixtureEmail+":"+FixturePassword))
	if FixtureAuthorization != want {
		t.Errorf("FixtureAuthorization = %q, want %q", FixtureAuthorization, want)
	}
}
