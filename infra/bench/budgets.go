package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// Size budgets: each function's bootstrap has a stated size per architecture
// (size_budgets.json), which `make sizes-check` and template-check hold it to, besides the
// common cap. A budget is a ratchet: the size the function had when it was last set, with a
// few per cent of headroom, so that a change which grows a function says so by moving its
// budget, in review, with the figure in docs/PERFORMANCE.md.

// sizeBudgets is size_budgets.json: function → GOARCH → bytes.
type sizeBudgets map[string]map[string]int64

func readBudgets(path string) (sizeBudgets, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("size budgets: %w", err)
	}
	var sb sizeBudgets
	if err := json.Unmarshal(b, &sb); err != nil {
		return nil, fmt.Errorf("size budgets %s: %w", path, err)
	}
	return sb, nil
}

// check lists the functions of size (arch → function → bytes) over their budgets, and those
// without one: every function is budgeted.
func (sb sizeBudgets) check(size map[string]map[string]int64) []string {
	var bad []string
	for arch, fns := range size {
		for fn, n := range fns {
			if fn == hello {
				continue
			}
			limit, ok := sb[fn][arch]
			switch {
			case !ok:
				bad = append(bad, fmt.Sprintf("%s has no size budget on %s (infra/bench/size_budgets.json)", fn, arch))
			case n > limit:
				bad = append(bad, fmt.Sprintf("%s on %s is %s bytes, over its budget of %s", fn, arch, commas(n), commas(limit)))
			}
		}
	}
	slices.Sort(bad)
	return bad
}
