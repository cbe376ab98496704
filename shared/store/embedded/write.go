package embedded

import (
	"bytes"
	"context"
	"fmt"
	"reflect"

	bolt "go.etcd.io/bbolt"

	"github.com/evalobs/evalapi/shared/store"
)

// Put writes a whole item when its conditions hold.
func (db *DB) Put(ctx context.Context, item store.Item, conds ...store.Cond) error {
	it, err := prepareItem(item)
	if err == nil {
		err = checkStored(it)
	}
	if err != nil {
		return fmt.Errorf("embedded: put %s: %w", item.Key(), err)
	}
	cs, err := prepareConds(conds)
	if err != nil {
		return fmt.Errorf("embedded: put %s: %w", item.Key(), err)
	}
	err = db.write(ctx, func(w *writer) error {
		old, err := w.get(it.Key())
		if err != nil {
			return err
		}
		if !holds(cs, old) {
			return store.ErrConditionFailed
		}
		return w.put(old, it)
	})
	if err != nil {
		return fmt.Errorf("embedded: put %s: %w", it.Key(), err)
	}
	return nil
}

// Delete removes one item when its conditions hold; an absent item is no error.
func (db *DB) Delete(ctx context.Context, key store.Key, conds ...store.Cond) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("embedded: delete %s: %w", key, err)
	}
	cs, err := prepareConds(conds)
	if err != nil {
		return fmt.Errorf("embedded: delete %s: %w", key, err)
	}
	err = db.write(ctx, func(w *writer) error {
		old, err := w.get(key)
		if err != nil {
			return err
		}
		if !holds(cs, old) {
			return store.ErrConditionFailed
		}
		return w.delete(old)
	})
	if err != nil {
		return fmt.Errorf("embedded: delete %s: %w", key, err)
	}
	return nil
}

// Update applies u, creating the item when it is absent, and returns the item afterwards.
func (db *DB) Update(ctx context.Context, u store.Update) (store.Item, error) {
	pu, err := prepareUpdate(u)
	if err != nil {
		return nil, fmt.Errorf("embedded: update %s: %w", u.Key, err)
	}
	var out store.Item
	err = db.write(ctx, func(w *writer) error {
		old, err := w.get(u.Key)
		if err != nil {
			return err
		}
		if !holds(pu.conds, old) {
			return store.ErrConditionFailed
		}
		if out, err = applyUpdate(old, pu); err != nil {
			return err
		}
		return w.put(old, out)
	})
	if err != nil {
		return nil, fmt.Errorf("embedded: update %s: %w", u.Key, err)
	}
	return out, nil
}

// holds reports whether every condition holds on old (nil when the item is absent).
func holds(conds []store.Cond, old store.Item) bool {
	for _, c := range conds {
		var ok bool
		switch c.Kind {
		case store.CondNotExists:
			ok = old == nil
		case store.CondExists:
			ok = old != nil
		case store.CondEquals:
			v, present := old[c.Attr]
			// Values on both sides are normalised, so deep equality is DynamoDB's equality:
			// numbers by value, no match across types.
			ok = present && reflect.DeepEqual(v, c.Value)
		case store.CondAttrAbsent:
			_, present := old[c.Attr]
			ok = !present
		case store.CondAtMost:
			n, present := old[c.Attr].(int64)
			limit, _ := c.Value.(int64)
			ok = !present || n <= limit
		}
		if !ok {
			return false
		}
	}
	return true
}

// writer is the state of one write transaction.
type writer struct {
	tx      *bolt.Tx
	items   *bolt.Bucket
	record  bool // collect changes for OnCommit
	changes []Change
}

func (w *writer) get(k store.Key) (store.Item, error) {
	return readItem(w.items, baseKey(k))
}

// put replaces old (nil when absent) by it, which must be checked already.
func (w *writer) put(old, it store.Item) error {
	if old != nil && reflect.DeepEqual(old, it) {
		return nil // nothing changes, and DynamoDB Streams would record nothing either
	}
	v, err := encodeItem(it)
	if err != nil {
		return err
	}
	k := baseKey(it.Key())
	if err := w.items.Put(k, v); err != nil {
		return fmt.Errorf("write item: %w", err)
	}
	return w.reindex(old, it, k)
}

// delete removes old, if any.
func (w *writer) delete(old store.Item) error {
	if old == nil {
		return nil
	}
	k := baseKey(old.Key())
	if err := w.items.Delete(k); err != nil {
		return fmt.Errorf("delete item: %w", err)
	}
	return w.reindex(old, nil, k)
}

// reindex moves the item's entries in every index from old to it and records the change.
func (w *writer) reindex(old, it store.Item, base []byte) error {
	for _, ix := range indexes {
		from, to := indexEntry(ix, old), indexEntry(ix, it)
		if bytes.Equal(from, to) {
			continue
		}
		b := w.tx.Bucket(ix.bucket)
		if from != nil {
			if err := b.Delete(from); err != nil {
				return fmt.Errorf("index %s: %w", ix.name, err)
			}
		}
		if to != nil {
			if err := b.Put(to, base); err != nil {
				return fmt.Errorf("index %s: %w", ix.name, err)
			}
		}
	}
	if w.record {
		// Copies: the receiver may keep them, and old and it may share nested values.
		var c Change
		if old != nil {
			c.Old = cloneItem(old)
		}
		if it != nil {
			c.New = cloneItem(it)
		}
		w.changes = append(w.changes, c)
	}
	return nil
}
