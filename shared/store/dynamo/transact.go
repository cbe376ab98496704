package dynamo

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

// Transact applies ops all or nothing with TransactWriteItems. A canceled transaction
// returns a *store.TxCanceledError with one reason per action, in the order of ops.
func (t *Table) Transact(ctx context.Context, ops []store.Op) error {
	items, err := t.transactItems(ops)
	if err != nil {
		return fmt.Errorf("dynamo: transact: %w", err)
	}
	// One token for the call: awscall's retries send the same body, token included (the SDK
	// fills it the same way).
	token := rand.Text()
	if err := t.transactWriteItems(ctx, &TransactWriteItemsInput{TransactItems: items, ClientRequestToken: &token}); err != nil {
		return mapErr(fmt.Sprintf("transact (%d actions)", len(ops)), err)
	}
	return nil
}

// transactItems converts ops, refusing before sending what DynamoDB refuses: no action or
// more than 100, two actions on one key, more than 4 MB of items.
func (t *Table) transactItems(ops []store.Op) ([]types.TransactWriteItem, error) {
	if len(ops) == 0 || len(ops) > store.MaxTransactItems {
		return nil, fmt.Errorf("%w: %d actions (1 to %d)", store.ErrInvalid, len(ops), store.MaxTransactItems)
	}
	var (
		items = make([]types.TransactWriteItem, 0, len(ops))
		seen  = make(map[store.Key]int, len(ops))
		bytes int
	)
	for i, op := range ops {
		item, key, size, err := t.transactItem(op)
		if err != nil {
			return nil, fmt.Errorf("action %d: %w", i, err)
		}
		if j, dup := seen[key]; dup {
			return nil, fmt.Errorf("%w: actions %d and %d both touch %s", store.ErrInvalid, j, i, key)
		}
		seen[key] = i
		if bytes += size; bytes > store.MaxTransactBytes {
			return nil, fmt.Errorf("%w: transaction larger than %d bytes", store.ErrInvalid, store.MaxTransactBytes)
		}
		items = append(items, item)
	}
	return items, nil
}

// transactItem converts one action and returns the key it touches and its size.
func (t *Table) transactItem(op store.Op) (types.TransactWriteItem, store.Key, int, error) {
	switch op.Kind {
	case store.OpPut:
		in, err := t.putInput(op.Item, op.Conds)
		if err != nil {
			return types.TransactWriteItem{}, store.Key{}, 0, err
		}
		return types.TransactWriteItem{Put: &types.Put{
			TableName:                 in.TableName,
			Item:                      in.Item,
			ConditionExpression:       in.ConditionExpression,
			ExpressionAttributeNames:  in.ExpressionAttributeNames,
			ExpressionAttributeValues: in.ExpressionAttributeValues,
		}}, op.Item.Key(), store.ItemSize(op.Item), nil
	case store.OpUpdate:
		if len(op.Conds) > 0 {
			return types.TransactWriteItem{}, store.Key{}, 0, fmt.Errorf("%w: the conditions of an update go in Update.Conds", store.ErrInvalid)
		}
		u, err := t.updateInput(op.Update)
		if err != nil {
			return types.TransactWriteItem{}, store.Key{}, 0, err
		}
		return types.TransactWriteItem{Update: u}, op.Update.Key, store.ItemSize(store.Item(op.Update.Set)), nil
	case store.OpDelete, store.OpCheck:
		k, err := keyAV(op.Key)
		if err != nil {
			return types.TransactWriteItem{}, store.Key{}, 0, err
		}
		e := newExprs()
		cond, err := e.condition(op.Conds)
		if err != nil {
			return types.TransactWriteItem{}, store.Key{}, 0, err
		}
		if op.Kind == store.OpDelete {
			return types.TransactWriteItem{Delete: &types.Delete{
				TableName:                 aws.String(t.name),
				Key:                       k,
				ConditionExpression:       optional(cond),
				ExpressionAttributeNames:  e.attrNames(),
				ExpressionAttributeValues: e.attrValues(),
			}}, op.Key, 0, nil
		}
		if cond == "" {
			return types.TransactWriteItem{}, store.Key{}, 0, fmt.Errorf("%w: check of %s without a condition", store.ErrInvalid, op.Key)
		}
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName:                 aws.String(t.name),
			Key:                       k,
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeNames:  e.attrNames(),
			ExpressionAttributeValues: e.attrValues(),
		}}, op.Key, 0, nil
	}
	return types.TransactWriteItem{}, store.Key{}, 0, fmt.Errorf("%w: unknown action kind %d", store.ErrInvalid, op.Kind)
}
