package infra_test

// Dependencies point one way: functions → groups → shared layers → store. infra/ is the top
// floor (hosts, tools, tests): nothing under shared/ imports it outside tests, and no Lambda
// binary links what only the local hosts and tests need.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// lambdaForbidden are packages no Lambda binary may link, with the reason.
var lambdaForbidden = map[string]string{
	"go.etcd.io/bbolt":                          "the embedded store is for the local hosts; Lambdas use DynamoDB only",
	modulePath + "shared/store/embedded":        "the embedded store is for the local hosts; Lambdas use DynamoDB only",
	modulePath + "shared/app/local":             "local-host glue (emulators, the embedded store's stream)",
	"google.golang.org/grpc":                    "gRPC is never served; its weight would be cold start for nothing",
	modulePath + "shared/provider/providertest": "the stub model provider is test code",
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %v: %v\n%s", args, err, ee.Stderr)
		}
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func TestSharedDoesNotImportInfra(t *testing.T) {
	// .Imports lists what the package's non-test files import.
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../shared/...") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, modulePath+"infra") || strings.HasPrefix(imp, modulePath+"functions") {
				t.Errorf("%s imports %s: shared/ is the runtime and must not depend on infra/ or functions/", pkg, imp)
			}
		}
	}
}

func TestLambdasLinkNoLocalOnlyCode(t *testing.T) {
	for _, fn := range goList(t, "../functions/...") {
		for _, dep := range goList(t, "-deps", fn) {
			for forbidden, why := range lambdaForbidden {
				if dep == forbidden || strings.HasPrefix(dep, forbidden+"/") {
					t.Errorf("%s links %s: %s", fn, dep, why)
				}
			}
		}
	}
}

// TestDocsOnlyInItsFunction: the API page and the OpenAPI document are carried by one
// function, functions/docs. Only the table of groups imports shared/docs (which only
// functions/docs registers: groups' TestFunctionsMatchGroups), and only shared/docs the
// package that embeds docs/openapi.yaml; shared/docs refers to its embedded data from its
// handlers alone, so the linker leaves it out of the other binaries, which infra/invoke's
// TestFunctionBinaries checks on the built files.
func TestDocsOnlyInItsFunction(t *testing.T) {
	allowed := map[string]string{
		modulePath + "shared/docs": modulePath + "shared/app/groups",
		modulePath + "docs":        modulePath + "shared/docs",
	}
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../...") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Fields(imports) {
			if want, ok := allowed[imp]; ok && pkg != want {
				t.Errorf("%s imports %s: only %s may (the API page and document stay in functions/docs)", pkg, imp, want)
			}
		}
	}
}

// tzdataFunctions are the functions that read IANA zones (the signals' schedules) and so
// embed time/tzdata in their main package (0.45 MB each on either architecture).
var tzdataFunctions = map[string]bool{modulePath + "functions/signals": true}

// TestTimeZoneDataOnlyWhereUsed: time/tzdata is imported by the main packages that need it,
// never by a shared package, since every function links the groups table and with it every
// group's package (issue 23: it had put three functions over the 10 MB cap on amd64).
func TestTimeZoneDataOnlyWhereUsed(t *testing.T) {
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../shared/...") {
		pkg, imports, _ := strings.Cut(line, " ")
		if strings.Contains(" "+imports+" ", " time/tzdata ") {
			t.Errorf("%s imports time/tzdata: import it in the main package of the functions that read zones", pkg)
		}
	}
	for _, fn := range goList(t, "../functions/...") {
		links := false
		for _, dep := range goList(t, "-deps", fn) {
			links = links || dep == "time/tzdata"
		}
		if links != tzdataFunctions[fn] {
			t.Errorf("%s links time/tzdata: %v, want %v (tzdataFunctions)", fn, links, tzdataFunctions[fn])
		}
	}
}

// mainImports are the packages a function's main.go may import: the Lambda runtime's start
// and shared/app's composition, so that every port is wired in shared/app, where the local
// host and the event runner build the same handlers (ARCHITECTURE.md §3: functions/* is one
// line through shared/app).
var mainImports = []string{"github.com/aws/aws-lambda-go/lambda", modulePath + "shared/app"}

// TestMainsAreOneLine: every functions/*/main.go imports only the Lambda runtime and
// shared/app's packages (and time/tzdata where tzdataFunctions says so), and its main is one
// statement, lambda.Start of what shared/app built. An init may add one cold-start step
// (functions/signals' ports), nothing else is declared.
func TestMainsAreOneLine(t *testing.T) {
	mains, err := filepath.Glob("../functions/*/main.go")
	if err != nil || len(mains) == 0 {
		t.Fatalf("no functions/*/main.go (%v)", err)
	}
	for _, path := range mains {
		fn := modulePath + "functions/" + filepath.Base(filepath.Dir(path))
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !mainMayImport(fn, p) {
				t.Errorf("%s imports %s: a main imports the Lambda runtime and shared/app only; build the handler in shared/app", fn, p)
			}
		}
		hasMain := false
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				if d.Tok != token.IMPORT {
					t.Errorf("%s declares a %s in main.go: it belongs in shared/app", fn, d.Tok)
				}
			case *ast.FuncDecl:
				switch name := d.Name.Name; {
				case name == "main":
					hasMain = true
					if !isLambdaStart(d.Body) {
						t.Errorf("%s: main is not the one statement lambda.Start(...); move the wiring into shared/app", fn)
					}
				case name == "init" && d.Recv == nil:
					if len(d.Body.List) != 1 {
						t.Errorf("%s: init has %d statements, want one (a cold-start step of shared/app)", fn, len(d.Body.List))
					}
				default:
					t.Errorf("%s declares func %s in main.go: it belongs in shared/app", fn, name)
				}
			}
		}
		if !hasMain {
			t.Errorf("%s: main.go has no func main", fn)
		}
	}
}

func mainMayImport(fn, path string) bool {
	if path == "time/tzdata" {
		return tzdataFunctions[fn]
	}
	for _, p := range mainImports {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// isLambdaStart reports whether body is the one statement lambda.Start(...).
func isLambdaStart(body *ast.BlockStmt) bool {
	if len(body.List) != 1 {
		return false
	}
	es, ok := body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "lambda" && sel.Sel.Name == "Start"
}
