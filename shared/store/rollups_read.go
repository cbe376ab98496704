package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/evalobs/evalapi/shared/fixed"
)

// Reading roll-ups: the items of a range of periods, parsed back into Rollup values.

// ParseRollup reads a roll-up item.
func ParseRollup(it Item) (Rollup, error) {
	var r Rollup
	minute, _ := it["minute"].(string)
	ts, err := time.Parse(minuteLayout, minute)
	if err != nil {
		return r, fmt.Errorf("roll-up %v: minute: %w", it.Key(), err)
	}
	r.Minute = ts
	r.Group, _ = it["group"].(string)
	level, _ := it["level"].(string)
	r.Level = RollupLevel(level)
	r.Value, _ = it["value"].(string)
	for name, v := range it {
		kind, rest, ok := strings.Cut(name, "#")
		if !ok && name == "n" {
			r.Count, _ = v.(int64)
			continue
		}
		if !ok {
			continue
		}
		if err := r.parseAttr(kind, rest, v); err != nil {
			return r, fmt.Errorf("roll-up %v: %s: %w", it.Key(), name, err)
		}
	}
	return r, nil
}

func (r *Rollup) parseAttr(kind, rest string, v any) error {
	switch kind {
	case "mc", "ms", "s0", "s1", "s2", "mn", "mx":
		name, err := unescapeName(rest)
		if err != nil {
			return err
		}
		m := r.Metric(name)
		switch kind {
		case "mc":
			m.N, _ = v.(int64)
		case "ms", "s0", "s1", "s2":
			n, _ := v.(int64)
			m.Sum = m.Sum.MustAdd(limbValue(kind, n))
		case "mn", "mx":
			x, err := decimalAttr(v)
			if err != nil {
				return err
			}
			if kind == "mn" {
				m.Min = &x
			} else {
				m.Max = &x
			}
		}
	case "k":
		en, ec, _ := strings.Cut(rest, "#")
		name, err1 := unescapeName(en)
		cat, err2 := unescapeName(ec)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		m := r.Metric(name)
		if m.Categories == nil {
			m.Categories = map[string]int64{}
		}
		m.Categories[cat], _ = v.(int64)
	case "ec", "ed":
		var code int64
		if _, err := fmt.Sscan(rest, &code); err != nil {
			return err
		}
		if r.Errors == nil {
			r.Errors = map[int64]RollupError{}
		}
		e := r.Errors[code]
		if kind == "ec" {
			e.Count, _ = v.(int64)
		} else if s, ok := v.(string); ok {
			if err := json.Unmarshal([]byte(s), &e.Last); err != nil {
				return err
			}
		}
		r.Errors[code] = e
	}
	return nil
}

// ScanRollups calls fn with every roll-up of the level and the run's group column for the
// periods starting in [from, to) (both whole periods), one page at a time.
func ScanRollups(ctx context.Context, t Table, runID string, level RollupLevel, groupCol string, from, to time.Time, fn func(Rollup) error) error {
	q := Query{PK: RollupPartition(runID, level, groupCol), SKOp: SKBetween,
		From: from.UTC().Format(minuteLayout), To: to.UTC().Format(minuteLayout)}
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return fmt.Errorf("scan roll-ups of run %s: %w", runID, err)
		}
		for _, it := range p.Items {
			r, err := ParseRollup(it)
			if err != nil {
				return err
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		if p.Next == nil {
			return nil
		}
		q.Start = p.Next
	}
}

// limbValue is what one limb attribute (or a legacy sum in millionths, "ms") adds to a sum.
func limbValue(kind string, n int64) fixed.Value {
	var l [3]int64
	switch kind {
	case "ms": // millionths: n·1000 billionths
		return fixed.FromMillionths(n)
	case "s0":
		l[0] = n
	case "s1":
		l[1] = n
	case "s2":
		l[2] = n
	}
	v, _ := fixed.FromLimbs(l)
	return v
}

// decimalAttr reads a min or max: decimal text, or a number written before sums were exact.
func decimalAttr(v any) (fixed.Value, error) {
	switch x := v.(type) {
	case string:
		return fixed.Parse(x)
	case int64:
		return fixed.FromInt(x), nil
	case float64:
		return fixed.FromFloat(x)
	}
	return fixed.Value{}, fmt.Errorf("not a number: %T", v)
}

// unescapeName is url.QueryUnescape, without its copy for the names that need none.
func unescapeName(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	return url.QueryUnescape(s)
}
