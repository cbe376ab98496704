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
// routes with a top-level Register function) is imported only by the composition packages
// that mount or wire it (groupImporters). No worker (the workers' composition,
// shared/app/workers, included), no write model, no lower floor and no other group imports
// a group: what two of them need moves down a floor (shared/records is the case in point:
// the trace write model the evaluator, the experiment runner and the groups share).

const compositionFloor = modulePath + "shared/app"

// groupImporters are the packages allowed to import a group, with why.
var groupImporters = map[string]string{
	modulePath + "shared/app/groups": "the table of groups: which routes each function mounts",
	// The signals group holds its scheduled runner (signals.Worker) beside its handlers:
	// its two composition packages wire it. Moving the runner down a floor, as the trace
	// write model moved to shared/records, would take these two entries away.
	modulePath + "shared/app/signalscloud":  "wires the signals group's runner in the cloud",
	modulePath + "shared/app/signalsworker": "wires the signals group's runner's model",
}

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

// TestNoFloorImportsAGroup: only groupImporters import a group.
func TestNoFloorImportsAGroup(t *testing.T) {
	groups := groupPackages(t)
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../shared/...") {
		pkg, imports, _ := strings.Cut(line, " ")
		if _, ok := groupImporters[pkg]; ok {
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
	for _, worker := range []string{"../shared/evaluate", "../shared/exprun", "../shared/records", "../shared/app/workers"} {
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
