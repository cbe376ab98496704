package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/evalobs/evalapi/shared/fixed"
)

// Min and max attributes (of roll-ups and run summaries) cannot be folded in with an ADD:
// they are set only when a writer improves them, on the condition that they still hold the
// value the writer saw (compare-and-set). Setting a min or max twice is harmless.

// Extreme is a value that lowers the min (Min) or raises the max held in attribute Attr.
type Extreme struct {
	Attr  string
	Value fixed.Value
	Min   bool
}

// improves reports whether e beats the value cur holds (an absent or unreadable value is
// always beaten).
func (e Extreme) improves(cur Item) bool {
	raw, has := cur[e.Attr]
	if !has {
		return true
	}
	v, err := decimalAttr(raw)
	switch {
	case err != nil:
		return true
	case e.Min:
		return e.Value.Cmp(v) < 0
	default:
		return e.Value.Cmp(v) > 0
	}
}

// WithExtremes adds to u the extremes that improve on cur (the item as read; nil when
// absent), with the conditions that cur's values still hold: a writer that moved them in
// between makes u fail with ErrConditionFailed, and the caller reads again.
func WithExtremes(u Update, cur Item, exs []Extreme) Update {
	var set map[string]any
	var conds []Cond
	for _, e := range exs {
		if !e.improves(cur) {
			continue
		}
		if set == nil {
			set = make(map[string]any, len(u.Set)+len(exs))
			for k, v := range u.Set {
				set[k] = v
			}
			conds = append(conds, u.Conds...)
		}
		set[e.Attr] = e.Value.String()
		if v, has := cur[e.Attr]; has {
			conds = append(conds, Equals(e.Attr, v))
		} else {
			conds = append(conds, AttrAbsent(e.Attr))
		}
	}
	if set != nil {
		u.Set, u.Conds = set, conds
	}
	return u
}

// ApplyExtreme folds an extreme into cur as the write of WithExtremes leaves it, so that a
// writer that made that write can build its next one without reading again.
func ApplyExtreme(cur Item, e Extreme) Item {
	if !e.improves(cur) {
		return cur
	}
	if cur == nil {
		cur = Item{}
	}
	cur[e.Attr] = e.Value.String() // as the adapters read it back, so that the next compare-and-set on it holds
	return cur
}

// maxExtremeAttempts bounds the compare-and-set retries of SetExtremes under contention.
const maxExtremeAttempts = 50

// SetExtremes writes the extremes that improve on the item of key k, read as cur, with a
// compare-and-set retried from a strongly consistent read when another writer moved them.
func SetExtremes(ctx context.Context, t Table, k Key, cur Item, exs []Extreme) error {
	for range maxExtremeAttempts {
		u := WithExtremes(Update{Key: k}, cur, exs)
		if len(u.Set) == 0 {
			return nil
		}
		_, err := t.Update(ctx, u)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrConditionFailed) {
			return fmt.Errorf("set min/max of %v: %w", k, err)
		}
		if cur, err = t.Get(ctx, k, true); err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("set min/max of %v: %w", k, err)
		}
	}
	return fmt.Errorf("set min/max of %v: %w", k, ErrConflict)
}
