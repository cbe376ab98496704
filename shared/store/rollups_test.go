package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

func TestRollupRoundTripAndConcurrentAdds(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		minute := time.Date(2026, 1, 1, 10, 7, 0, 0, time.UTC)
		const writers = 8
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := store.Rollup{Minute: minute, Group: "model", Value: "gpt#4o", Count: 2}
				m := d.Metric("lat#ency ms")
				v := fx(float64(w) + 0.5)
				m.Observe(v)
				m.Observe(v)
				d.Metric("tone").Categories = map[string]int64{"calm#1": 1, "true": 1}
				d.Errors = map[int64]store.RollupError{42: {Count: 1, Last: store.ScorerError{Code: 42, Message: "m", Severity: "low"}}}
				errs[w] = store.AddToRollup(ctx, tbl, "run1", d)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		var got []store.Rollup
		err := store.ScanRollups(ctx, tbl, "run1", store.RollupMinute, "model", minute, minute.Add(time.Minute), func(r store.Rollup) error {
			got = append(got, r)
			return nil
		})
		if err != nil || len(got) != 1 {
			t.Fatalf("scan %v %v", got, err)
		}
		r := got[0]
		m := r.Metrics["lat#ency ms"]
		if r.Count != 2*writers || r.Value != "gpt#4o" || !r.Minute.Equal(minute) || m == nil || m.N != 2*writers ||
			m.Sum != fx(2*(28+4)) || *m.Min != fx(0.5) || *m.Max != fx(writers-0.5) {
			t.Fatalf("roll-up %+v metric %+v", r, m)
		}
		if r.Metrics["tone"].Categories["calm#1"] != writers || r.Errors[42].Count != writers || r.Errors[42].Last.Message != "m" {
			t.Fatalf("categories %v errors %v", r.Metrics["tone"].Categories, r.Errors)
		}
		// The next minute and another group column are other items.
		err = store.ScanRollups(ctx, tbl, "run1", store.RollupMinute, "model", minute.Add(time.Minute), minute.Add(2*time.Minute), func(r store.Rollup) error {
			return fmt.Errorf("unexpected %+v", r)
		})
		if err != nil {
			t.Fatal(err)
		}
		// The hour level is another partition.
		err = store.ScanRollups(ctx, tbl, "run1", store.RollupHour, "model", minute.Truncate(time.Hour), minute.Add(time.Hour), func(r store.Rollup) error {
			return fmt.Errorf("unexpected %+v", r)
		})
		if err != nil {
			t.Fatal(err)
		}
		it := store.RollupItem("run1", r)
		back, err := store.ParseRollup(it)
		if err != nil || back.Count != r.Count || *back.Metrics["lat#ency ms"].Max != *m.Max {
			t.Fatalf("RollupItem round trip %+v %v", back, err)
		}
	})
}
