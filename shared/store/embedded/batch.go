package embedded

import (
	"context"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/evalobs/evalapi/shared/store"
)

// BatchGet reads any number of items in one snapshot; absent items are left out. Every read
// of the embedded store is strongly consistent, so the flag changes nothing.
//
// A key given twice is ErrInvalid: DynamoDB refuses duplicates within one request, and the
// dynamo adapter cannot promise to split them into different requests.
func (db *DB) BatchGet(ctx context.Context, keys []store.Key, _ bool) ([]store.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embedded: batch get: %w", err)
	}
	if err := checkKeys(keys, nil); err != nil {
		return nil, fmt.Errorf("embedded: batch get: %w", err)
	}
	var out []store.Item
	err := db.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketItems)
		for _, k := range keys {
			it, err := readItem(b, baseKey(k))
			if err != nil {
				return err
			}
			if it != nil {
				out = append(out, it)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("embedded: batch get: %w", err)
	}
	return out, nil
}

// BatchWrite puts and deletes any number of items without conditions. Here it is one
// transaction, but callers may rely only on what the port promises (no atomicity).
func (db *DB) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	items := make([]store.Item, len(puts))
	keys := make([]store.Key, len(puts))
	for i, p := range puts {
		it, err := prepareItem(p)
		if err == nil {
			err = checkStored(it)
		}
		if err != nil {
			return fmt.Errorf("embedded: batch write: put %s: %w", p.Key(), err)
		}
		items[i], keys[i] = it, it.Key()
	}
	if err := checkKeys(deletes, keys); err != nil {
		return fmt.Errorf("embedded: batch write: %w", err)
	}
	if len(items) == 0 && len(deletes) == 0 {
		return nil
	}
	err := db.write(ctx, func(w *writer) error {
		for _, it := range items {
			old, err := w.get(it.Key())
			if err != nil {
				return err
			}
			if err := w.put(old, it); err != nil {
				return err
			}
		}
		for _, k := range deletes {
			old, err := w.get(k)
			if err != nil {
				return err
			}
			if err := w.delete(old); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("embedded: batch write: %w", err)
	}
	return nil
}

// checkKeys checks keys and that no key appears twice among them and also (the keys of
// items already checked).
func checkKeys(keys, also []store.Key) error {
	seen := make(map[store.Key]bool, len(keys)+len(also))
	for _, k := range also {
		if seen[k] {
			return fmt.Errorf("%w: key %s appears twice", store.ErrInvalid, k)
		}
		seen[k] = true
	}
	for _, k := range keys {
		if err := checkKey(k); err != nil {
			return err
		}
		if seen[k] {
			return fmt.Errorf("%w: key %s appears twice", store.ErrInvalid, k)
		}
		seen[k] = true
	}
	return nil
}
