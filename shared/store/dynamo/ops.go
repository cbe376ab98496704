package dynamo

import "context"

// The operations the adapter makes, each one Call of the API.

func (t *Table) getItem(ctx context.Context, in *GetItemInput) (*GetItemOutput, error) {
	var out GetItemOutput
	return &out, t.api.Call(ctx, "GetItem", in, &out)
}

// PutItem, DeleteItem and TransactWriteItems answer nothing the adapter reads.

func (t *Table) putItem(ctx context.Context, in *PutItemInput) error {
	return t.api.Call(ctx, "PutItem", in, nil)
}

func (t *Table) deleteItem(ctx context.Context, in *DeleteItemInput) error {
	return t.api.Call(ctx, "DeleteItem", in, nil)
}

func (t *Table) updateItem(ctx context.Context, in *UpdateItemInput) (*UpdateItemOutput, error) {
	var out UpdateItemOutput
	return &out, t.api.Call(ctx, "UpdateItem", in, &out)
}

func (t *Table) query(ctx context.Context, in *QueryInput) (*QueryOutput, error) {
	var out QueryOutput
	return &out, t.api.Call(ctx, "Query", in, &out)
}

func (t *Table) batchGetItem(ctx context.Context, in *BatchGetItemInput) (*BatchGetItemOutput, error) {
	var out BatchGetItemOutput
	return &out, t.api.Call(ctx, "BatchGetItem", in, &out)
}

func (t *Table) batchWriteItem(ctx context.Context, in *BatchWriteItemInput) (*BatchWriteItemOutput, error) {
	var out BatchWriteItemOutput
	return &out, t.api.Call(ctx, "BatchWriteItem", in, &out)
}

func (t *Table) transactWriteItems(ctx context.Context, in *TransactWriteItemsInput) error {
	return t.api.Call(ctx, "TransactWriteItems", in, nil)
}
