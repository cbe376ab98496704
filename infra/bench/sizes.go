package main

import (
	"cmp"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
)

// hello is the yardstick bootstrap (infra/bench/hello).
const hello = "hello"

// benchSizes runs `make sizes`: every functions/* bootstrap and the hello-world one, built
// for each architecture with the Lambda flags (the Makefile passes its LAMBDA_FLAGS), their
// sizes against hello's and the cap, then the bytes each module and package adds on arm64.
func benchSizes(ctx context.Context, root string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench sizes", flag.ContinueOnError)
	flags := fs.String("flags", `-tags lambda.norpc -ldflags "-s -w" -trimpath`, "go build flags of the bootstraps (the Makefile's LAMBDA_FLAGS)")
	limit := fs.Int64("cap", 10_000_000, "bootstrap size cap in bytes")
	capArchs := fs.String("cap-archs", "arm64,amd64", "the architectures whose bootstraps -check holds to the cap (budgets: all)")
	archs := fs.String("archs", "arm64,amd64", "GOARCH values to build")
	top := fs.Int("top", 12, "packages listed per group")
	check := fs.Bool("check", false, "exit 1 when a bootstrap of any architecture is over the cap or its budget")
	budgetFile := fs.String("budgets", filepath.Join(root, "infra", "bench", "size_budgets.json"), "every function's size budget per architecture")
	attrib := fs.Bool("attribution", true, "also rebuild with symbols and attribute the bytes to modules and packages")
	inits := fs.Int("init-runs", 5, "runs of each "+runtime.GOARCH+" bootstrap under GODEBUG=inittrace=1 (0: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	buildFlags, err := splitFlags(*flags)
	if err != nil {
		return err
	}
	fns, err := functionDirs(root)
	if err != nil {
		return err
	}
	budgets, err := readBudgets(*budgetFile)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "evalapi-sizes-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	names := append([]string{hello}, fns...)
	pkgOf := func(name string) string {
		if name == hello {
			return "./infra/bench/hello"
		}
		return "./functions/" + name
	}
	arches := strings.Split(*archs, ",")
	size := map[string]map[string]int64{} // arch → function → bytes
	for _, arch := range arches {
		size[arch] = map[string]int64{}
		env := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + arch}
		if err := buildAll(ctx, root, env, buildFlags, filepath.Join(tmp, arch), names, pkgOf); err != nil {
			return err
		}
		for _, n := range names {
			st, err := os.Stat(filepath.Join(tmp, arch, n))
			if err != nil {
				return err
			}
			size[arch][n] = st.Size()
		}
	}
	fmt.Fprintf(out, "go build %s, CGO_ENABLED=0 GOOS=linux; cap %d bytes\n\n", *flags, *limit)
	fmt.Fprint(out, "| function |")
	for _, a := range arches {
		fmt.Fprintf(out, " %s bytes | × hello | of cap | of budget |", a)
	}
	fmt.Fprintln(out)
	fmt.Fprint(out, "|---|"+strings.Repeat("---|---|---|---|", len(arches))+"\n")
	over := 0
	for _, n := range names {
		fmt.Fprintf(out, "| %s |", n)
		for _, a := range arches {
			s := size[a][n]
			mark := ""
			if s > *limit {
				mark = " **over**"
				if slices.Contains(strings.Split(*capArchs, ","), a) {
					over++
				}
			}
			of := "–"
			if b := budgets[n][a]; b > 0 {
				of = fmt.Sprintf("%.0f%%", 100*float64(s)/float64(b))
			}
			fmt.Fprintf(out, " %s | %.2f | %.0f%%%s | %s |", commas(s), float64(s)/float64(size[a][hello]), 100*float64(s)/float64(*limit), mark, of)
		}
		fmt.Fprintln(out)
	}

	overBudget := budgets.check(size)
	if !*attrib {
		return overCap(out, over, *limit, overBudget, *check)
	}
	// Attribution: the same builds with symbols (ldflags without -s -w), on the first arch.
	arch := arches[0]
	symFlags := unstripped(buildFlags)
	env := []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + arch}
	att := map[string]attribution{}
	if err := buildAll(ctx, root, env, symFlags, filepath.Join(tmp, arch+"-sym"), names, pkgOf); err != nil {
		return err
	}
	for _, n := range names {
		a, err := attribute(filepath.Join(tmp, arch+"-sym", n))
		if err != nil {
			return err
		}
		att[n] = a
	}
	fmt.Fprintf(out, "\nWhat each module adds on %s: KB of code and data symbols (exact: .text, .data, .noptrdata by symbol, like\n"+
		"`go tool nm -size`); the file is ~%.1f× that (pclntab, type descriptors and strings are not per symbol and grow\n"+
		"roughly with the code). Modules from the build info (`go version -m`); + is over hello.\n\n", arch, fileRatio(att, size[arch]))
	printGroups(out, names, att, func(a attribution) map[string]int64 { return a.byModule }, 0, 5_000)
	fmt.Fprintf(out, "\nLargest standard-library packages (KB):\n\n")
	printGroups(out, names, att, func(a attribution) map[string]int64 { return a.stdPkgs }, *top, 0)
	fmt.Fprintf(out, "\nLargest packages of dependencies and of this module (KB):\n\n")
	printGroups(out, names, att, func(a attribution) map[string]int64 { return a.depPkgs }, 2**top, 0)
	if *inits > 0 && slices.Contains(arches, runtime.GOARCH) {
		if err := printInitTimes(ctx, out, tmp, names, *inits); err != nil {
			return err
		}
	}
	return overCap(out, over, *limit, overBudget, *check)
}

