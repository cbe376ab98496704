package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/httpapi"
)

// TestExtremeNumbers sends every number field of every write operation of docs/openapi.yaml
// the values the table cannot hold (1e200, -1e200, 1e-300), each in an otherwise valid
// request (the operation's 2xx sample under events/, that one field changed), through the
// real Lambda handler on a fresh fixture store: the answer is a 422, or a 2xx where a too
// small value is documented to be stored as 0 (a sampling rate), never a 500.
func TestExtremeNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a fixture store per case")
	}
	root, err := apitest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc := loadOpenAPI(t, filepath.Join(root, "docs", "openapi.yaml"))
	ops := doc.operations()
	samples := successSamples(t, filepath.Join(root, "events"), ops)
	// Each case gets a store of its own, copied from one seeding of the fixture: seeding
	// hashes the admin's password at the service's argon2id cost, which was two thirds of
	// this test's CPU when every case seeded.
	base := fixtureSnapshot(t)
	cases := 0
	for route, op := range ops {
		schema := op.jsonBody()
		if schema == nil {
			continue
		}
		var paths [][]string
		doc.numberPaths(schema, nil, map[string]bool{}, &paths)
		if len(paths) == 0 {
			continue
		}
		sample, ok := samples[route]
		if !ok {
			t.Errorf("%s has number fields but no 2xx sample event to vary", route)
			continue
		}
		for _, p := range paths {
			for _, v := range []json.Number{"1e200", "-1e200", "1e-300"} {
				cases++
				name := route + " " + strings.Join(p, ".") + "=" + string(v)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					body := withNumber(t, sample.body, p, v)
					status, resp := sendSample(t, base, sample, body)
					switch {
					case status == 422:
					case status >= 200 && status < 300 && v == "1e-300":
						// a value too small to store is stored as 0 (documented for rates)
					default:
						t.Errorf("%d %s", status, resp)
					}
				})
			}
		}
	}
	if cases == 0 {
		t.Fatal("no number field found in the document's request bodies")
	}
}

// sample is a 2xx event of one operation, with the function that serves it.
type sample struct {
	fn    string
	event map[string]any
	body  any
}

// successSamples maps "METHOD /route" of ops to a 2xx sample event with a JSON body: the
// route an event's method and path reach, by the router's own matching rules.
func successSamples(t *testing.T, dir string, ops map[string]operation) map[string]sample {
	// A sample may use either form of its operation's path (with or without /v2).
	mux := http.NewServeMux()
	canonical := map[string]string{}
	for route := range ops {
		for _, form := range []string{route, httpapi.Twin(route)} {
			mux.Handle(form, http.NotFoundHandler())
			canonical[form] = route
		}
	}
	out := map[string]sample{}
	_ = filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ExpectedSuffix) {
			return err
		}
		var want Expected
		if readJSON(strings.TrimSuffix(path, ".json")+ExpectedSuffix, &want) != nil || want.StatusCode < 200 || want.StatusCode >= 300 {
			return nil
		}
		var ev map[string]any
		if readJSON(path, &ev) != nil {
			return nil
		}
		raw, _ := ev["body"].(string)
		var body any
		if json.Unmarshal([]byte(raw), &body) != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		fn, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		method, _ := ev["requestContext"].(map[string]any)["http"].(map[string]any)["method"].(string)
		p, _ := ev["rawPath"].(string)
		_, route := mux.Handler(httptest.NewRequest(method, p, nil))
		route = canonical[route]
		if _, seen := out[route]; !seen && route != "" {
			out[route] = sample{fn: fn, event: ev, body: body}
		}
		return nil
	})
	return out
}

