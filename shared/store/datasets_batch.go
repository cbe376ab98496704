package store

import (
	"context"
	"fmt"
	"sync"
)

// Batched reads and writes of many dataset items. The port's BatchWrite sends its requests
// of 25 one after another; a dataset of tens of thousands of rows would take seconds that
// way, so large writes go out as several BatchWrite calls at once.

const (
	// datasetWriteChunk items go in one BatchWrite call (eight requests of 25).
	datasetWriteChunk = 8 * MaxBatchWrite
	// datasetWorkers is how many calls run at once: enough to hide round trips, few enough
	// not to throttle a single partition.
	datasetWorkers = 8
)

// datasetParallel runs fn(ctx, i) for i in [0, n) on at most workers goroutines and returns
// the first error; the others see ctx canceled once one failed.
func datasetParallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	if n == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		once  sync.Once
		first error
	)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// datasetPutAll writes items in parallel chunks, without conditions.
func datasetPutAll(ctx context.Context, t Table, items []Item) error {
	n := (len(items) + datasetWriteChunk - 1) / datasetWriteChunk
	return datasetParallel(ctx, n, datasetWorkers, func(ctx context.Context, i int) error {
		chunk := items[i*datasetWriteChunk : min((i+1)*datasetWriteChunk, len(items))]
		if err := t.BatchWrite(ctx, chunk, nil); err != nil {
			return fmt.Errorf("write dataset items: %w", err)
		}
		return nil
	})
}

// datasetDeleteAll deletes keys in parallel chunks.
func datasetDeleteAll(ctx context.Context, t Table, keys []Key) error {
	n := (len(keys) + datasetWriteChunk - 1) / datasetWriteChunk
	return datasetParallel(ctx, n, datasetWorkers, func(ctx context.Context, i int) error {
		chunk := keys[i*datasetWriteChunk : min((i+1)*datasetWriteChunk, len(keys))]
		if err := t.BatchWrite(ctx, nil, chunk); err != nil {
			return fmt.Errorf("delete dataset items: %w", err)
		}
		return nil
	})
}

// datasetGetAll reads the items of keys (absent ones are left out) with one batch read,
// strongly consistent when asked.
func datasetGetAll(ctx context.Context, t Table, keys []Key, consistent bool) ([]Item, error) {
	items, err := t.BatchGet(ctx, keys, consistent)
	if err != nil {
		return nil, fmt.Errorf("read dataset items: %w", err)
	}
	return items, nil
}
