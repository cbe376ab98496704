package embedded

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/evalobs/evalapi/shared/store"
)

// update is a store.Update checked and with its values normalised.
type update struct {
	key    store.Key
	set    map[string]any
	add    map[string]int64
	remove []string
	conds  []store.Cond
}

func prepareUpdate(u store.Update) (update, error) {
	if err := checkKey(u.Key); err != nil {
		return update{}, err
	}
	seen := make(map[string]bool)
	name := func(n string) error {
		switch {
		case isKeyAttr(n):
			// As DynamoDB: "Cannot update attribute PK. This attribute is part of the key".
			return fmt.Errorf("%w: update of key attribute %s", store.ErrInvalid, n)
		case seen[n]:
			return fmt.Errorf("%w: attribute %s is named twice in one update", store.ErrInvalid, n)
		}
		seen[n] = true
		return nil
	}
	p := update{key: u.Key, set: make(map[string]any, len(u.Set)), add: maps.Clone(u.Add), remove: slices.Clone(u.Remove)}
	for n, v := range u.Set {
		if err := name(n); err != nil {
			return update{}, err
		}
		nv, err := prepareValue(n, v)
		if err != nil {
			return update{}, err
		}
		p.set[n] = nv
	}
	for n := range u.Add {
		if err := name(n); err != nil {
			return update{}, err
		}
	}
	for _, n := range u.Remove {
		if err := name(n); err != nil {
			return update{}, err
		}
	}
	var err error
	if p.conds, err = prepareConds(u.Conds); err != nil {
		return update{}, err
	}
	return p, nil
}

// applyUpdate returns the item u makes of old (nil when absent), checked for storage.
func applyUpdate(old store.Item, u update) (store.Item, error) {
	it := make(store.Item, len(old)+len(u.set)+len(u.add))
	for k, v := range old {
		it[k] = v
	}
	it[store.AttrPK], it[store.AttrSK] = u.key.PK, u.key.SK
	for k, v := range u.set {
		it[k] = v
	}
	for k, d := range u.add {
		cur, ok := it[k]
		if !ok {
			it[k] = d
			continue
		}
		sum, err := addNumber(cur, d)
		if err != nil {
			return nil, fmt.Errorf("%w: add to attribute %s: %v", store.ErrInvalid, k, err)
		}
		it[k] = sum
	}
	for _, k := range u.remove {
		delete(it, k)
	}
	if err := checkStored(it); err != nil {
		return nil, err
	}
	return it, nil
}

func addNumber(cur any, d int64) (any, error) {
	switch x := cur.(type) {
	case int64:
		if (d > 0 && x > math.MaxInt64-d) || (d < 0 && x < math.MinInt64-d) {
			// DynamoDB numbers hold 38 digits; past int64 the sum lives on as a float64.
			return float64(x) + float64(d), nil
		}
		return x + d, nil
	case float64:
		return store.Normalize(x + float64(d))
	}
	return nil, fmt.Errorf("the attribute holds %T, not a number", cur)
}
