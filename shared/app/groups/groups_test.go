package groups

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestFunctionsMatchGroups holds functions/ and the table to each other: every group has a
// function whose main starts that group's Register, and every HTTP function (a main calling
// app.Handler) is a group. Other functions (stream workers) are not groups.
func TestFunctionsMatchGroups(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "functions")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var httpFns []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, e.Name(), "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "app.Handler(") {
			continue
		}
		httpFns = append(httpFns, e.Name())
		call := "lambda.Start(app.Handler(groups." + exported(e.Name()) + "))"
		if !strings.Contains(string(src), call) {
			t.Errorf("functions/%s/main.go does not call %s", e.Name(), call)
		}
	}
	if names := slices.Sorted(slices.Values(Names())); !slices.Equal(httpFns, names) {
		t.Errorf("HTTP functions under functions/: %v; groups.All: %v", httpFns, names)
	}
}

func TestFind(t *testing.T) {
	for _, name := range Names() {
		if g, ok := Find(name); !ok || g.Name != name || g.Register == nil {
			t.Errorf("Find(%q) = %+v, %v", name, g, ok)
		}
	}
	if _, ok := Find("nope"); ok {
		t.Error(`Find("nope") found a group`)
	}
}

func exported(name string) string {
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
