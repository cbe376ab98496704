package infra_test

// API Gateway's routes come from the one table of groups (shared/app/groups): each group's
// path roots, with and without /v2, each as the root itself and as everything under it
// ({proxy+}), any method, on the one HTTP API, to the group's function. Greedy routes per
// family keep the stack far below CloudFormation's 500 resources (SAM adds a Lambda
// permission per route) and HTTP API's 300 routes, however many operations a family gains;
// the function answers an unknown path or method itself, in FastAPI's shape.
//
// `go test ./infra -run TestTemplateRoutes -update` rewrites each function's routes between
// the "# routes:" markers of template.yaml; the same test fails when they are stale, when a
// served route (in either form) would reach another function through the gateway's
// most-specific match, and when the stack outgrows the limits.

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/httpapi"
)

// Limits of one stack and one HTTP API (AWS quotas: CloudFormation resources per stack;
// HTTP API routes per API, adjustable but 300 by default).
const (
	maxStackResources = 500
	maxHTTPAPIRoutes  = 300
)

const (
	routesBegin = "# routes: generated from shared/app/groups (go test ./infra -run TestTemplateRoutes -update)"
	routesEnd   = "# end of routes"
)

// gatewayRoute is one HttpApi event of a function.
type gatewayRoute struct{ name, method, path, fn string }

// wantGatewayRoutes derives the routes from the groups' roots.
func wantGatewayRoutes(t *testing.T) []gatewayRoute {
	t.Helper()
	fnOf := map[string]string{}
	for id, dir := range makefileFunctions(t) {
		fnOf[dir] = id
	}
	var out []gatewayRoute
	for _, g := range groups.All() {
		fn, ok := fnOf[g.Name]
		if !ok {
			t.Fatalf("group %s has no function in the Makefile's FUNCTIONS", g.Name)
		}
		if len(g.Roots) == 0 {
			t.Errorf("group %s has no path roots, so API Gateway routes nothing to %s", g.Name, fn)
		}
		for _, prefix := range []string{httpapi.VersionPrefix, ""} {
			for _, root := range g.Roots {
				name := routeName(prefix + root)
				out = append(out,
					gatewayRoute{name: name, method: "ANY", path: prefix + root, fn: fn},
					gatewayRoute{name: name + "Tree", method: "ANY", path: prefix + root + "/{proxy+}", fn: fn})
			}
		}
	}
	return out
}

// routeName is an event's logical id: the path's literal segments, capitalized.
func routeName(path string) string {
	var b strings.Builder
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || strings.HasPrefix(seg, "{") {
			continue
		}
		up := true
		for _, r := range seg {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				up = true
				continue
			}
			if up {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			up = false
		}
	}
	return b.String()
}

func TestTemplateRoutes(t *testing.T) {
	want := wantGatewayRoutes(t)
	if *update {
		writeTemplateRoutes(t, want)
	}
	tpl := loadTemplate(t)
	apis := tpl.ofType("AWS::Serverless::HttpApi")
	if len(apis) != 1 || len(tpl.ofType("AWS::Serverless::Api")) != 0 {
		t.Fatalf("want exactly one AWS::Serverless::HttpApi and no REST API, got %v", ids(apis))
	}
	apiID := apis[0].ID
	var got []gatewayRoute
	for _, fn := range tpl.functions() {
		events, _ := fn.Props["Events"].(map[string]any)
		for name, ev := range events {
			switch str(dig(ev, "Type")) {
			case "Api":
				t.Errorf("%s event %s: REST API event; routes belong on the HttpApi", fn.ID, name)
			case "HttpApi":
				if a := ref(dig(ev, "Properties", "ApiId")); a != apiID {
					t.Errorf("%s event %s: ApiId %v, want !Ref %s (else SAM makes an implicit second API)", fn.ID, name, dig(ev, "Properties", "ApiId"), apiID)
				}
				got = append(got, gatewayRoute{name: name, method: str(dig(ev, "Properties", "Method")),
					path: str(dig(ev, "Properties", "Path")), fn: fn.ID})
			}
		}
	}
	key := func(r gatewayRoute) string { return r.fn + " " + r.name + " " + r.method + " " + r.path }
	gotKeys, wantKeys := make([]string, len(got)), make([]string, len(want))
	for i, r := range got {
		gotKeys[i] = key(r)
	}
	for i, r := range want {
		wantKeys[i] = key(r)
	}
	slices.Sort(gotKeys)
	slices.Sort(wantKeys)
	if !slices.Equal(gotKeys, wantKeys) {
		t.Errorf("template.yaml's HttpApi routes differ from the groups' roots: run `go test ./infra -run TestTemplateRoutes -update`\n got:  %q\n want: %q", gotKeys, wantKeys)
	}

	// Every served route, in both forms, reaches its group's function.
	for route, fn := range handlerRoutes(t) {
		for _, form := range []string{route, httpapi.Twin(route)} {
			method, path, _ := strings.Cut(form, " ")
			if got := gatewayMatch(want, samplePath(path)).fn; got != fn {
				t.Errorf("%s %s: API Gateway would route it to %q, want %s", method, path, got, fn)
			}
		}
	}

	// The limits, with what SAM makes of each resource.
	resources, routes := stackSize(tpl)
	t.Logf("stack: about %d CloudFormation resources (limit %d), %d HTTP API routes (limit %d)", resources, maxStackResources, routes, maxHTTPAPIRoutes)
	if resources > maxStackResources*4/5 {
		t.Errorf("the stack would hold about %d resources, too close to CloudFormation's %d", resources, maxStackResources)
	}
	if routes > maxHTTPAPIRoutes*4/5 {
		t.Errorf("the HTTP API would hold %d routes, too close to its quota of %d", routes, maxHTTPAPIRoutes)
	}
}

