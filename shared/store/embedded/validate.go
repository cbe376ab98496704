package embedded

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/evalobs/evalapi/shared/store"
)

// DynamoDB limits the port does not name but the service enforces, kept here so that code
// which works on the embedded store does not fail on AWS.
const (
	maxPartitionKeyBytes = 2048
	maxSortKeyBytes      = 1024
	maxNumber            = 1e126  // numbers have magnitude < 1E+126 ...
	minNumber            = 1e-130 // ... and >= 1E-130 unless zero
)

func checkKey(k store.Key) error {
	if err := checkKeyString(store.AttrPK, k.PK, maxPartitionKeyBytes); err != nil {
		return err
	}
	return checkKeyString(store.AttrSK, k.SK, maxSortKeyBytes)
}

func checkKeyString(attr, s string, max int) error {
	switch {
	case s == "":
		return fmt.Errorf("%w: key attribute %s is empty", store.ErrInvalid, attr)
	case len(s) > max:
		return fmt.Errorf("%w: key attribute %s is longer than %d bytes", store.ErrInvalid, attr, max)
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: key attribute %s is not valid UTF-8", store.ErrInvalid, attr)
	}
	return nil
}

// prepareItem validates an item to be written and returns a normalised copy of it, so that
// the caller may go on mutating its own.
func prepareItem(it store.Item) (store.Item, error) {
	if err := store.ValidateItem(it); err != nil {
		return nil, err
	}
	if err := checkKey(it.Key()); err != nil {
		return nil, err
	}
	out := make(store.Item, len(it))
	for name, v := range it {
		n, err := prepareValue(name, v)
		if err != nil {
			return nil, err
		}
		out[name] = n
	}
	return out, nil
}

func prepareValue(name string, v any) (any, error) {
	if name == "" || !utf8.ValidString(name) {
		return nil, fmt.Errorf("%w: attribute name %q", store.ErrInvalid, name)
	}
	n, err := normalizeValue(v)
	if err != nil {
		return nil, fmt.Errorf("%w: attribute %q: %v", store.ErrInvalid, name, err)
	}
	return n, nil
}

// normalizeValue accepts exactly the port's vocabulary (as ValidateItem does) and returns a
// fresh copy with numbers normalised. A nil list or map becomes null, as the SDK's
// attributevalue encoder stores it.
func normalizeValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, int64:
		return x, nil
	case string:
		if !utf8.ValidString(x) {
			return nil, fmt.Errorf("string is not valid UTF-8")
		}
		return x, nil
	case float64:
		if a := math.Abs(x); a >= maxNumber || (a != 0 && a < minNumber) {
			return nil, fmt.Errorf("number %v is out of DynamoDB's range", x)
		}
		return store.Normalize(x)
	case []any:
		if x == nil {
			return nil, nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalizeValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		if x == nil {
			return nil, nil
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if !utf8.ValidString(k) {
				return nil, fmt.Errorf("map key %q is not valid UTF-8", k)
			}
			n, err := normalizeValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}

// checkStored checks what only the whole item written can show: the type of the index key
// attributes (DynamoDB refuses an index key attribute of another type than its definition,
// or empty) and the item size.
func checkStored(it store.Item) error {
	for _, ix := range indexes {
		for _, a := range [...]struct {
			name string
			max  int
		}{{ix.pk, maxPartitionKeyBytes}, {ix.sk, maxSortKeyBytes}} {
			v, ok := it[a.name]
			if !ok {
				continue
			}
			s, isString := v.(string)
			if !isString {
				return fmt.Errorf("%w: index key attribute %s must be a string, not %T", store.ErrInvalid, a.name, v)
			}
			if err := checkKeyString(a.name, s, a.max); err != nil {
				return err
			}
		}
	}
	if n := store.ItemSize(it); n > store.MaxItemBytes {
		return fmt.Errorf("%w: item %s is %d bytes", store.ErrTooLarge, it.Key(), n)
	}
	return nil
}

func isKeyAttr(name string) bool { return name == store.AttrPK || name == store.AttrSK }

// prepareConds validates conditions and normalises the values they compare with.
func prepareConds(conds []store.Cond) ([]store.Cond, error) {
	out := make([]store.Cond, len(conds))
	for i, c := range conds {
		switch c.Kind {
		case store.CondNotExists, store.CondExists:
		case store.CondEquals, store.CondAttrAbsent, store.CondAtMost:
			if c.Attr == "" {
				return nil, fmt.Errorf("%w: condition %d names no attribute", store.ErrInvalid, i)
			}
			v, err := normalizeValue(c.Value)
			if err != nil {
				return nil, fmt.Errorf("%w: condition %d: %v", store.ErrInvalid, i, err)
			}
			c.Value = v
		default:
			return nil, fmt.Errorf("%w: condition %d has unknown kind %d", store.ErrInvalid, i, c.Kind)
		}
		out[i] = c
	}
	return out, nil
}
