package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// printInitTimes runs each bootstrap of this machine's architecture `runs` times under
// GODEBUG=inittrace=1 and prints the median of the package initialisers' clock time (the
// part of a cold start spent before main), and the slowest initialisers. Outside Lambda the
// bootstraps stop in main (no runtime API) once the initialisers have run; nothing is
// contacted before that.
func printInitTimes(ctx context.Context, out io.Writer, tmp string, names []string, runs int) error {
	fmt.Fprintf(out, "\nPackage initialisers at start (%s, GODEBUG=inittrace=1, median of %d runs):\n\n", runtime.GOARCH, runs)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "bootstrap\tinit ms\tinit KB allocated\tslowest initialisers (ms)\t\n")
	for _, n := range names {
		var totals, allocs []float64
		per := map[string][]float64{}
		for range runs {
			inits, err := initTrace(ctx, filepath.Join(tmp, runtime.GOARCH, n))
			if err != nil {
				return err
			}
			var t, b float64
			for _, in := range inits {
				t, b = t+in.ms, b+in.bytes
				per[in.pkg] = append(per[in.pkg], in.ms)
			}
			totals, allocs = append(totals, t), append(allocs, b)
		}
		pkgs := make([]string, 0, len(per))
		for p := range per {
			pkgs = append(pkgs, p)
		}
		slices.SortFunc(pkgs, func(x, y string) int { return -cmpFloat(median(per[x]), median(per[y])) })
		var slow []string
		for _, p := range pkgs[:min(3, len(pkgs))] {
			slow = append(slow, fmt.Sprintf("%s %.2f", strings.TrimPrefix(p, "github.com/aws/aws-sdk-go-v2/"), median(per[p])))
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.0f\t%s\t\n", n, median(totals), median(allocs)/1000, strings.Join(slow, ", "))
	}
	return tw.Flush()
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// initLine is one line of GODEBUG=inittrace=1.
type initLine struct {
	pkg       string
	ms, bytes float64
}

// initTrace runs exe with inittrace on and no Lambda environment, and parses its lines:
// "init <pkg> @0.93 ms, 0.40 ms clock, 586696 bytes, 3151 allocs".
func initTrace(ctx context.Context, exe string) ([]initLine, error) {
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = []string{"GODEBUG=inittrace=1", "PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // it exits 1 in main, without a Lambda runtime API to call
	lines := parseInitTrace(&stderr)
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s printed no init trace: %s", exe, stderr.String())
	}
	return lines, nil
}

func parseInitTrace(r io.Reader) []initLine {
	var out []initLine
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// init pkg @x ms, y ms clock, z bytes, n allocs
		if len(f) < 10 || f[0] != "init" || f[5] != "ms" || f[6] != "clock," {
			continue
		}
		ms, err1 := strconv.ParseFloat(f[4], 64)
		b, err2 := strconv.ParseFloat(f[7], 64)
		if err1 == nil && err2 == nil {
			out = append(out, initLine{pkg: f[1], ms: ms, bytes: b})
		}
	}
	return out
}