// samplePath fills a route's parameters with a value.
func samplePath(path string) string {
	return regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(path, "00000000-0000-4000-8000-000000000001")
}

// gatewayMatch is the route API Gateway picks for path among routes (all ANY): a route
// without a greedy variable beats one with it; among those, more segments, then more
// literal segments, win.
func gatewayMatch(routes []gatewayRoute, path string) gatewayRoute {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best, bestRank := gatewayRoute{}, [3]int{-1, -1, -1}
	for _, r := range routes {
		rs := strings.Split(strings.Trim(r.path, "/"), "/")
		greedy := strings.HasSuffix(r.path, "{proxy+}")
		if greedy {
			rs = rs[:len(rs)-1]
			if len(segs) <= len(rs) {
				continue
			}
		} else if len(segs) != len(rs) {
			continue
		}
		lit, ok := 0, true
		for i, s := range rs {
			switch {
			case strings.HasPrefix(s, "{"):
			case s == segs[i]:
				lit++
			default:
				ok = false
			}
		}
		if !ok {
			continue
		}
		exact := 1
		if greedy {
			exact = 0
		}
		rank := [3]int{exact, len(rs), lit}
		if slices.Compare(rank[:], bestRank[:]) > 0 {
			best, bestRank = r, rank
		}
	}
	return best
}

// stackSize estimates the resources of the deployed stack (SAM turns a function into the
// function, its role, one permission per HttpApi event and one mapping per stream or queue
// event; an HttpApi into the API and its stage) and counts the HTTP API's routes.
func stackSize(tpl *cfnTemplate) (resources, routes int) {
	for _, r := range tpl.Resources {
		switch r.Type {
		case "AWS::Serverless::Function":
			resources += 2
			events, _ := r.Props["Events"].(map[string]any)
			for _, ev := range events {
				switch str(dig(ev, "Type")) {
				case "HttpApi":
					resources++
					routes++
				case "DynamoDB", "SQS", "Kinesis":
					resources++
				}
			}
		case "AWS::Serverless::HttpApi":
			resources += 2
		default:
			resources++
		}
	}
	return resources, routes
}

// writeTemplateRoutes rewrites the routes between the markers of each function's Events.
func writeTemplateRoutes(t *testing.T, routes []gatewayRoute) {
	t.Helper()
	b, err := os.ReadFile(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	byFn := map[string][]gatewayRoute{}
	for _, r := range routes {
		byFn[r.fn] = append(byFn[r.fn], r)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var out bytes.Buffer
	fn, skipping := "", false
	done := map[string]bool{}
	fnLine := regexp.MustCompile(`^  ([A-Za-z0-9]+):\s*$`)
	for _, line := range lines {
		if m := fnLine.FindStringSubmatch(line); m != nil {
			fn = m[1]
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == routesBegin:
			out.WriteString(line)
			indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
			for _, r := range byFn[fn] {
				path := r.path
				if strings.ContainsAny(path, "{}") {
					path = `"` + path + `"`
				}
				fmt.Fprintf(&out, "%s%s:\n%s  Type: HttpApi\n%s  Properties: { ApiId: !Ref HttpApi, Method: %s, Path: %s }\n",
					indent, r.name, indent, indent, r.method, path)
			}
			done[fn], skipping = true, true
			continue
		case trimmed == routesEnd:
			skipping = false
		case skipping:
			continue
		}
		out.WriteString(line)
	}
	for f := range byFn {
		if !done[f] {
			t.Errorf("template.yaml: %s has no %q ... %q markers under its Events to write its routes between", f, routesBegin, routesEnd)
		}
	}
	if err := os.WriteFile(templatePath, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
