package main

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// checkExtremes lists the roll-up items a request changed (from before to after) whose
// minima or maxima are not those of the traces after holds: a revision's extremes must be
// exact once the stream has run, whichever call a fault cut. It holds for the operations
// of retryCompletes too, whose half-writes are by whole traces.
func checkExtremes(before, after *snapshot) []string {
	byRun := map[string][]store.Trace{}
	for _, it := range after.items {
		if it[store.AttrEntity] != store.EntityTrace {
			continue
		}
		var tr store.Trace
		if err := store.DecodeTrace(it, &tr); err != nil {
			return []string{fmt.Sprintf("trace %v: %v", it.Key(), err)}
		}
		byRun[tr.RunID] = append(byRun[tr.RunID], tr)
	}
	want := map[store.Key]store.Rollup{}
	for runID, traces := range byRun {
		for _, r := range records.Rollups(traces) {
			k := store.RollupKey(runID, r.Level, r.Group, r.Minute, r.Value)
			want[k] = r
		}
	}
	var problems []string
	for _, k := range slices.SortedFunc(maps.Keys(after.items), func(a, b store.Key) int { return strings.Compare(a.String(), b.String()) }) {
		it := after.items[k]
		if it[store.AttrEntity] != store.EntityRollup || len(changedAttrs(before.items[k], it)) == 0 {
			continue
		}
		got, err := store.ParseRollup(it)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		w := want[k]
		names := map[string]bool{}
		for name := range got.Metrics {
			names[name] = true
		}
		for name := range w.Metrics {
			names[name] = true
		}
		for _, name := range slices.Sorted(maps.Keys(names)) {
			var gmin, gmax, wmin, wmax *fixed.Value
			if m := got.Metrics[name]; m != nil {
				gmin, gmax = m.Min, m.Max
			}
			if m := w.Metrics[name]; m != nil {
				wmin, wmax = m.Min, m.Max
			}
			if !sameValue(gmin, wmin) || !sameValue(gmax, wmax) {
				problems = append(problems, fmt.Sprintf("extremes of %s in %s: %s..%s, the traces give %s..%s",
					name, norm(k.String()), text(gmin), text(gmax), text(wmin), text(wmax)))
			}
		}
	}
	sort.Strings(problems)
	return problems
}

func sameValue(a, b *fixed.Value) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Cmp(*b) == 0
}

func text(v *fixed.Value) string {
	if v == nil {
		return "none"
	}
	return v.String()
}
