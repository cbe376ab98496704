package store

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
)

// Roll-ups: per run, per group column, per minute (and per hour) and per group value, the
// trace count and the statistics of every metric, so that a metrics search without filters
// reads one item per minute or hour (and group value) instead of every trace.
//
//	record         PK                               SK                      notes
//	minute roll-up RUN#<run id>#ROLLUP#<group col>  <minute>#<group value>  group col "_all" (value "") holds the totals
//	hour roll-up   RUN#<run id>#ROLLUPH#<group col> <hour>#<group value>    the same, per hour (minute 00)
//
// Each group column has its own partition so that a query without group_by reads the totals
// alone. Attributes, all folded in with atomic ADDs except min and max:
//
//	n                     traces
//	mc#<metric>           numeric values observed
//	s0#, s1#, s2#<metric> their exact sum (shared/fixed: nine decimals) as three int64 limbs,
//	                      each folded in with an exact integer ADD (SumAttrs); a legacy
//	                      ms#<metric>, the sum in millionths, still reads
//	mn#<metric>, mx#<metric>  min and max as exact decimal text, kept by a conditional
//	                      compare-and-set (a legacy number still reads)
//	k#<metric>#<category> categorical values per category ("true"/"false" for booleans)
//	ec#<code>             scorer errors per code; ed#<code> the last error record of that code
//	rv                    revisions of a trace that moved a value out of or into the item
//	                      (RevisedRollupUpdate): the guard of a recompute of its extremes
//
// Metric names and categories are query-escaped in attribute names, so '#' cannot split them.

// RollupAll is the group column of the totals.
const RollupAll = "_all"

// EntityRollup names the roll-up records.
const EntityRollup = "rollup"

const minuteLayout = "2006-01-02T15:04Z"

// Roll-up levels: the length of the period one roll-up item covers.
type RollupLevel string

const (
	RollupMinute RollupLevel = ""  // one item per minute
	RollupHour   RollupLevel = "H" // one item per hour
)

// Period is how long one item of the level covers.
func (l RollupLevel) Period() time.Duration {
	if l == RollupHour {
		return time.Hour
	}
	return time.Minute
}

// RollupPartition is the partition of a run's roll-ups of one level by one group column.
func RollupPartition(runID string, level RollupLevel, groupCol string) string {
	return "RUN#" + runID + "#ROLLUP" + string(level) + "#" + groupCol
}

// RollupKey is the key of the roll-up of one period (its first minute) and group value.
func RollupKey(runID string, level RollupLevel, groupCol string, minute time.Time, value string) Key {
	return Key{PK: RollupPartition(runID, level, groupCol), SK: minute.UTC().Format(minuteLayout) + "#" + value}
}

// RollupMetric is the statistics of one metric in one roll-up.
type RollupMetric struct {
	N          int64       // numeric values
	Sum        fixed.Value // their exact sum
	Min, Max   *fixed.Value
	Categories map[string]int64
}

// Observe folds one numeric value into m.
func (m *RollupMetric) Observe(v fixed.Value) {
	m.N++
	m.Sum = m.Sum.MustAdd(v)
	if m.Min == nil || v.Cmp(*m.Min) < 0 {
		m.Min = &v
	}
	if m.Max == nil || v.Cmp(*m.Max) > 0 {
		m.Max = &v
	}
}

// sumAttrs are the attributes of the limbs of a metric's sum (shared/fixed.Value.Limbs).
func sumAttrs(metric string) [3]string {
	e := esc(metric)
	return [3]string{"s0#" + e, "s1#" + e, "s2#" + e}
}

// addSum adds the limbs of v to the ADDs of metric.
func addSum(add map[string]int64, metric string, v fixed.Value) {
	l := v.Limbs()
	for i, a := range sumAttrs(metric) {
		add[a] = l[i]
	}
}

// Rollup is the content of one roll-up item, or a delta to fold into one.
type Rollup struct {
	Level   RollupLevel
	Minute  time.Time // the first minute of the period
	Group   string    // group column, RollupAll for the totals
	Value   string
	Count   int64
	Metrics map[string]*RollupMetric
	Errors  map[int64]RollupError
}

// RollupError counts the scorer errors of one code.
type RollupError struct {
	Count int64
	Last  ScorerError
}

func esc(s string) string { return url.QueryEscape(s) }

// Metric returns the statistics of name, creating them.
func (r *Rollup) Metric(name string) *RollupMetric {
	if r.Metrics == nil {
		r.Metrics = map[string]*RollupMetric{}
	}
	m := r.Metrics[name]
	if m == nil {
		m = &RollupMetric{}
		r.Metrics[name] = m
	}
	return m
}

// Negated is what taking r's traces out of its item adds: every count and sum negated, no
// min or max (those cannot be subtracted: RecomputeExtremes).
func (r Rollup) Negated() Rollup {
	out := Rollup{Level: r.Level, Minute: r.Minute, Group: r.Group, Value: r.Value, Count: -r.Count}
	for name, m := range r.Metrics {
		n := out.Metric(name)
		n.N, n.Sum = -m.N, m.Sum.Neg()
		for c, k := range m.Categories {
			if n.Categories == nil {
				n.Categories = map[string]int64{}
			}
			n.Categories[c] = -k
		}
	}
	for code, e := range r.Errors {
		if out.Errors == nil {
			out.Errors = map[int64]RollupError{}
		}
		out.Errors[code] = RollupError{Count: -e.Count}
	}
	return out
}

