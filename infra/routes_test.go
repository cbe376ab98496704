package infra_test

// The route map: docs/routes.md lists every route the service serves with the package,
// file and function of its handler and the Lambda function that serves it, generated from
// the registered routes. A newcomer goes from a URL to its code in one step and to its
// Lambda in one more. `go test ./infra -run TestRouteMap -update` writes the file; the same
// test fails when it is stale.

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/app/groups"
)

var update = flag.Bool("update", false, "rewrite docs/routes.md")

const routesPath = "../docs/routes.md"

const modulePath = "github.com/evalobs/evalapi/"

// routeRow is one line of the map.
type routeRow struct {
	method, path, pkg, file, fn, lambda string
}

func TestRouteMap(t *testing.T) {
	want := renderRoutes(t, routeRows(t))
	if *update {
		if err := os.WriteFile(routesPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(routesPath)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("docs/routes.md is stale: run `go test ./infra -run TestRouteMap -update` (read: %v)", err)
	}
}

// routeRows lists every served route with the handler function registered for it.
func routeRows(t *testing.T) []routeRow {
	t.Helper()
	fnOf := map[string]string{}
	for id, dir := range makefileFunctions(t) {
		fnOf[dir] = id
	}
	d := apptest.Deps(t)
	decls := map[string]map[string]string{} // package dir -> function name -> file
	var rows []routeRow
	for i, g := range groups.All() {
		rt := app.NewRouter(d, g.Register)
		for _, pattern := range rt.Routes() {
			if pattern == app.HealthcheckPattern && i > 0 {
				continue
			}
			h, ok := rt.Handler(pattern)
			if !ok {
				t.Fatalf("no handler recorded for %s", pattern)
			}
			pkg, fn := handlerName(h)
			if decls[pkg] == nil {
				decls[pkg] = funcFiles(t, pkg)
			}
			file, ok := decls[pkg][fn]
			if !ok {
				t.Fatalf("%s: handler %s.%s not found in %s", pattern, pkg, fn, pkg)
			}
			method, path, _ := strings.Cut(pattern, " ")
			rows = append(rows, routeRow{method: method, path: path, pkg: pkg, file: file, fn: fn, lambda: fnOf[g.Name]})
		}
	}
	slices.SortFunc(rows, func(a, b routeRow) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return strings.Compare(a.method, b.method)
	})
	return rows
}

// handlerName returns the package directory (relative to the module) and the function or
// method name of h: "shared/datasets", "content" for the method value h.content.
func handlerName(h any) (pkg, fn string) {
	name := runtime.FuncForPC(reflect.ValueOf(h).Pointer()).Name()
	name = strings.TrimSuffix(strings.TrimPrefix(name, modulePath), "-fm")
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	pkg, rest := name[:slash+1+dot], name[slash+1+dot+1:]
	if i := strings.LastIndex(rest, "."); i >= 0 { // (*handlers).content
		rest = rest[i+1:]
	}
	return pkg, rest
}

// funcFiles maps every function and method declared in the package's non-test files to the
// file that declares it.
func funcFiles(t *testing.T, pkg string) map[string]string {
	t.Helper()
	dir := filepath.Join("..", pkg)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				out[fd.Name.Name] = name
			}
		}
	}
	return out
}

func renderRoutes(t *testing.T, rows []routeRow) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`# Routes

Every route the service serves: the handler that answers it and the Lambda function that
serves it (template.yaml; ` + "`make invoke FN=<dir>`" + ` takes the function's folder under
functions/). Generated from the registered routes by ` + "`go test ./infra -run TestRouteMap -update`" + `;
the same test fails when this file is stale.

Functions are grouped by resource family: one HTTP function per first path segment after
the version prefix (for ` + "`/v2/projects/{project_id}/<family>/...`" + `, the family segment; a
project itself and its log streams are the projects family), and one function per
background worker (StreamFunction reads the table's stream).

Every route also answers without ` + "`/v2`" + ` (` + "`/projects`" + ` beside ` + "`/v2/projects`" + `; ` + "`/login`" + `
also as ` + "`/v2/login`" + `), by the same handler. API Gateway routes each function's path roots
(shared/app/groups), with and without ` + "`/v2`" + `, and everything under them to it; the most
specific root wins:

| Lambda | path roots |
|---|---|
`)
	fnOf := map[string]string{}
	for id, dir := range makefileFunctions(t) {
		fnOf[dir] = id
	}
	for _, g := range groups.All() {
		fmt.Fprintf(&b, "| %s | `%s` |\n", fnOf[g.Name], strings.Join(g.Roots, "`, `"))
	}
	b.WriteString(`
| method | path | handler | Lambda |
|---|---|---|---|
`)
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | `%s` | [%s](../%s/%s) `%s` | %s |\n", r.method, r.path, r.pkg+"/"+r.file, r.pkg, r.file, r.fn, r.lambda)
	}
	return b.Bytes()
}

// familyPackage names the package of a family whose handlers live in another group's
// package: OTLP ingestion writes the traces family's records with that package's
// machinery, and is a function of its own only so that neither binary passes the
// bootstrap size cap (docs/OTEL.md).
var familyPackage = map[string]string{"otel": "shared/traces"}

// TestRouteFamilies holds every route to the one table of groups: the most specific root
// above its path (app.OwnerOf over groups.All) is the group that serves it, from the
// package of that family (the healthcheck, answered by every function, belongs to
// shared/app), so API Gateway sends it to the function that has its handler.
func TestRouteFamilies(t *testing.T) {
	dirOf := makefileFunctions(t)
	for _, r := range routeRows(t) {
		fam := app.OwnerOf(groups.All(), r.path)
		if fam == "" {
			t.Errorf("%s %s lies under no group's root: add its root to shared/app/groups", r.method, r.path)
			continue
		}
		if r.pkg != "shared/"+fam && r.pkg != "shared/app" && r.pkg != familyPackage[fam] {
			t.Errorf("%s %s is served by %s, not by shared/%s (its family)", r.method, r.path, r.pkg, fam)
		}
		if dirOf[r.lambda] != fam {
			t.Errorf("%s %s is served by %s (functions/%s), but its root belongs to functions/%s", r.method, r.path, r.lambda, dirOf[r.lambda], fam)
		}
	}
}
