// Package dynamo is the DynamoDB adapter of store.Table, over the AWS SDK for Go v2.
//
// It checks before sending what DynamoDB refuses and an emulator may let pass (item and
// transaction sizes, duplicate keys in one request, key lengths and index key types, cursors
// outside the query), and splits batches at the service limits itself, so that it answers as
// the embedded adapter does whichever endpoint it talks to. Reads are strongly consistent
// only where the port asks (Get, Query); BatchGet reads eventually consistently.
package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

// API sends one operation of DynamoDB's JSON protocol: in is encoded as the request, the
// answer decoded into out (nil: ignored), and a refusal is an error with the service's code
// (ErrorCode). *awscall.JSON implements it.
type API interface {
	Call(ctx context.Context, op string, in, out any) error
}

var _ store.Table = (*Table)(nil)

// Table is the store.Table of one DynamoDB table shaped as store.TableSchema.
type Table struct {
	api   API
	name  string
	retry backoff
}

// New returns the adapter of the table called name.
func New(api API, name string) *Table {
	return &Table{api: api, name: name, retry: backoff{base: 50 * time.Millisecond, max: 2 * time.Second, tries: 10}}
}

// Get reads one item.
func (t *Table) Get(ctx context.Context, key store.Key, consistent bool) (store.Item, error) {
	k, err := keyAV(key)
	if err != nil {
		return nil, fmt.Errorf("dynamo: get: %w", err)
	}
	out, err := t.getItem(ctx, &GetItemInput{
		TableName:      aws.String(t.name),
		Key:            k,
		ConsistentRead: aws.Bool(consistent),
	})
	if err != nil {
		return nil, mapErr("get "+key.String(), err)
	}
	if out.Item == nil {
		return nil, fmt.Errorf("dynamo: get %s: %w", key, store.ErrNotFound)
	}
	return out.Item, nil
}

// Put writes a whole item.
func (t *Table) Put(ctx context.Context, item store.Item, conds ...store.Cond) error {
	in, err := t.putInput(item, conds)
	if err != nil {
		return fmt.Errorf("dynamo: put %s: %w", item.Key(), err)
	}
	if err := t.putItem(ctx, in); err != nil {
		return mapErr("put "+item.Key().String(), err)
	}
	return nil
}

func (t *Table) putInput(item store.Item, conds []store.Cond) (*PutItemInput, error) {
	av, err := itemAV(item)
	if err != nil {
		return nil, err
	}
	e := newExprs()
	cond, err := e.condition(conds)
	if err != nil {
		return nil, err
	}
	return &PutItemInput{
		TableName:                 aws.String(t.name),
		Item:                      av,
		ConditionExpression:       optional(cond),
		ExpressionAttributeNames:  e.attrNames(),
		ExpressionAttributeValues: e.attrValues(),
	}, nil
}

// Delete removes one item.
func (t *Table) Delete(ctx context.Context, key store.Key, conds ...store.Cond) error {
	k, err := keyAV(key)
	if err != nil {
		return fmt.Errorf("dynamo: delete: %w", err)
	}
	e := newExprs()
	cond, err := e.condition(conds)
	if err != nil {
		return fmt.Errorf("dynamo: delete %s: %w", key, err)
	}
	err = t.deleteItem(ctx, &DeleteItemInput{
		TableName:                 aws.String(t.name),
		Key:                       k,
		ConditionExpression:       optional(cond),
		ExpressionAttributeNames:  e.attrNames(),
		ExpressionAttributeValues: e.attrValues(),
	})
	if err != nil {
		return mapErr("delete "+key.String(), err)
	}
	return nil
}

// Update applies u and returns the whole item as it is afterwards.
func (t *Table) Update(ctx context.Context, u store.Update) (store.Item, error) {
	in, err := t.updateInput(u)
	if err != nil {
		return nil, fmt.Errorf("dynamo: update %s: %w", u.Key, err)
	}
	out, err := t.updateItem(ctx, &UpdateItemInput{
		TableName:                 in.TableName,
		Key:                       in.Key,
		UpdateExpression:          in.UpdateExpression,
		ConditionExpression:       in.ConditionExpression,
		ExpressionAttributeNames:  in.ExpressionAttributeNames,
		ExpressionAttributeValues: in.ExpressionAttributeValues,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		return nil, mapErr("update "+u.Key.String(), err)
	}
	return out.Attributes, nil
}

// updateInput builds the parts of an update shared by UpdateItem and a transaction's Update.
func (t *Table) updateInput(u store.Update) (*types.Update, error) {
	k, err := keyAV(u.Key)
	if err != nil {
		return nil, err
	}
	// Only the new values can be measured without a read; DynamoDB measures the whole
	// result and answers a ValidationException that maps to ErrTooLarge as well.
	if size := store.ItemSize(store.Item(u.Set)); size > store.MaxItemBytes {
		return nil, fmt.Errorf("%w: update sets %d bytes", store.ErrTooLarge, size)
	}
	e := newExprs()
	upd, err := e.update(u)
	if err != nil {
		return nil, err
	}
	cond, err := e.condition(u.Conds)
	if err != nil {
		return nil, err
	}
	return &types.Update{
		TableName:                 aws.String(t.name),
		Key:                       k,
		UpdateExpression:          optional(upd),
		ConditionExpression:       optional(cond),
		ExpressionAttributeNames:  e.attrNames(),
		ExpressionAttributeValues: e.attrValues(),
	}, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
