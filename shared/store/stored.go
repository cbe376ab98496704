package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
)

// RecordReader is a table that can show the items it reads in the form it stores them (the
// embedded store), so that a record is decoded from the stored bytes straight into its struct
// with no map built on the way. Each method answers as its twin on Table (the same items, keys,
// errors, pages and cursors); only the form of the items differs. Tables that are not one (the
// DynamoDB adapter, wrappers such as the counted and faulted tables of the tests) are read
// through Table and Unmarshal, by the helpers below.
type RecordReader interface {
	GetStored(ctx context.Context, key Key, consistent bool) (StoredItem, error)
	BatchGetStored(ctx context.Context, keys []Key, consistent bool) ([]StoredItem, error)
	QueryStored(ctx context.Context, q Query) (StoredPage, error)
}

// ItemReader is one stored item as a RecordReader shows it: a ValueReader whose first value
// is the item itself, a map of its attributes.
type ItemReader interface {
	ValueReader
	// Key is the item's primary key.
	Key() Key
	// Rewind moves the reader back to the item's start.
	Rewind()
}

// StoredItem is an item read from a table: its map, or the reader of its stored form. A
// reader has a position: one goroutine at a time decodes a StoredItem (and its copies).
type StoredItem struct {
	item Item
	r    ItemReader
}

// StoredPage is Page with stored items.
type StoredPage struct {
	Items []StoredItem
	Next  Cursor
}

// StoredOf is the stored item of a map.
func StoredOf(it Item) StoredItem { return StoredItem{item: it} }

// StoredFrom is the stored item of a reader (for RecordReaders).
func StoredFrom(r ItemReader) StoredItem { return StoredItem{r: r} }

// Key is the item's primary key.
func (s StoredItem) Key() Key {
	if s.r != nil {
		return s.r.Key()
	}
	return s.item.Key()
}

// Item is the item's map (built afresh from a reader).
func (s StoredItem) Item() Item {
	if s.r == nil {
		return s.item
	}
	s.r.Rewind()
	m, _ := s.r.Value().(map[string]any)
	return Item(m)
}

// Decode fills the record v points to as Unmarshal(s.Item(), v) does.
func (s StoredItem) Decode(v any) error {
	if s.r == nil {
		return Unmarshal(s.item, v)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("store: unmarshal into %T: %w", v, &json.InvalidUnmarshalError{Type: reflect.TypeOf(v)})
	}
	s.r.Rewind()
	if err := readerOf(rv.Type().Elem())(s.r, rv.Elem()); err != nil {
		return fmt.Errorf("store: unmarshal into %T: %w", v, err)
	}
	return nil
}

// getStored reads one item, stored when t can.
func getStored(ctx context.Context, t Table, k Key, consistent bool) (StoredItem, error) {
	if r, ok := t.(RecordReader); ok {
		return r.GetStored(ctx, k, consistent)
	}
	it, err := t.Get(ctx, k, consistent)
	return StoredOf(it), err
}

// getRecord reads the item at k into the record v points to (Get and Unmarshal).
func getRecord(ctx context.Context, t Table, k Key, consistent bool, v any) error {
	s, err := getStored(ctx, t, k, consistent)
	if err != nil {
		return err
	}
	return s.Decode(v)
}

// batchGetStored is BatchGet, stored when t can.
func batchGetStored(ctx context.Context, t Table, keys []Key, consistent bool) ([]StoredItem, error) {
	if r, ok := t.(RecordReader); ok {
		return r.BatchGetStored(ctx, keys, consistent)
	}
	items, err := t.BatchGet(ctx, keys, consistent)
	if err != nil {
		return nil, err
	}
	return storedOfAll(items), nil
}

// queryStored is Query, stored when t can.
func queryStored(ctx context.Context, t Table, q Query) (StoredPage, error) {
	if r, ok := t.(RecordReader); ok {
		return r.QueryStored(ctx, q)
	}
	p, err := t.Query(ctx, q)
	if err != nil {
		return StoredPage{}, err
	}
	return StoredPage{Items: storedOfAll(p.Items), Next: p.Next}, nil
}

// queryAllStored is QueryAll, stored when t can.
func queryAllStored(ctx context.Context, t Table, q Query) ([]StoredItem, error) {
	var out []StoredItem
	for {
		p, err := queryStored(ctx, t, q)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Items...)
		if p.Next == nil || (q.Limit > 0 && len(out) >= q.Limit) {
			return out, nil
		}
		q.Start = p.Next
	}
}

func storedOfAll(items []Item) []StoredItem {
	out := make([]StoredItem, len(items))
	for i, it := range items {
		out[i] = StoredOf(it)
	}
	return out
}
