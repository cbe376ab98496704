package infra_test

// Dependencies point one way: functions → groups → shared layers → store. infra/ is the top
// floor (hosts, tools, tests): nothing under shared/ imports it outside tests, and no Lambda
// binary links what only the local hosts and tests need.

import (
	"os/exec"
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