// overCap reports the bootstraps over the cap and over their budgets: an error under
// -check, else a warning.
func overCap(out io.Writer, over int, limit int64, overBudget []string, check bool) error {
	if over == 0 && len(overBudget) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%d bootstrap(s) over the cap of %d bytes", over, limit)
	if len(overBudget) > 0 {
		msg += "; " + strings.Join(overBudget, "; ")
	}
	if check {
		return errors.New(msg)
	}
	fmt.Fprintln(out, "\nwarning:", msg)
	return nil
}

// attribution is one binary's symbol bytes grouped three ways.
type attribution struct {
	total    int64            // all symbol bytes counted
	byModule map[string]int64 // module path, "std", or "runtime-generated"
	stdPkgs  map[string]int64 // standard-library package
	depPkgs  map[string]int64 // package of a module (this one included)
}

// attribute sums the sizes of the symbols that occupy file bytes in .text, .data and
// .noptrdata (not .bss and .noptrbss, which take memory but no file bytes), by package.
func attribute(exe string) (attribution, error) {
	a := attribution{byModule: map[string]int64{}, stdPkgs: map[string]int64{}, depPkgs: map[string]int64{}}
	bi, err := buildinfo.ReadFile(exe)
	if err != nil {
		return a, err
	}
	mods := []string{bi.Main.Path}
	for _, d := range bi.Deps {
		mods = append(mods, d.Path)
	}
	f, err := elf.Open(exe)
	if err != nil {
		return a, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return a, err
	}
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF || int(s.Section) >= len(f.Sections) {
			continue
		}
		switch f.Sections[s.Section].Name {
		case ".text", ".data", ".noptrdata":
		default:
			continue
		}
		size := int64(s.Size)
		a.total += size
		pkg := symbolPackage(s.Name)
		mod := moduleOf(pkg, mods)
		a.byModule[mod] += size
		if mod == "std" {
			a.stdPkgs[pkg] += size
		} else if mod != generated {
			a.depPkgs[pkg] += size
		}
	}
	return a, nil
}

// generated groups the symbols the compiler makes for no one package (wrappers of anonymous
// structs, type equality of composite types).
const generated = "compiler-generated"

