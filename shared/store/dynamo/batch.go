package dynamo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/evalobs/evalapi/shared/store"
)

// BatchGet reads the items of keys in requests of at most 100 keys, retrying unprocessed keys.
// A key asked for twice is ErrInvalid, as in the embedded adapter: DynamoDB refuses
// duplicates in one request, and whether two fall in one request depends on the split.
func (t *Table) BatchGet(ctx context.Context, keys []store.Key, consistent bool) ([]store.Item, error) {
	var (
		seen = make(map[store.Key]bool, len(keys))
		avs  = make([]map[string]types.AttributeValue, 0, len(keys))
	)
	for _, k := range keys {
		if seen[k] {
			return nil, fmt.Errorf("dynamo: batch get: %w: key %s appears twice", store.ErrInvalid, k)
		}
		seen[k] = true
		av, err := keyAV(k)
		if err != nil {
			return nil, fmt.Errorf("dynamo: batch get: %w", err)
		}
		avs = append(avs, av)
	}
	var items []store.Item
	for chunk := range chunks(avs, store.MaxBatchGet) {
		got, err := t.batchGet(ctx, chunk, consistent)
		if err != nil {
			return nil, err
		}
		items = append(items, got...)
	}
	return items, nil
}

func (t *Table) batchGet(ctx context.Context, keys []map[string]types.AttributeValue, consistent bool) ([]store.Item, error) {
	var items []store.Item
	req := map[string]types.KeysAndAttributes{t.name: {Keys: keys, ConsistentRead: aws.Bool(consistent)}}
	wait := t.retry.start()
	for {
		out, err := t.batchGetItem(ctx, &BatchGetItemInput{RequestItems: req})
		if err != nil {
			return nil, mapErr("batch get", err)
		}
		items = append(items, out.Responses[t.name]...)
		left := out.UnprocessedKeys[t.name]
		if len(left.Keys) == 0 {
			return items, nil
		}
		if err := wait(ctx, len(left.Keys) < len(req[t.name].Keys)); err != nil {
			return nil, fmt.Errorf("dynamo: batch get: %d keys unprocessed: %w", len(left.Keys), err)
		}
		req = map[string]types.KeysAndAttributes{t.name: left}
	}
}

// BatchWrite puts and deletes items in requests of at most 25, retrying unprocessed ones. A
// key may appear once per call: within one request DynamoDB refuses it, and across requests
// the outcome would depend on where the split falls.
func (t *Table) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	var (
		seen = make(map[store.Key]bool, len(puts)+len(deletes))
		reqs = make([]types.WriteRequest, 0, len(puts)+len(deletes))
	)
	claim := func(k store.Key) error {
		if seen[k] {
			return fmt.Errorf("dynamo: batch write: %w: key %s appears twice", store.ErrInvalid, k)
		}
		seen[k] = true
		return nil
	}
	for _, it := range puts {
		av, err := itemAV(it)
		if err != nil {
			return fmt.Errorf("dynamo: batch write: put %s: %w", it.Key(), err)
		}
		if err := claim(it.Key()); err != nil {
			return err
		}
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: av}})
	}
	for _, k := range deletes {
		av, err := keyAV(k)
		if err != nil {
			return fmt.Errorf("dynamo: batch write: delete: %w", err)
		}
		if err := claim(k); err != nil {
			return err
		}
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: av}})
	}
	for chunk := range chunks(reqs, store.MaxBatchWrite) {
		if err := t.batchWrite(ctx, chunk); err != nil {
			return err
		}
	}
	return nil
}

func (t *Table) batchWrite(ctx context.Context, reqs []types.WriteRequest) error {
	wait := t.retry.start()
	for {
		out, err := t.batchWriteItem(ctx, &BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{t.name: reqs},
		})
		if err != nil {
			return mapErr("batch write", err)
		}
		left := out.UnprocessedItems[t.name]
		if len(left) == 0 {
			return nil
		}
		if err := wait(ctx, len(left) < len(reqs)); err != nil {
			return fmt.Errorf("dynamo: batch write: %d requests unprocessed: %w", len(left), err)
		}
		reqs = left
	}
}

// chunks yields s in pieces of at most n.
func chunks[E any](s []E, n int) func(yield func([]E) bool) {
	return func(yield func([]E) bool) {
		for len(s) > 0 {
			m := min(n, len(s))
			if !yield(s[:m:m]) {
				return
			}
			s = s[m:]
		}
	}
}

// backoff spaces the retries of unprocessed batch entries: capped exponential delays with
// full jitter (as AWS advises), for at most tries rounds in a row that make no progress, and
// never past the context's end.
type backoff struct {
	base, max time.Duration
	tries     int
}

// start returns the wait of one batch request. progress tells whether the last round got
// some entries through; it resets the delay and the count of idle rounds.
func (b backoff) start() func(ctx context.Context, progress bool) error {
	idle := 0
	return func(ctx context.Context, progress bool) error {
		if progress {
			idle = 0
		}
		if idle >= b.tries {
			return fmt.Errorf("%w: no progress after %d retries", store.ErrThrottled, idle)
		}
		d := min(b.max, b.base<<idle)
		idle++
		timer := time.NewTimer(rand.N(d) + 1)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return nil
		}
	}
}
