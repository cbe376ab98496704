package secrets_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evalobs/evalapi/shared/secrets"
)

// counting is a Memory that counts Gets and, when gate is set, holds each Get until gate
// yields (or closes); entered, when set, hears of each Get that has read its value.
type counting struct {
	*secrets.Memory
	gets    atomic.Int32
	entered chan struct{} // receives once per Get that reached the store, when not nil
	gate    chan struct{}
}

func (c *counting) Get(ctx context.Context, ref string) ([]byte, error) {
	c.gets.Add(1)
	// Read first, then wait: a slow reply carries the value as it was when read.
	v, err := c.Memory.Get(ctx, ref)
	if c.entered != nil {
		c.entered <- struct{}{}
	}
	if c.gate != nil {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return nil, fmt.Errorf("counting: get: %w", ctx.Err())
		}
	}
	return v, err
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestCached(t *testing.T) {
	const ttl = 5 * time.Minute
	type step struct {
		op      string // get, put, delete, advance
		value   string // put: the value; get: the value expected ("" = ErrNotFound)
		advance time.Duration
	}
	for _, tc := range []struct {
		name      string
		steps     []step
		wantCalls int32
	}{
		{"hit", []step{{op: "get", value: "v1"}, {op: "get", value: "v1"}, {op: "get", value: "v1"}}, 1},
		{"hit just before expiry", []step{{op: "get", value: "v1"}, {op: "advance", advance: ttl - time.Nanosecond}, {op: "get", value: "v1"}}, 1},
		{"miss at expiry", []step{{op: "get", value: "v1"}, {op: "advance", advance: ttl}, {op: "get", value: "v1"}}, 2},
		{"expired entry refreshed then cached", []step{{op: "get", value: "v1"}, {op: "advance", advance: 2 * ttl}, {op: "get", value: "v1"}, {op: "get", value: "v1"}}, 2},
		{"put invalidates", []step{{op: "get", value: "v1"}, {op: "put", value: "v2"}, {op: "get", value: "v2"}, {op: "get", value: "v2"}}, 2},
		{"delete invalidates", []step{{op: "get", value: "v1"}, {op: "delete"}, {op: "get"}}, 2},
		{"not found is not cached", []step{{op: "delete"}, {op: "get"}, {op: "get"}, {op: "put", value: "v3"}, {op: "get", value: "v3"}}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			under := &counting{Memory: secrets.NewMemory()}
			clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			c := secrets.Cached(under, ttl, secrets.WithClock(clk.Now))
			ref, err := c.Put(ctx, "integration", []byte("v1"), nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range tc.steps {
				switch s.op {
				case "get":
					got, err := c.Get(ctx, ref)
					if s.value == "" {
						if !errors.Is(err, secrets.ErrNotFound) {
							t.Fatalf("step %d: Get = %q, %v; want ErrNotFound", i, got, err)
						}
					} else if err != nil || string(got) != s.value {
						t.Fatalf("step %d: Get = %q, %v; want %q", i, got, err, s.value)
					}
				case "put":
					if _, err := c.Put(ctx, "integration", []byte(s.value), nil); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
				case "delete":
					if err := c.Delete(ctx, ref); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
				case "advance":
					clk.Advance(s.advance)
				}
			}
			if got := under.gets.Load(); got != tc.wantCalls {
				t.Errorf("underlying Gets = %d, want %d", got, tc.wantCalls)
			}
		})
	}
}

func TestCachedNoTTL(t *testing.T) {
	under := &counting{Memory: secrets.NewMemory()}
	c := secrets.Cached(under, 0)
	ref, _ := c.Put(t.Context(), "n", []byte("v"), nil)
	for range 3 {
		if _, err := c.Get(t.Context(), ref); err != nil {
			t.Fatal(err)
		}
	}
	if got := under.gets.Load(); got != 3 {
		t.Errorf("underlying Gets = %d, want 3 (ttl 0 caches nothing)", got)
	}
}

func TestCachedSharesConcurrentGets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		under := &counting{Memory: secrets.NewMemory(), gate: make(chan struct{})}
		c := secrets.Cached(under, time.Minute)
		ref, _ := c.Put(t.Context(), "n", []byte("v"), nil)

		const callers = 10
		results := make(chan string, callers)
		for range callers {
			go func() {
				got, err := c.Get(t.Context(), ref)
				if err != nil {
					t.Error(err)
				}
				results <- string(got)
			}()
		}
		synctest.Wait() // every caller is blocked: one in the store, the others on its call
		if got := under.gets.Load(); got != 1 {
			t.Fatalf("underlying Gets under way = %d, want 1", got)
		}
		close(under.gate)
		for range callers {
			if got := <-results; got != "v" {
				t.Errorf("Get = %q", got)
			}
		}
		if got := under.gets.Load(); got != 1 {
			t.Errorf("underlying Gets = %d, want 1", got)
		}
	})
}

func TestCachedLeaderCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		under := &counting{Memory: secrets.NewMemory(), gate: make(chan struct{})}
		c := secrets.Cached(under, time.Minute)
		ref, _ := c.Put(t.Context(), "n", []byte("v"), nil)

		leaderCtx, cancel := context.WithCancel(t.Context())
		leaderErr := make(chan error, 1)
		go func() {
			_, err := c.Get(leaderCtx, ref)
			leaderErr <- err
		}()
		synctest.Wait()
		follower := make(chan string, 1)
		go func() {
			got, err := c.Get(t.Context(), ref)
			if err != nil {
				t.Errorf("follower: %v", err)
			}
			follower <- string(got)
		}()
		synctest.Wait()
		cancel()
		if err := <-leaderErr; !errors.Is(err, context.Canceled) {
			t.Fatalf("leader: %v, want context.Canceled", err)
		}
		synctest.Wait() // the follower took the lead and waits in the store
		close(under.gate)
		if got := <-follower; got != "v" {
			t.Errorf("follower got %q", got)
		}
		if got := under.gets.Load(); got != 2 {
			t.Errorf("underlying Gets = %d, want 2", got)
		}
	})
}

func TestCachedFollowerCanceled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		under := &counting{Memory: secrets.NewMemory(), gate: make(chan struct{})}
		c := secrets.Cached(under, time.Minute)
		ref, _ := c.Put(t.Context(), "n", []byte("v"), nil)

		go func() { _, _ = c.Get(t.Context(), ref) }()
		synctest.Wait()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if _, err := c.Get(ctx, ref); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("follower with a deadline: %v, want DeadlineExceeded", err)
		}
		close(under.gate)
	})
}

// A Get that read the old value before a Put must not fill the cache with it after the Put.
func TestCachedPutDuringGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		under := &counting{Memory: secrets.NewMemory(), entered: make(chan struct{}, 1), gate: make(chan struct{})}
		c := secrets.Cached(under, time.Hour)
		ref, _ := c.Put(t.Context(), "n", []byte("old"), nil)

		stale := make(chan string, 1)
		go func() {
			got, _ := c.Get(t.Context(), ref)
			stale <- string(got)
		}()
		<-under.entered // the Get has read "old" and is on its way back
		if _, err := c.Put(t.Context(), "n", []byte("new"), nil); err != nil {
			t.Fatal(err)
		}
		close(under.gate)
		if got := <-stale; got != "old" {
			t.Fatalf("the Get under way returned %q, want old (it read before the Put)", got)
		}
		under.entered, under.gate = nil, nil
		for range 2 {
			if got, err := c.Get(t.Context(), ref); err != nil || string(got) != "new" {
				t.Fatalf("Get after Put = %q, %v; want new", got, err)
			}
		}
	})
}

func TestCachedPanickingStore(t *testing.T) {
	c := secrets.Cached(panicky{}, time.Minute)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic not propagated to the caller that made the call")
			}
		}()
		_, _ = c.Get(t.Context(), "x")
	}()
	// The call was cleaned up: the next Get makes a call of its own (and panics again).
	func() {
		defer func() { _ = recover() }()
		_, _ = c.Get(t.Context(), "x")
	}()
}

type panicky struct{ secrets.Store }

func (panicky) Get(context.Context, string) ([]byte, error) { panic("boom") }

func TestCachedConcurrent(t *testing.T) {
	c := secrets.Cached(secrets.NewMemory(), time.Millisecond)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			name := fmt.Sprintf("n%d", i%4)
			for j := range 200 {
				switch j % 5 {
				case 0:
					if _, err := c.Put(t.Context(), name, []byte(fmt.Sprint(j)), nil); err != nil {
						t.Error(err)
					}
				case 4:
					if err := c.Delete(t.Context(), name); err != nil {
						t.Error(err)
					}
				default:
					if _, err := c.Get(t.Context(), name); err != nil && !errors.Is(err, secrets.ErrNotFound) {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
}