// Plus folds o (a delta of the same item) into r; extremes are kept from either.
func (r *Rollup) Plus(o Rollup) {
	r.Count += o.Count
	for name, m := range o.Metrics {
		n := r.Metric(name)
		n.N += m.N
		n.Sum = n.Sum.MustAdd(m.Sum)
		if m.Min != nil && (n.Min == nil || m.Min.Cmp(*n.Min) < 0) {
			n.Min = m.Min
		}
		if m.Max != nil && (n.Max == nil || m.Max.Cmp(*n.Max) > 0) {
			n.Max = m.Max
		}
		for c, k := range m.Categories {
			if n.Categories == nil {
				n.Categories = map[string]int64{}
			}
			n.Categories[c] += k
		}
	}
	for code, e := range o.Errors {
		if r.Errors == nil {
			r.Errors = map[int64]RollupError{}
		}
		cur := r.Errors[code]
		cur.Count += e.Count
		if e.Count > 0 {
			cur.Last = e.Last
		}
		r.Errors[code] = cur
	}
}

// IsZero reports whether folding r in would change nothing but its extremes.
func (r Rollup) IsZero() bool {
	if r.Count != 0 {
		return false
	}
	for _, m := range r.Metrics {
		if m.N != 0 || !m.Sum.IsZero() || m.Min != nil {
			return false
		}
		for _, k := range m.Categories {
			if k != 0 {
				return false
			}
		}
	}
	for _, e := range r.Errors {
		if e.Count != 0 {
			return false
		}
	}
	return true
}

// RollupItem is the item of r for runID as a bulk writer puts it (tests, backfills).
func RollupItem(runID string, r Rollup) Item {
	k := RollupKey(runID, r.Level, r.Group, r.Minute, r.Value)
	it := Item{AttrPK: k.PK, AttrSK: k.SK}
	for name, v := range rollupStatic(r) {
		it[name] = v
	}
	for name, v := range rollupAdds(r) {
		it[name] = v
	}
	for name, m := range r.Metrics {
		if m.Min != nil {
			it["mn#"+esc(name)] = m.Min.String()
			it["mx#"+esc(name)] = m.Max.String()
		}
	}
	return it
}

func rollupStatic(r Rollup) map[string]any {
	set := map[string]any{AttrEntity: EntityRollup, "minute": r.Minute.UTC().Format(minuteLayout), "group": r.Group,
		"value": r.Value, "level": string(r.Level)}
	for code, e := range r.Errors {
		if e.Count <= 0 { // taking errors out leaves the last error record as it was
			continue
		}
		doc, _ := json.Marshal(e.Last)
		set[fmt.Sprintf("ed#%d", code)] = string(doc)
	}
	return set
}

func rollupAdds(r Rollup) map[string]int64 {
	add := map[string]int64{"n": r.Count}
	for name, m := range r.Metrics {
		// A revision that replaces a value moves the sum with no change of the count (and a
		// removal moves both down): any non-zero delta is added, not only a positive count.
		if m.N != 0 || !m.Sum.IsZero() {
			add["mc#"+esc(name)] = m.N
			addSum(add, name, m.Sum)
		}
		for c, n := range m.Categories {
			add["k#"+esc(name)+"#"+esc(c)] = n
		}
	}
	for code, e := range r.Errors {
		add[fmt.Sprintf("ec#%d", code)] = e.Count
	}
	return add
}

// RollupUpdate is the additive part of folding delta into its roll-up item, as one update
// (alone, or one action of a transaction): ADD of the counts and scaled sums, SET of the
// static attributes (and of the last error record of each code). Min and max are not in
// it: see RollupExtremes.
func RollupUpdate(runID string, delta Rollup) Update {
	return Update{Key: RollupKey(runID, delta.Level, delta.Group, delta.Minute, delta.Value),
		Set: rollupStatic(delta), Add: rollupAdds(delta)}
}

// RollupRevisions is the attribute counting the revisions that moved a value out of or into
// a roll-up item. A recompute of the item's extremes from its traces is written on the
// condition that it still holds what it held before the traces were read: a value revised
// in between (which leaves the trace count as it was) makes the recompute start again.
const RollupRevisions = "rv"

// RevisedRollupUpdate is RollupUpdate for a revision of a trace: one more revision of the
// item besides the delta.
func RevisedRollupUpdate(runID string, delta Rollup) Update {
	u := RollupUpdate(runID, delta)
	u.Add[RollupRevisions] = 1
	return u
}

// ExtremeAttrs are the attributes of a metric's min and max in a roll-up item.
func ExtremeAttrs(metric string) (min, max string) { return "mn#" + esc(metric), "mx#" + esc(metric) }

// RollupExtremes are the min and max that delta brings to its roll-up item.
func RollupExtremes(delta Rollup) []Extreme {
	var out []Extreme
	for name, m := range delta.Metrics {
		if m.Min != nil {
			out = append(out, Extreme{Attr: "mn#" + esc(name), Value: *m.Min, Min: true},
				Extreme{Attr: "mx#" + esc(name), Value: *m.Max})
		}
	}
	return out
}

// AddToRollup folds delta into its roll-up item: one atomic update adds the counts and sums
// (no read, so concurrent writers never conflict), then, only when delta lowers a min or
// raises a max, one more update sets them all, conditioned on the values the first update
// returned (compare-and-set), and retried from a fresh read when another writer moved them.
func AddToRollup(ctx context.Context, t Table, runID string, delta Rollup) error {
	u := RollupUpdate(runID, delta)
	it, err := t.Update(ctx, u)
	if err != nil {
		return fmt.Errorf("add to roll-up %v: %w", u.Key, err)
	}
	if err := SetExtremes(ctx, t, u.Key, it, RollupExtremes(delta)); err != nil {
		return fmt.Errorf("add to roll-up: %w", err)
	}
	return nil
}
