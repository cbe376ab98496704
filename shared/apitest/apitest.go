// Package apitest holds handler tests to the OpenAPI document: every response a test receives
// is validated against docs/openapi.yaml, so the document and the code cannot drift apart.
//
//	v := apitest.Validator(t)
//	rec := httptest.NewRecorder()
//	router.ServeHTTP(rec, req)
//	v.CheckRecorder(t, req, rec)
//
// A response to a route that the document does not have (an unknown path, a wrong method)
// must be the router's 404 or 405 in the shape of components/schemas/HTTPError.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/evalobs/evalapi/shared/httpapi"
)

// DocPath is the OpenAPI document's path relative to the module root.
const DocPath = "docs/openapi.yaml"

// V validates responses against the document. It is safe for concurrent use (parallel tests).
type V struct {
	doc    *openapi3.T
	router routers.Router
}

// loaded is the document parsed once per test binary: every handler test asks for it, and
// parsing and validating it each time would cost more than most of those tests.
var loaded = sync.OnceValues(func() (*V, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	return Load(filepath.Join(root, DocPath))
})

// Validator returns the validator of docs/openapi.yaml, failing t when the document does not
// load or is not a valid OpenAPI document.
func Validator(t testing.TB) *V {
	t.Helper()
	v, err := loaded()
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	return v
}

// Text bodies the document declares besides JSON: read as a string, like text/plain.
func init() {
	for _, ct := range []string{"text/html", "text/javascript", "text/csv", "application/jsonl"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
}

// Load reads and validates the OpenAPI document at path.
func Load(path string) (*V, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("%s is not a valid OpenAPI document: %w", path, err)
	}
	// Route on the path alone: tests call through httptest hosts and Lambda events carry
	// API Gateway's domain, neither of which is one of the document's servers.
	routed := *doc
	routed.Servers = nil
	router, err := gorillamux.NewRouter(&routed)
	if err != nil {
		return nil, fmt.Errorf("route %s: %w", path, err)
	}
	return &V{doc: doc, router: router}, nil
}

// Doc returns the loaded document (for tests that inspect it).
func (v *V) Doc() *openapi3.T { return v.doc }

// Check validates resp, the answer to req, against the operation the document has for req:
// the status must be one the operation declares, and the headers, content type and body
// must match it. It fails t on any mismatch. resp.Body stays readable afterwards.
func (v *V) Check(t testing.TB, req *http.Request, resp *http.Response) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("apitest: read response body: %v", err)
	}
	if err := v.Validate(req, resp.StatusCode, resp.Header, body); err != nil {
		t.Errorf("apitest: %s %s -> %d: %v\nbody: %s", req.Method, req.URL.Path, resp.StatusCode, err, clip(body))
	}
}

// CheckRecorder is Check for a response recorded by httptest.
func (v *V) CheckRecorder(t testing.TB, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	if err := v.Validate(req, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
		t.Errorf("apitest: %s %s -> %d: %v\nbody: %s", req.Method, req.URL.Path, rec.Code, err, clip(rec.Body.Bytes()))
	}
}

// Validate is the check behind Check, for callers that hold a response in another form (a
// Lambda proxy response). It returns nil when the response conforms.
func (v *V) Validate(req *http.Request, status int, header http.Header, body []byte) error {
	responses().record(req.Method, req.URL.Path, status, body)
	if !legacyIDs(req) {
		idRecords().record(req.Method, req.URL.Path, status, body)
	}
	route, params, err := v.router.FindRoute(req)
	if errors.Is(err, routers.ErrPathNotFound) {
		// Every operation also answers at its twin (with or without /v2), which the
		// document does not repeat: validate against the documented form.
		twin := req.Clone(req.Context())
		twin.URL.Path, twin.URL.RawPath = httpapi.Twin(req.URL.Path), ""
		if r2, p2, err2 := v.router.FindRoute(twin); !errors.Is(err2, routers.ErrPathNotFound) {
			req, route, params, err = twin, r2, p2, err2
		}
	}
	switch {
	case errors.Is(err, routers.ErrPathNotFound):
		return v.unrouted(http.StatusNotFound, status, header, body)
	case errors.Is(err, routers.ErrMethodNotAllowed):
		if header.Get("Allow") == "" {
			return errors.New("a 405 must carry an Allow header")
		}
		return v.unrouted(http.StatusMethodNotAllowed, status, header, body)
	case err != nil:
		return fmt.Errorf("find the operation: %w", err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      route,
		},
		Status:  status,
		Header:  header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	err = openapi3filter.ValidateResponse(context.Background(), in)
	return errors.Join(err, contractErr(route.Method+" "+route.Path, status, body))
}

// unrouted checks the router's answer to a request the document has no operation for.
func (v *V) unrouted(want, status int, header http.Header, body []byte) error {
	if status != want {
		return fmt.Errorf("the document has no operation for this request, so the answer must be %d, not %d", want, status)
	}
	return v.CheckSchema("HTTPError", header, body)
}

// CheckSchema validates a JSON response body against components/schemas/<name>, and its
// Content-Type against application/json.
func (v *V) CheckSchema(name string, header http.Header, body []byte) error {
	ref := v.doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("the document has no schema %q", name)
	}
	if mt, _, err := mime.ParseMediaType(header.Get("Content-Type")); err != nil || mt != "application/json" {
		return fmt.Errorf("Content-Type is %q, want application/json", header.Get("Content-Type"))
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	opts := []openapi3.SchemaValidationOption{openapi3.MultiErrors(), openapi3.VisitAsResponse()}
	if v.doc.IsOpenAPI31OrLater() {
		opts = append(opts, openapi3.EnableJSONSchema2020())
	}
	if err := v.doc.ValidateSchemaJSON(ref.Value, value, opts...); err != nil {
		return fmt.Errorf("body does not match schema %s: %w", name, err)
	}
	return nil
}

// ModuleRoot finds the directory of go.mod above the working directory (a test runs in
// its package's directory).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

func clip(b []byte) string {
	const max = 2000
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// SameJSON reports an error unless got and want hold the same JSON value (whatever their
// spacing and key order).
func SameJSON(t testing.TB, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
