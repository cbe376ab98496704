package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
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
	case "mc", "ms", "mn", "mx":
		name, err := url.QueryUnescape(rest)
		if err != nil {
			return err
		}
		m := r.Metric(name)
		f, _ := number(v)
		switch kind {
		case "mc":
			m.N = int64(f)
		case "ms":
			m.SumScaled, _ = v.(int64)
		case "mn":
			m.Min = &f
		case "mx":
			m.Max = &f
		}
	case "k":
		en, ec, _ := strings.Cut(rest, "#")
		name, err1 := url.QueryUnescape(en)
		cat, err2 := url.QueryUnescape(ec)
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
