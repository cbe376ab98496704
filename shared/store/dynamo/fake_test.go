package dynamo

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// fakeAPI answers the calls a test sets a function for; any other call panics through the
// nil embedded interface. It records the inputs of the batch and transaction calls.
type fakeAPI struct {
	API
	mu         sync.Mutex
	batchWrite func(*dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error)
	batchGet   func(*dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error)
	query      func(*dynamodb.QueryInput) (*dynamodb.QueryOutput, error)
	calls      int
}

func (f *fakeAPI) BatchWriteItem(_ context.Context, in *dynamodb.BatchWriteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.batchWrite(in)
}

func (f *fakeAPI) BatchGetItem(_ context.Context, in *dynamodb.BatchGetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.batchGet(in)
}

func (f *fakeAPI) Query(_ context.Context, in *dynamodb.QueryInput, _ ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.query(in)
}

func (f *fakeAPI) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return &dynamodb.PutItemOutput{}, nil
}

func (f *fakeAPI) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return &dynamodb.TransactWriteItemsOutput{}, nil
}
