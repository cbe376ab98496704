package dynamo

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

// Limits DynamoDB enforces that the port does not name. The embedded adapter enforces the
// same, and checking them here keeps moto (which lets some pass) in line with both.
const (
	maxPartitionKeyBytes = 2048
	maxSortKeyBytes      = 1024
	maxNumber            = 1e126 // numbers have magnitude < 1E+126 ...
	minNumber            = 1e-130
)

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

func checkKey(k store.Key) error {
	if err := checkKeyString(store.AttrPK, k.PK, maxPartitionKeyBytes); err != nil {
		return err
	}
	return checkKeyString(store.AttrSK, k.SK, maxSortKeyBytes)
}

func checkNumber(f float64) error {
	if a := math.Abs(f); math.IsNaN(f) || a >= maxNumber || (a != 0 && a < minNumber) {
		return fmt.Errorf("%w: number %v is out of DynamoDB's range", store.ErrInvalid, f)
	}
	return nil
}

// itemAV validates a whole item as every adapter must and converts it.
func itemAV(item store.Item) (map[string]types.AttributeValue, error) {
	if err := store.ValidateItem(item); err != nil {
		return nil, err
	}
	if err := checkKey(item.Key()); err != nil {
		return nil, err
	}
	if size := store.ItemSize(item); size > store.MaxItemBytes {
		return nil, fmt.Errorf("%w: item is %d bytes", store.ErrTooLarge, size)
	}
	for a, v := range item {
		if err := checkName(a); err != nil {
			return nil, err
		}
		if err := checkIndexKey(a, v); err != nil {
			return nil, err
		}
	}
	return toAVMap(item)
}

func checkName(attr string) error {
	if attr == "" || !utf8.ValidString(attr) {
		return fmt.Errorf("%w: attribute name %q", store.ErrInvalid, attr)
	}
	return nil
}

// isIndexKey reports whether attr is a key attribute of one of the table's indexes.
func isIndexKey(attr string) bool {
	_, ok := indexKeyMax(attr)
	return ok
}

// indexKeyMax returns the byte limit of attr as an index key, if it is one.
func indexKeyMax(attr string) (int, bool) {
	for _, ix := range store.TableSchema.Indexes {
		switch attr {
		case ix.PartitionKey:
			return maxPartitionKeyBytes, true
		case ix.SortKey:
			return maxSortKeyBytes, true
		}
	}
	return 0, false
}

// checkIndexKey refuses an index key that is not a non-empty string within the key limits,
// which DynamoDB refuses with a ValidationException and moto may store.
func checkIndexKey(attr string, v any) error {
	max, ok := indexKeyMax(attr)
	if !ok {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%w: index key attribute %s must be a string, not %T", store.ErrInvalid, attr, v)
	}
	return checkKeyString(attr, s, max)
}
