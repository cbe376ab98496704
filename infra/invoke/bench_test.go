package main

import (
	"context"
	"testing"
)

// BenchmarkEvents runs every event under events/ through its function's real Lambda handler
// (JSON decode, httpadapter, router, handler, JSON encode) on the embedded in-memory store
// seeded with the fixture: `make bench` keeps the table in docs/bench/latest.txt.
//
// Each event runs twice over: <event>/basic as the file is (HTTP Basic: one argon2id hash per
// request, by design ~35 ms), and <event>/apikey with the fixture admin's API key instead,
// after one warm-up request so the key cache is hot: that one is the handler's own cost.
// Events that do not act as the fixture's admin (unauthenticated, logins) run once, /as-is.
//
// Repeats: every run of an event uses one fixture (a fresh one per event and variant). The
// first request must answer the status of the event's expectation. A read (GET) must answer
// it on every repeat too. A write repeated on the same store may not (a second create of the
// same name, a delete of what is gone): the repeats then measure that answer, and the
// benchmark reports the share of repeats that still answered the expected status as the
// metric "expected/op" (1 for every read). Re-seeding per iteration would measure the seed
// (one argon2id hash) instead of the write.
func BenchmarkEvents(b *testing.B) {
	for _, ev := range perfEvents(b) {
		if _, ok, _ := withAPIKey(ev.raw, "k"); !ok {
			b.Run(ev.name+"/as-is", func(b *testing.B) { benchEvent(b, ev, false) })
			continue
		}
		b.Run(ev.name+"/basic", func(b *testing.B) { benchEvent(b, ev, false) })
		b.Run(ev.name+"/apikey", func(b *testing.B) { benchEvent(b, ev, true) })
	}
}

func benchEvent(b *testing.B, ev perfEvent, apiKey bool) {
	f := newPerfFixture(b, 0)
	defer func() {
		if err := f.close(); err != nil {
			b.Error(err)
		}
	}()
	ctx := context.Background()
	raw := ev.raw
	if apiKey {
		var err error
		if raw, _, err = withAPIKey(ev.raw, f.apiKey); err != nil {
			b.Fatal(err)
		}
		if err := f.warm(ctx); err != nil {
			b.Fatal(err)
		}
	}
	call := newLambdaCall(f.d, ev.fn)
	resp, err := call.invoke(ctx, raw)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != ev.want.StatusCode {
		b.Fatalf("first run: status %d, want %d: %s", resp.StatusCode, ev.want.StatusCode, resp.Body)
	}
	n, expected := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := call.invoke(ctx, raw)
		if err != nil {
			b.Fatal(err)
		}
		n++
		if resp.StatusCode == ev.want.StatusCode {
			expected++
		} else if !ev.mutating() {
			b.Fatalf("repeat of a read: status %d, want %d: %s", resp.StatusCode, ev.want.StatusCode, resp.Body)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(expected)/float64(n), "expected/op")
}