// withNumber returns a copy of body with the number v at path ("*" an item of a list, every
// item; "{}" a value of a map: an entry "x"), creating what is missing.
func withNumber(t *testing.T, body any, path []string, v json.Number) any {
	t.Helper()
	b, _ := json.Marshal(body)
	var out any
	_ = json.Unmarshal(b, &out)
	var set func(cur any, p []string) any
	set = func(cur any, p []string) any {
		if len(p) == 0 {
			return v
		}
		switch p[0] {
		case "*":
			list, _ := cur.([]any)
			if len(list) == 0 {
				list = []any{map[string]any{}}
			}
			for i := range list {
				list[i] = set(list[i], p[1:])
			}
			return list
		case "{}":
			m, _ := cur.(map[string]any)
			if m == nil {
				m = map[string]any{}
			}
			m["x"] = set(m["x"], p[1:])
			return m
		}
		m, _ := cur.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		m[p[0]] = set(m[p[0]], p[1:])
		return m
	}
	return set(out, path)
}

// sendSample runs the sample with body on a fresh copy of the fixture and returns the
// status and body.
func sendSample(t *testing.T, fixture *snapshot, s sample, body any) (int, string) {
	ev := map[string]any{}
	for k, v := range s.event {
		ev[k] = v
	}
	b, _ := json.Marshal(body)
	ev["body"] = string(b)
	raw, _ := json.Marshal(ev)
	g, ok := groups.Find(s.fn)
	if !ok {
		t.Fatalf("no group %s", s.fn)
	}
	resp, err := Invoke(t.Context(), newWorld(t, fixture, nil, nil).d, g, raw)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Body
}

// openAPI is the part of the document the test reads.
type openAPI struct {
	Paths      map[string]map[string]yaml.Node `yaml:"paths"`
	Components struct {
		Schemas map[string]map[string]any `yaml:"schemas"`
	} `yaml:"components"`
}

type operation struct {
	RequestBody struct {
		Content map[string]struct {
			Schema map[string]any `yaml:"schema"`
		} `yaml:"content"`
	} `yaml:"requestBody"`
}

func loadOpenAPI(t *testing.T, path string) openAPI {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPI
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// operations maps "METHOD /path" to the write operations (POST, PUT, PATCH, DELETE).
func (d openAPI) operations() map[string]operation {
	out := map[string]operation{}
	for path, item := range d.Paths {
		for method, node := range item {
			var op operation
			if slices.Contains([]string{"post", "put", "patch", "delete"}, method) && node.Decode(&op) == nil {
				out[strings.ToUpper(method)+" "+path] = op
			}
		}
	}
	return out
}

func (o operation) jsonBody() map[string]any {
	if c, ok := o.RequestBody.Content["application/json"]; ok {
		return c.Schema
	}
	return nil
}

// numberPaths collects the paths of the number and integer fields of schema.
func (d openAPI) numberPaths(schema map[string]any, prefix []string, seen map[string]bool, out *[][]string) {
	if len(prefix) > 8 {
		return
	}
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		if seen[name] {
			return
		}
		seen[name] = true
		defer delete(seen, name)
		d.numberPaths(d.Components.Schemas[name], prefix, seen, out)
		return
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if alts, ok := schema[k].([]any); ok {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok {
					d.numberPaths(m, prefix, seen, out)
				}
			}
		}
	}
	if isNumber(schema["type"]) {
		*out = append(*out, slices.Clone(prefix))
		return
	}
	if props, ok := schema["properties"].(map[string]any); ok {
		for name, p := range props {
			if m, ok := p.(map[string]any); ok {
				d.numberPaths(m, append(slices.Clone(prefix), name), seen, out)
			}
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		d.numberPaths(items, append(slices.Clone(prefix), "*"), seen, out)
	}
	if add, ok := schema["additionalProperties"].(map[string]any); ok {
		d.numberPaths(add, append(slices.Clone(prefix), "{}"), seen, out)
	}
}

func isNumber(t any) bool {
	switch x := t.(type) {
	case string:
		return x == "number" || x == "integer"
	case []any:
		for _, e := range x {
			if isNumber(e) {
				return true
			}
		}
	}
	return false
}
