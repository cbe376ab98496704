package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/groups"
)

// ExpectedSuffix names the expectation beside an event: events/x/op.json is checked against
// events/x/op.expected.json.
const ExpectedSuffix = ".expected.json"

// Expected is what an event's response must be. Only statusCode is required.
//
//	{
//	  "statusCode": 404,
//	  "headers": {"Content-Type": "application/json"},  // each must be present with this value
//	  "body": {"detail": "Dataset not found"},          // the body, compared as JSON
//	  "body_subset": {"name": "x"},                     // objects: these keys with these values, recursively
//	  "body_contains": ["Dataset"],                     // substrings of the raw body
//	  "cookies": ["refresh_token=", "HttpOnly"]         // each a substring of some Set-Cookie
//	}
//
// Every response is also validated against docs/openapi.yaml.
type Expected struct {
	StatusCode   int               `json:"statusCode"`
	Headers      map[string]string `json:"headers"`
	Body         json.RawMessage   `json:"body"`
	BodySubset   json.RawMessage   `json:"body_subset"`
	BodyContains []string          `json:"body_contains"`
	Cookies      []string          `json:"cookies"`
}

// TestEvents runs every event under events/ through the real Lambda handler of its group, on a
// fresh temporary store seeded with the fixture, and checks the response against the event's
// expectation. events/<group>/... goes to that group's function; an event at the top of
// events/ (the healthcheck) goes to every function.
func TestEvents(t *testing.T) {
	root, err := apitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "events")
	files, problems, err := eventFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(files) == 0 {
		t.Fatal("no events under events/")
	}
	v := apitest.Validator(t)
	for _, rel := range files {
		targets := groups.Names()
		g, _, nested := strings.Cut(filepath.ToSlash(rel), "/")
		if g == "workers" {
			continue // TestWorkerEvents
		}
		if nested {
			if _, ok := groups.Find(g); !ok {
				t.Errorf("events/%s: %q is not an operation group (%s)", rel, g, strings.Join(groups.Names(), ", "))
				continue
			}
			targets = []string{g}
		}
		for _, fn := range targets {
			name := filepath.ToSlash(rel)
			if !nested {
				name += "@" + fn
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runEvent(t, v, fn, filepath.Join(dir, rel))
			})
		}
	}
}

// eventFiles lists the events under dir (paths relative to it), and the problems of the
// folder: an event without expectation, an expectation without event.
func eventFiles(dir string) (evs, problems []string, err error) {
	var exps []string
	err = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if strings.HasSuffix(rel, ExpectedSuffix) {
			exps = append(exps, strings.TrimSuffix(rel, ExpectedSuffix)+".json")
		} else {
			evs = append(evs, rel)
		}
		return err
	})
	for _, e := range evs {
		if !slices.Contains(exps, e) {
			problems = append(problems, fmt.Sprintf("events/%s has no expectation: add events/%s%s",
				e, strings.TrimSuffix(e, ".json"), ExpectedSuffix))
		}
	}
	for _, e := range exps {
		if !slices.Contains(evs, e) {
			problems = append(problems, fmt.Sprintf("events/%s%s expects a response to events/%s, which does not exist",
				strings.TrimSuffix(e, ".json"), ExpectedSuffix, e))
		}
	}
	return evs, problems, err
}

func runEvent(t *testing.T, v *apitest.V, fn, path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want Expected
	if err := readJSON(strings.TrimSuffix(path, ".json")+ExpectedSuffix, &want); err != nil {
		t.Fatal(err)
	}
	if want.StatusCode == 0 {
		t.Fatal("the expectation has no statusCode")
	}
	g, _ := groups.Find(fn)
	var logs bytes.Buffer
	d := fixtureDeps(t, app.JSONLogger(&logs, slog.LevelDebug))
	resp, err := Invoke(t.Context(), d, g, raw)
	if err != nil {
		t.Fatalf("invoke: %v\nlog:\n%s", err, logs.String())
	}
	for _, p := range compare(want, resp) {
		t.Error(p)
	}
	event, _ := DecodeEvent(raw)
	if err := v.Validate(requestOf(event), resp.StatusCode, headerOf(resp), []byte(resp.Body)); err != nil {
		t.Errorf("response does not match docs/openapi.yaml: %v", err)
	}
	if t.Failed() {
		t.Logf("response: %d %v %s\nlog:\n%s", resp.StatusCode, resp.Headers, resp.Body, logs.String())
	}
}

// compare lists how resp differs from want.
func compare(want Expected, resp events.APIGatewayV2HTTPResponse) []string {
	var problems []string
	if resp.StatusCode != want.StatusCode {
		problems = append(problems, fmt.Sprintf("statusCode = %d, want %d", resp.StatusCode, want.StatusCode))
	}
	h := headerOf(resp)
	for k, v := range want.Headers {
		if got := h.Get(k); got != v {
			problems = append(problems, fmt.Sprintf("header %s = %q, want %q", k, got, v))
		}
	}
	var body any
	bodyErr := json.Unmarshal([]byte(resp.Body), &body)
	for _, c := range []struct {
		name string
		raw  json.RawMessage
		ok   func(want any) bool
	}{
		{"body", want.Body, func(w any) bool { return reflect.DeepEqual(w, body) }},
		{"body_subset", want.BodySubset, func(w any) bool { return subset(w, body) }},
	} {
		if len(c.raw) == 0 {
			continue
		}
		var w any
		switch {
		case json.Unmarshal(c.raw, &w) != nil:
			problems = append(problems, c.name+" of the expectation is not JSON")
		case bodyErr != nil:
			problems = append(problems, fmt.Sprintf("body is not JSON (%v), want %s %s", bodyErr, c.name, c.raw))
		case !c.ok(w):
			problems = append(problems, fmt.Sprintf("body %s does not match %s %s", resp.Body, c.name, c.raw))
		}
	}
	for _, s := range want.BodyContains {
		if !strings.Contains(resp.Body, s) {
			problems = append(problems, fmt.Sprintf("body does not contain %q", s))
		}
	}
	for _, s := range want.Cookies {
		if !slices.ContainsFunc(resp.Cookies, func(c string) bool { return strings.Contains(c, s) }) {
			problems = append(problems, fmt.Sprintf("no cookie contains %q (cookies: %q)", s, resp.Cookies))
		}
	}
	return problems
}

// subset reports whether got holds want: objects by their keys in want (recursively), any
// other value by equality.
func subset(want, got any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		return reflect.DeepEqual(want, got)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, wv := range wm {
		gv, ok := gm[k]
		if !ok || !subset(wv, gv) {
			return false
		}
	}
	return true
}

// requestOf is the HTTP request an event stands for, for the OpenAPI check.
func requestOf(e events.APIGatewayV2HTTPRequest) *http.Request {
	path := e.RawPath
	if path == "" {
		path = e.RequestContext.HTTP.Path
	}
	if e.RawQueryString != "" {
		path += "?" + e.RawQueryString
	}
	r, _ := http.NewRequest(e.RequestContext.HTTP.Method, "https://"+e.RequestContext.DomainName+path, nil)
	for k, v := range e.Headers {
		r.Header.Set(k, v)
	}
	return r
}

func headerOf(resp events.APIGatewayV2HTTPResponse) http.Header {
	h := http.Header{}
	for k, v := range resp.Headers {
		h.Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	for _, c := range resp.Cookies { // API Gateway sends them as Set-Cookie headers
		h.Add("Set-Cookie", c)
	}
	return h
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // a misspelt key would silently check nothing
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