// symbolPackage is the import path of the package that defines symbol name:
// "github.com/a/b.(*T).M" → "github.com/a/b"; "type:.eq.net/http.Request" → "net/http".
func symbolPackage(name string) string {
	s := strings.TrimPrefix(name, "type:.eq.")
	s = strings.TrimPrefix(s, "go:itab.")
	s = strings.TrimLeft(s, "*[]0123456789")
	for _, p := range []string{"go:", "struct {", "interface {", "map[", "func(", "chan ", "("} {
		if strings.HasPrefix(s, p) {
			return generated
		}
	}
	if i := strings.IndexAny(s, "[,"); i >= 0 { // type arguments, an itab's interface
		s = s[:i]
	}
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot < 0 {
		return generated // no package qualifier: a builtin type's
	}
	// The linker writes a dot of the path's last element as %2e (gopkg.in/yaml%2ev3.F).
	return strings.ReplaceAll(s[:slash+1+dot], "%2e", ".")
}

// moduleOf is the longest module path of mods that holds pkg, or "std".
func moduleOf(pkg string, mods []string) string {
	if pkg == generated {
		return generated
	}
	best := ""
	for _, m := range mods {
		if (pkg == m || strings.HasPrefix(pkg, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	if best == "" {
		return "std"
	}
	return best
}

// printGroups prints one row per key of group (those over minBytes in some binary, at most
// limit rows when limit > 0, largest first): KB in hello, then in each function with the
// difference from hello.
func printGroups(out io.Writer, names []string, att map[string]attribution, group func(attribution) map[string]int64, limit int, minBytes int64) {
	peak := map[string]int64{}
	for _, n := range names {
		for k, v := range group(att[n]) {
			peak[k] = max(peak[k], v)
		}
	}
	keys := make([]string, 0, len(peak))
	for k, v := range peak {
		if v >= minBytes {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y string) int { return cmp.Or(cmp.Compare(peak[y], peak[x]), strings.Compare(x, y)) })
	if limit > 0 && len(keys) > limit {
		keys = keys[:limit]
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t"+strings.Join(names, "\t")+"\t\n")
	for _, k := range keys {
		base := group(att[hello])[k]
		fmt.Fprintf(tw, "%s\t%.0f", k, float64(base)/1000)
		for _, n := range names[1:] {
			v := group(att[n])[k]
			fmt.Fprintf(tw, "\t%.0f (%+.0f)", float64(v)/1000, float64(v-base)/1000)
		}
		fmt.Fprint(tw, "\t\n")
	}
	tw.Flush()
}

// fileRatio is the stripped file size over the attributed symbol bytes, across the binaries.
func fileRatio(att map[string]attribution, size map[string]int64) float64 {
	var files, syms int64
	for n, a := range att {
		files += size[n]
		syms += a.total
	}
	return float64(files) / float64(max(syms, 1))
}

// functionDirs lists functions/* (each a Lambda's main package).
func functionDirs(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, "functions"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// splitFlags splits a flags string as the shell would for the Makefile's LAMBDA_FLAGS:
// on blanks, with double or single quotes grouping.
func splitFlags(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out, inWord = append(out, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unbalanced quote in %q", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// unstripped is flags with -s and -w taken out of -ldflags, so the binary keeps its symbols.
func unstripped(flags []string) []string {
	out := slices.Clone(flags)
	for i, f := range out {
		v, isEq := strings.CutPrefix(f, "-ldflags=")
		if !isEq && (f != "-ldflags" || i+1 >= len(out)) {
			continue
		}
		j := i
		if !isEq {
			j, v = i+1, out[i+1]
		}
		kept := slices.DeleteFunc(strings.Fields(v), func(x string) bool { return x == "-s" || x == "-w" })
		if isEq {
			out[j] = "-ldflags=" + strings.Join(kept, " ")
		} else {
			out[j] = strings.Join(kept, " ")
		}
	}
	return out
}

// commas writes n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// buildAll builds every named bootstrap into dir (each binary named for its package's
// directory, which is its name) in one go build: the go command then compiles and links them
// in parallel, where one build per function links them one after the other.
func buildAll(ctx context.Context, root string, env, flags []string, dir string, names []string, pkgOf func(string) string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	args := append(slices.Clone(flags), "-o", dir+string(filepath.Separator))
	for _, n := range names {
		args = append(args, pkgOf(n))
	}
	return goBuild(ctx, root, env, args...)
}
