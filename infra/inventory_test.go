// The route inventory: the operations the handlers serve (every group of shared/app/groups
// mounted on a router), the HttpApi routes of template.yaml (TestTemplateRoutes) and the
// operations of docs/openapi.yaml are one set, and every operation has a sample event under
// events/ that expects a 2xx answer (run by infra/invoke's TestEvents). A route added in one
// place only fails here.
package infra_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"gopkg.in/yaml.v3"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/httpapi"
)

const (
	openapiPath = "../docs/openapi.yaml"
	eventsDir   = "../events"
)

// handlerRoutes mounts each group of shared/app/groups on its own router and returns every
// route ("METHOD /path") with the template function that serves it: the function whose
// functions/<dir> (Makefile FUNCTIONS) runs the group. The healthcheck, which every group
// answers, belongs to the first group's function (the one template.yaml routes it to).
func handlerRoutes(t *testing.T) map[string]string {
	t.Helper()
	fnOf := map[string]string{}
	for id, dir := range makefileFunctions(t) {
		fnOf[dir] = id
	}
	d := apptest.Deps(t)
	out := map[string]string{}
	for i, g := range groups.All() {
		fn, ok := fnOf[g.Name]
		if !ok {
			t.Fatalf("group %s has no function in the Makefile's FUNCTIONS (want <LogicalId>=%s)", g.Name, g.Name)
		}
		for _, route := range app.NewRouter(d, g.Register).Routes() {
			if route == app.HealthcheckPattern && i > 0 {
				continue
			}
			if other, dup := out[route]; dup {
				t.Errorf("route %s is served by two groups (%s and %s)", route, other, fn)
			}
			out[route] = fn
		}
	}
	if len(out) == 0 {
		t.Fatal("the groups serve no route")
	}
	return out
}

