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
	var minute string
	for name, v := range it {
		if err := r.setAttr(name, v, &minute); err != nil {
			return r, fmt.Errorf("roll-up %v: %s: %w", it.Key(), name, err)
		}
	}
	if err := r.setMinute(minute); err != nil {
		return r, fmt.Errorf("roll-up %v: minute: %w", it.Key(), err)
	}
	return r, nil
}

// parseRollupAttrs is ParseRollup on an item's attributes as an ItemRanger shows them.
func parseRollupAttrs(attrs []Attr) (Rollup, error) {
	var r Rollup
	var minute string
	key := func() Key {
		var k Key
		for _, a := range attrs {
			switch a.Name {
			case AttrPK:
				k.PK, _ = a.Value.(string)
			case AttrSK:
				k.SK, _ = a.Value.(string)
			}
		}
		return k
	}
	for _, a := range attrs {
		if err := r.setAttr(a.Name, a.Value, &minute); err != nil {
			return r, fmt.Errorf("roll-up %v: %s: %w", key(), a.Name, err)
		}
	}
	if err := r.setMinute(minute); err != nil {
		return r, fmt.Errorf("roll-up %v: minute: %w", key(), err)
	}
	return r, nil
}

// setAttr reads one attribute of a roll-up item into r (the minute into *minute, parsed by
// setMinute once all are read).
func (r *Rollup) setAttr(name string, v any, minute *string) error {
	kind, rest, ok := strings.Cut(name, "#")
	if ok {
		return r.parseAttr(kind, rest, v)
	}
	switch name {
	case "n":
		r.Count, _ = v.(int64)
	case "minute":
		*minute, _ = v.(string)
	case "group":
		r.Group, _ = v.(string)
	case "level":
		level, _ := v.(string)
		r.Level = RollupLevel(level)
	case "value":
		r.Value, _ = v.(string)
	}
	return nil
}

// setMinute parses the minute attribute (minuteLayout), by hand in the form the writer uses
// and by time.Parse otherwise (which also reports the error).
func (r *Rollup) setMinute(s string) error {
	if t, ok := parseMinute(s); ok {
		r.Minute = t
		return nil
	}
	t, err := time.Parse(minuteLayout, s)
	r.Minute = t
	return err
}

// parseMinute reads "2006-01-02T15:04Z" with every field in range; ok is false otherwise.
func parseMinute(s string) (time.Time, bool) {
	if len(s) != 17 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != 'Z' {
		return time.Time{}, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d, h, mi := num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2)
	if y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, 0, 0, time.UTC)
	if t.Day() != d { // past the month's end
		return time.Time{}, false
	}
	return t, true
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
	if r, ok := t.(ItemRanger); ok {
		return scanRollupsRanged(ctx, r, runID, q, fn)
	}
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

// scanRollupsRanged is ScanRollups on an ItemRanger: no item map is built.
func scanRollupsRanged(ctx context.Context, r ItemRanger, runID string, q Query, fn func(Rollup) error) error {
	var fnErr error // fn's own, returned as it is
	err := r.RangeItems(ctx, q, func(attrs []Attr) error {
		ru, err := parseRollupAttrs(attrs)
		if err != nil {
			return err
		}
		fnErr = fn(ru)
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("scan roll-ups of run %s: %w", runID, err)
	}
	return nil
}
