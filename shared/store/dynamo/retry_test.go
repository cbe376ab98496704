package dynamo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

func newFakeTable(f *fakeAPI) *Table {
	t := New(f, "tbl")
	t.retry = backoff{base: time.Microsecond, max: time.Millisecond, tries: 5}
	return t
}

func items(n int) []store.Item {
	out := make([]store.Item, n)
	for i := range out {
		out[i] = store.Item{"PK": "P", "SK": store.Pad(int64(i), 4)}
	}
	return out
}

func skOf(m map[string]types.AttributeValue) string {
	return m["SK"].(*types.AttributeValueMemberS).Value
}

// TestBatchWriteRetriesUnprocessed has the fake leave half of every first attempt
// unprocessed: every item must still be written exactly once, in requests of at most 25.
func TestBatchWriteRetriesUnprocessed(t *testing.T) {
	written := map[string]int{}
	retried := map[string]bool{}
	f := &fakeAPI{batchWrite: func(in *BatchWriteItemInput) (*BatchWriteItemOutput, error) {
		reqs := in.RequestItems["tbl"]
		if len(reqs) > store.MaxBatchWrite {
			t.Fatalf("request of %d items", len(reqs))
		}
		var left []types.WriteRequest
		for i, r := range reqs {
			sk := skOf(r.PutRequest.Item)
			if i%2 == 0 && !retried[sk] {
				retried[sk] = true
				left = append(left, r)
				continue
			}
			written[sk]++
		}
		out := &BatchWriteItemOutput{}
		if left != nil {
			out.UnprocessedItems = map[string][]types.WriteRequest{"tbl": left}
		}
		return out, nil
	}}
	if err := newFakeTable(f).BatchWrite(t.Context(), items(60), nil); err != nil {
		t.Fatal(err)
	}
	if len(written) != 60 {
		t.Errorf("%d distinct items written, want 60", len(written))
	}
	for sk, n := range written {
		if n != 1 {
			t.Errorf("%s written %d times", sk, n)
		}
	}
	if f.calls != 6 { // 25+25+10, each once more for its unprocessed half
		t.Errorf("%d calls, want 6", f.calls)
	}
}

func TestBatchGetRetriesUnprocessed(t *testing.T) {
	f := &fakeAPI{}
	retried := map[string]bool{}
	f.batchGet = func(in *BatchGetItemInput) (*BatchGetItemOutput, error) {
		keys := in.RequestItems["tbl"].Keys
		if len(keys) > store.MaxBatchGet {
			t.Fatalf("request of %d keys", len(keys))
		}
		out := &BatchGetItemOutput{Responses: map[string][]store.Item{}}
		var left []map[string]types.AttributeValue
		for _, k := range keys {
			if sk := skOf(k); !retried[sk] && len(left) < 10 {
				retried[sk] = true
				left = append(left, k)
				continue
			}
			it, err := toItem(k)
			if err != nil {
				t.Fatal(err)
			}
			out.Responses["tbl"] = append(out.Responses["tbl"], it)
		}
		if left != nil {
			out.UnprocessedKeys = map[string]types.KeysAndAttributes{"tbl": {Keys: left}}
		}
		return out, nil
	}
	var keys []store.Key
	for _, it := range items(250) {
		keys = append(keys, it.Key())
	}
	got, err := newFakeTable(f).BatchGet(t.Context(), keys, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 250 {
		t.Errorf("%d items, want 250", len(got))
	}
	if f.calls != 6 { // 100+100+50, each once more for 10 unprocessed keys
		t.Errorf("%d calls, want 6", f.calls)
	}
}

func alwaysUnprocessed(in *BatchWriteItemInput) (*BatchWriteItemOutput, error) {
	return &BatchWriteItemOutput{UnprocessedItems: in.RequestItems}, nil
}

func TestBatchRetryBoundedByContext(t *testing.T) {
	tbl := New(&fakeAPI{batchWrite: alwaysUnprocessed}, "tbl") // real delays: the deadline ends it
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := tbl.BatchWrite(ctx, items(3), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned after %v, long past the deadline", d)
	}
}

func TestBatchRetryGivesUpWithoutProgress(t *testing.T) {
	f := &fakeAPI{batchWrite: alwaysUnprocessed}
	err := newFakeTable(f).BatchWrite(t.Context(), items(3), nil)
	if !errors.Is(err, store.ErrThrottled) {
		t.Fatalf("err = %v, want ErrThrottled", err)
	}
	if f.calls != 6 { // the first attempt and 5 retries
		t.Errorf("%d calls, want 6", f.calls)
	}
}

func TestBatchRefusesDuplicateKeys(t *testing.T) {
	f := &fakeAPI{batchWrite: alwaysUnprocessed}
	it := items(1)[0]
	err := newFakeTable(f).BatchWrite(t.Context(), []store.Item{it}, []store.Key{it.Key()})
	if !errors.Is(err, store.ErrInvalid) || f.calls != 0 {
		t.Errorf("BatchWrite: err = %v after %d calls, want ErrInvalid before any", err, f.calls)
	}
	_, err = newFakeTable(f).BatchGet(t.Context(), []store.Key{it.Key(), it.Key()}, false)
	if !errors.Is(err, store.ErrInvalid) || f.calls != 0 {
		t.Errorf("BatchGet: err = %v after %d calls, want ErrInvalid before any", err, f.calls)
	}
}

// BatchGet's consistent flag reaches DynamoDB as ConsistentRead, on every request of the
// split, retries of unprocessed keys included.
func TestBatchGetConsistentRead(t *testing.T) {
	for _, consistent := range []bool{false, true} {
		var seen []bool
		f := &fakeAPI{batchGet: func(in *BatchGetItemInput) (*BatchGetItemOutput, error) {
			ka := in.RequestItems["tbl"]
			seen = append(seen, ka.ConsistentRead != nil && *ka.ConsistentRead)
			return &BatchGetItemOutput{Responses: map[string][]store.Item{}}, nil
		}}
		var keys []store.Key
		for _, it := range items(150) {
			keys = append(keys, it.Key())
		}
		if _, err := newFakeTable(f).BatchGet(t.Context(), keys, consistent); err != nil {
			t.Fatal(err)
		}
		if len(seen) != 2 || seen[0] != consistent || seen[1] != consistent {
			t.Errorf("consistent=%v: requests asked ConsistentRead %v", consistent, seen)
		}
	}
}