// openapiRoutes lists the operations of docs/openapi.yaml as "METHOD /path".
func openapiRoutes(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(openapiPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	var out []string
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				out = append(out, strings.ToUpper(method)+" "+path)
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestInventoryOpenAPIMatchesHandlers(t *testing.T) {
	served := handlerRoutes(t)
	documented := openapiRoutes(t)
	for _, route := range documented {
		if _, ok := served[route]; !ok {
			t.Errorf("docs/openapi.yaml documents %s, which no handler serves", route)
		}
	}
	for route := range served {
		if !slices.Contains(documented, route) {
			t.Errorf("the handlers serve %s, which docs/openapi.yaml does not document", route)
		}
	}
}

// awaitingSample lists the operations that have no 2xx sample under events/ yet (the
// inventory found them; see docs/RELIABILITY.md). It may only shrink: an entry whose sample
// has been written fails the test until it is removed, and no new operation can be added
// without a sample.
var awaitingSample = map[string]bool{
	"POST /login/api_key":    true,
	"POST /v2/refresh_token": true,
}

// sampleEvent is what the inventory reads of an event under events/.
type sampleEvent struct {
	RawPath        string `json:"rawPath"`
	RouteKey       string `json:"routeKey"`
	RequestContext struct {
		HTTP struct {
			Method string `json:"method"`
			Path   string `json:"path"`
		} `json:"http"`
	} `json:"requestContext"`
}

func TestInventoryEverySuccessHasASample(t *testing.T) {
	served := handlerRoutes(t)
	// A mux of the served patterns tells which operation an event's method and path reach,
	// by the same matching rules the router uses.
	// Both forms of a route count as the route.
	mux := http.NewServeMux()
	canonical := map[string]string{}
	for route := range served {
		for _, form := range []string{route, httpapi.Twin(route)} {
			mux.Handle(form, http.NotFoundHandler())
			canonical[form] = route
		}
	}
	gateway := wantGatewayRoutes(t)
	ok2xx := map[string][]string{}
	err := filepath.WalkDir(eventsDir, func(path string, e os.DirEntry, err error) error {
		if err == nil && e.IsDir() && e.Name() == "workers" {
			return filepath.SkipDir // stream and SQS events of the worker functions, no HTTP route
		}
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".expected.json") {
			return err
		}
		var ev sampleEvent
		var want struct {
			StatusCode int `json:"statusCode"`
		}
		if err := readJSONFile(path, &ev); err != nil {
			return err
		}
		if err := readJSONFile(strings.TrimSuffix(path, ".json")+".expected.json", &want); err != nil {
			return err // TestEvents reports a missing expectation; here it is a failure too
		}
		p := ev.RawPath
		if p == "" {
			p = ev.RequestContext.HTTP.Path
		}
		// The event is what API Gateway sends: the route key of the route that takes it.
		if gw := gatewayMatch(gateway, p); ev.RouteKey != gw.method+" "+gw.path {
			t.Errorf("%s: routeKey %q, but API Gateway would send it on %q", path, ev.RouteKey, gw.method+" "+gw.path)
		}
		req := httptest.NewRequest(ev.RequestContext.HTTP.Method, p, nil)
		_, pattern := mux.Handler(req)
		if pattern == "" {
			t.Errorf("%s: %s %s reaches no operation", path, ev.RequestContext.HTTP.Method, p)
			return nil
		}
		pattern = canonical[pattern]
		if want.StatusCode >= 200 && want.StatusCode < 300 {
			ok2xx[pattern] = append(ok2xx[pattern], filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for route := range served {
		switch {
		case len(ok2xx[route]) == 0 && !awaitingSample[route]:
			t.Errorf("%s has no sample under events/ whose expected status is 2xx", route)
		case len(ok2xx[route]) > 0 && awaitingSample[route]:
			t.Errorf("%s has a 2xx sample now (%s): remove it from awaitingSample", route, ok2xx[route][0])
		}
	}
	for route := range awaitingSample {
		if _, ok := served[route]; !ok {
			t.Errorf("awaitingSample lists %s, which no handler serves", route)
		}
	}
}

func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// TestInventoryTwinsAnswer: every documented operation answers at its /v2 path and at the
// unprefixed path the original's clients call, in every host: API Gateway routes both forms
// to the function that has the handler (its routes as template.yaml declares them, which
// TestTemplateRoutes holds to the groups' roots); the local host (every group on one
// router, as infra/local mounts them) and that function's Lambda handler (its group's
// router behind the API Gateway v2 adapter, as functions/<group> starts it) both route the
// form to the operation and answer it, unauthenticated, exactly as they answer the other
// form: the same status and body, and not the router's 404 or 405.
func TestInventoryTwinsAnswer(t *testing.T) {
	d := apptest.Deps(t)
	var all []app.Register
	for _, g := range groups.All() {
		all = append(all, g.Register)
	}
	local := app.NewRouter(d, all...)
	lambdas := map[string]*httpapi.Router{}
	for _, g := range groups.All() {
		lambdas[g.Name] = app.NewRouter(d, g.Register)
	}
	served := handlerRoutes(t)
	dirOf := makefileFunctions(t)
	gateway := wantGatewayRoutes(t)
	answers := 0
	for _, op := range openapiRoutes(t) {
		fn, ok := served[op]
		if !ok {
			continue // TestInventoryOpenAPIMatchesHandlers reports it
		}
		lambda := lambdas[dirOf[fn]]
		var first string
		for _, form := range []string{op, httpapi.Twin(op)} {
			method, path, _ := strings.Cut(form, " ")
			path = samplePath(path)
			gw := gatewayMatch(gateway, path)
			if gw.fn != fn {
				t.Errorf("API Gateway: %s %s goes to %q (route %s), want %s", method, path, gw.fn, gw.path, fn)
			}
			req := httptest.NewRequest(method, path, nil)
			if got := local.Match(req); got != form {
				t.Errorf("local host: %s reaches %q, want %s", form, got, form)
			}
			if got := lambda.Match(req); got != form {
				t.Errorf("%s: %s reaches %q, want %s", fn, form, got, form)
			}
			rec := httptest.NewRecorder()
			local.ServeHTTP(rec, req)
			resp, err := app.Proxy(lambda)(t.Context(), events.APIGatewayV2HTTPRequest{
				Version: "2.0", RouteKey: gw.method + " " + gw.path, RawPath: path,
				Headers: map[string]string{"host": "abcdef1234.execute-api.us-east-1.amazonaws.com"},
				RequestContext: events.APIGatewayV2HTTPRequestContext{
					RequestID: "inventory", Stage: "$default", RouteKey: gw.method + " " + gw.path,
					HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path, Protocol: "HTTP/1.1", SourceIP: "203.0.113.10"},
				},
			})
			if err != nil {
				t.Fatalf("%s: %s %s: %v", fn, method, path, err)
			}
			for host, got := range map[string]string{
				"local host": fmt.Sprintf("%d %s", rec.Code, rec.Body.Bytes()),
				fn:           fmt.Sprintf("%d %s", resp.StatusCode, resp.Body),
			} {
				answers++
				switch {
				case strings.HasPrefix(got, "404 ") || strings.HasPrefix(got, "405 "):
					t.Errorf("%s: %s %s answers %.120s", host, method, path, got)
				case first == "":
					first = got
					if testing.Verbose() {
						t.Logf("%s: %.80s", op, got)
					}
				case got != first:
					t.Errorf("%s: %s %s answers %.120s, but %s answers %.120s", host, method, path, got, op, first)
				}
			}
		}
	}
	if answers < 4*len(served) {
		t.Errorf("%d answers compared for %d operations", answers, len(served))
	}
}
