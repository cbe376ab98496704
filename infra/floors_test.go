package infra_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The floors of ARCHITECTURE.md §3: an HTTP group (a package under shared/ that mounts
// routes with a top-level Register function) is imported only by the composition floor
// (shared/app and below it). No worker, no write model, no lower floor and no other group
// imports a group: what two of them need moves down a floor (shared/records is the case in
// point: the trace write model the evaluator, the experiment runner and the groups share).

const compositionFloor = modulePath + "shared/app"

// groupPackages are the packages under shared/ whose non-test files declare a top-level
// func named Register or Register<Something>: the HTTP groups.
func groupPackages(t *testing.T) map[string]bool {
	t.Helper()
	groups := map[string]bool{}
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{.Dir}} {{join .GoFiles " "}}`, "../shared/...") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] == compositionFloor || strings.HasPrefix(f[0], compositionFloor+"/") {
			continue
		}
		for _, name := range f[2:] {
			file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(f[1], name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Register") {
					groups[f[0]] = true
				}
			}
		}
	}
	if len(groups) < 5 {
		t.Fatalf("found %d groups (%v): the Register convention changed; fix groupPackages", len(groups), groups)
	}
	return groups
}

// TestNoFloorImportsAGroup: only the composition floor imports a group.
func TestNoFloorImportsAGroup(t *testing.T) {
	groups := groupPackages(t)
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../shared/...") {
		pkg, imports, _ := strings.Cut(line, " ")
		if pkg == compositionFloor || strings.HasPrefix(pkg, compositionFloor+"/") {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if groups[imp] {
				t.Errorf("%s imports the HTTP group %s: no worker and no lower floor imports a group, and no group another; move what both need down a floor (shared/records holds the trace write model)", pkg, imp)
			}
		}
	}
}

// TestJudgedScoreReachesTheStoreThroughNoGroup: the walk from a judged score (the evaluator
// and the experiment runner) to the store links no HTTP group, transitively.
func TestJudgedScoreReachesTheStoreThroughNoGroup(t *testing.T) {
	groups := groupPackages(t)
	for _, worker := range []string{"../shared/evaluate", "../shared/exprun", "../shared/records"} {
		if _, err := os.Stat(worker); err != nil {
			t.Fatalf("%s: %v (renamed? update the list)", worker, err)
		}
		for _, dep := range goList(t, "-deps", worker) {
			if groups[dep] {
				t.Errorf("%s links the HTTP group %s", worker, dep)
			}
		}
	}
}
