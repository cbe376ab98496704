package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// compareAggregates says where two aggregate_metrics objects differ (numbers beyond a
// relative 1e-6, as float sums in a different order may; category counts exactly), or "".
// Every metric of want must be in got with the same value.
func compareAggregates(want, got map[string]any) string {
	var diffs []string
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !sameValue(want[k], got[k]) {
			diffs = append(diffs, fmt.Sprintf("%s: ours %v, theirs %v", k, want[k], got[k]))
		}
	}
	return strings.Join(diffs, "; ")
}

func sameValue(a, b any) bool {
	switch a := a.(type) {
	case float64:
		b, ok := b.(float64)
		return ok && math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), math.Abs(b))
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if !sameValue(v, b[k]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	}
	return false
}
