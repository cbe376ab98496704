package embedded

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/evalobs/evalapi/shared/store"
)

// Items are stored as JSON. Every value was validated and normalised before it was written,
// so decoding with json.Number and store.Normalize gives back exactly the value written.

func encodeItem(it store.Item) ([]byte, error) {
	b, err := json.Marshal(map[string]any(it))
	if err != nil {
		return nil, fmt.Errorf("encode item %s: %w", it.Key(), err)
	}
	return b, nil
}

func decodeItem(b []byte) (store.Item, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode item: %w", err)
	}
	n, err := store.Normalize(m)
	if err != nil {
		return nil, fmt.Errorf("decode item: %w", err)
	}
	return store.Item(n.(map[string]any)), nil
}

// readItem returns the item at the encoded key k, or nil when there is none. The result is
// decoded afresh, so it is the caller's to keep.
func readItem(b *bolt.Bucket, k []byte) (store.Item, error) {
	v := b.Get(k)
	if v == nil {
		return nil, nil
	}
	return decodeItem(v)
}

// clone deep-copies a value of the vocabulary.
func clone(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clone(e)
		}
		return out
	case store.Item:
		if x == nil {
			return store.Item(nil)
		}
		return store.Item(clone(map[string]any(x)).(map[string]any))
	}
	return v
}

func cloneItem(it store.Item) store.Item {
	return clone(it).(store.Item)
}
