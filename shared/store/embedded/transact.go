package embedded

import (
	"context"
	"fmt"

	"github.com/evalobs/evalapi/shared/store"
)

// Transact applies ops all or nothing in one bbolt write transaction. When a condition
// fails it returns a *store.TxCanceledError with one reason per op, as DynamoDB does.
func (db *DB) Transact(ctx context.Context, ops []store.Op) error {
	txOps, err := prepareOps(ops)
	if err != nil {
		return fmt.Errorf("embedded: transact: %w", err)
	}
	err = db.write(ctx, func(w *writer) error {
		// Conditions all see the state before the transaction: no two ops share a key.
		olds := make([]store.Item, len(txOps))
		reasons := make([]string, len(txOps))
		failed := false
		for i, op := range txOps {
			old, err := w.get(op.key)
			if err != nil {
				return err
			}
			olds[i], reasons[i] = old, "None"
			if !holds(op.conds, old) {
				reasons[i], failed = "ConditionalCheckFailed", true
			}
		}
		if failed {
			return &store.TxCanceledError{Reasons: reasons}
		}
		for i, op := range txOps {
			if err := op.apply(w, olds[i]); err != nil {
				return fmt.Errorf("op %d: %w", i, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("embedded: transact: %w", err)
	}
	return nil
}

// txOp is a store.Op checked and normalised.
type txOp struct {
	kind   store.OpKind
	key    store.Key
	item   store.Item // OpPut
	update update     // OpUpdate
	conds  []store.Cond
}

func (op txOp) apply(w *writer, old store.Item) error {
	switch op.kind {
	case store.OpPut:
		return w.put(old, op.item)
	case store.OpDelete:
		return w.delete(old)
	case store.OpUpdate:
		it, err := applyUpdate(old, op.update)
		if err != nil {
			return err
		}
		return w.put(old, it)
	}
	return nil // OpCheck
}

func prepareOps(ops []store.Op) ([]txOp, error) {
	if len(ops) == 0 || len(ops) > store.MaxTransactItems {
		return nil, fmt.Errorf("%w: %d actions (1 to %d)", store.ErrInvalid, len(ops), store.MaxTransactItems)
	}
	out := make([]txOp, len(ops))
	seen := make(map[store.Key]int, len(ops))
	size := 0
	for i, op := range ops {
		p, n, err := prepareOp(op)
		if err != nil {
			return nil, fmt.Errorf("op %d: %w", i, err)
		}
		if j, dup := seen[p.key]; dup {
			return nil, fmt.Errorf("%w: ops %d and %d both touch %s", store.ErrInvalid, j, i, p.key)
		}
		seen[p.key] = i
		out[i] = p
		size += n
	}
	if size > store.MaxTransactBytes {
		return nil, fmt.Errorf("%w: transaction of about %d bytes is over %d", store.ErrInvalid, size, store.MaxTransactBytes)
	}
	return out, nil
}

// prepareOp checks one op and returns it with about the bytes it adds to the request.
func prepareOp(op store.Op) (txOp, int, error) {
	p := txOp{kind: op.Kind}
	var err error
	switch op.Kind {
	case store.OpPut:
		if p.item, err = prepareItem(op.Item); err == nil {
			err = checkStored(p.item)
		}
		p.key = op.Item.Key()
	case store.OpDelete, store.OpCheck:
		p.key = op.Key
		err = checkKey(op.Key)
		if err == nil && op.Kind == store.OpCheck && len(op.Conds) == 0 {
			err = fmt.Errorf("%w: a check needs a condition", store.ErrInvalid)
		}
	case store.OpUpdate:
		if len(op.Conds) > 0 {
			return txOp{}, 0, fmt.Errorf("%w: the conditions of an update go in Update.Conds", store.ErrInvalid)
		}
		p.update, err = prepareUpdate(op.Update)
		p.key, p.conds = op.Update.Key, p.update.conds
	default:
		err = fmt.Errorf("%w: unknown op kind %d", store.ErrInvalid, op.Kind)
	}
	if err != nil {
		return txOp{}, 0, err
	}
	if op.Kind != store.OpUpdate {
		if p.conds, err = prepareConds(op.Conds); err != nil {
			return txOp{}, 0, err
		}
	}
	size := len(p.key.PK) + len(p.key.SK)
	if p.item != nil {
		size = store.ItemSize(p.item)
	}
	if p.update.set != nil {
		size += store.ItemSize(p.update.set)
	}
	return p, size, nil
}
