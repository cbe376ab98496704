package dynamo

import (
	"context"
	"fmt"
	"sync"
)

// fakeAPI answers the calls a test sets a function for; any other call fails the test
// through an error. It records how many calls it got.
type fakeAPI struct {
	mu         sync.Mutex
	batchWrite func(*BatchWriteItemInput) (*BatchWriteItemOutput, error)
	batchGet   func(*BatchGetItemInput) (*BatchGetItemOutput, error)
	query      func(*QueryInput) (*QueryOutput, error)
	calls      int
}

func (f *fakeAPI) Call(_ context.Context, op string, in, out any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	switch op {
	case "BatchWriteItem":
		o, err := f.batchWrite(in.(*BatchWriteItemInput))
		if o != nil {
			*out.(*BatchWriteItemOutput) = *o
		}
		return err
	case "BatchGetItem":
		o, err := f.batchGet(in.(*BatchGetItemInput))
		if o != nil {
			*out.(*BatchGetItemOutput) = *o
		}
		return err
	case "Query":
		o, err := f.query(in.(*QueryInput))
		if o != nil {
			*out.(*QueryOutput) = *o
		}
		return err
	case "PutItem", "TransactWriteItems":
		return nil
	}
	return fmt.Errorf("fakeAPI: unexpected call %s", op)
}
