package store_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

func TestTraceKeysSortByTime(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := store.TraceKey("r", base.Add(999*time.Millisecond), "z")
	b := store.TraceKey("r", base.Add(time.Second), "a")
	c := store.TraceKey("r", base.Add(time.Second+time.Nanosecond), "a")
	if !(a.SK < b.SK && b.SK < c.SK) || a.PK != "RUN#r" || b.SK != "TRACE#2026-01-01T00:00:01.000000000Z#a" {
		t.Fatalf("keys %v %v %v", a, b, c)
	}
	q := store.TraceRange("r", base.Add(time.Second), base.Add(2*time.Second))
	if !(q.From <= b.SK && b.SK <= q.To) || c.SK > q.To || a.SK >= q.From {
		t.Fatalf("range %+v", q)
	}
}

func TestPutTracesIsIdempotentAndScansInRange(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		f := 0.25
		var trs []store.Trace
		for i := range 5 {
			trs = append(trs, store.Trace{ID: fmt.Sprintf("t%d", i), RunID: "run1", OrgID: "o1", CreatedAt: base.Add(time.Duration(i) * time.Minute),
				Metrics: map[string]store.MetricValue{"m": {Number: &f}, "e": {Error: &store.ScorerError{Code: 7, Message: "x", Severity: "low"}}}})
		}
		written, err := store.PutTraces(ctx, tbl, trs[:3])
		if err != nil || fmt.Sprint(written) != "[true true true]" {
			t.Fatalf("first put %v %v", written, err)
		}
		written, err = store.PutTraces(ctx, tbl, trs)
		if err != nil || fmt.Sprint(written) != "[false false false true true]" {
			t.Fatalf("retry %v %v", written, err)
		}
		var got []string
		err = store.ScanTraces(ctx, tbl, "run1", base.Add(time.Minute), base.Add(4*time.Minute), store.ScanOptions{}, func(tr *store.Trace) error {
			if *tr.Metrics["m"].Number != 0.25 || tr.Metrics["e"].Error.Code != 7 || tr.Spans != nil {
				t.Errorf("trace %+v", tr)
			}
			got = append(got, tr.ID)
			return nil
		})
		if err != nil || fmt.Sprint(got) != "[t1 t2 t3]" {
			t.Fatalf("scan %v %v", got, err)
		}
		it, err := store.RecordItem(ctx, tbl, "o1", "t2")
		var full store.Trace
		if err != nil || store.DecodeTrace(it, &full) != nil || full.ID != "t2" || full.Spans != nil {
			t.Fatalf("trace by id %+v %v", full, err)
		}
		for i, want := range []bool{true, false} {
			ok, err := store.ClaimSession(ctx, tbl, "run1", "s1")
			if err != nil || ok != want {
				t.Fatalf("claim %d: %v %v", i, ok, err)
			}
		}
	})
}

// TestTransientScanMatches: a transient scan shows every trace as a plain one does, though
// it reuses what the traces point to (each is read at its callback, as the contract says).
func TestTransientScanMatches(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var trs []store.Trace
		for i := range 40 {
			lat, cost, tok, code := float64(i)/4, float64(i)/1000, int64(i*3), int64(200+i%3)
			cat, b := fmt.Sprintf("c%d", i%4), i%2 == 0
			sess := fmt.Sprintf("s%d", i%5)
			tr := store.Trace{ID: fmt.Sprintf("t%02d", i), RunID: "run1", OrgID: "o1", CreatedAt: base.Add(time.Duration(i) * time.Second),
				StatusCode: &code, SessionID: &sess, Tags: []string{"a", cat},
				Metrics: map[string]store.MetricValue{"q": {Category: &cat}, "ok": {Bool: &b}}}
			tr.LatencyMs, tr.TotalCost, tr.TotalTokens = &lat, &cost, &tok
			if i%3 == 0 {
				tr.Metrics["bad"] = store.MetricValue{Error: &store.ScorerError{Code: int64(i), Message: "m"}}
				up := tr.CreatedAt.Add(time.Minute)
				tr.UpdatedAt = &up
			}
			if i%7 == 0 {
				tr.Metrics = nil // a header without metrics after one with them
			}
			trs = append(trs, tr)
		}
		if _, err := store.PutTraces(ctx, tbl, trs); err != nil {
			t.Fatal(err)
		}
		scan := func(transient bool) []string {
			var out []string
			err := store.ScanTraces(ctx, tbl, "run1", base, base.Add(time.Hour), store.ScanOptions{Transient: transient}, func(tr *store.Trace) error {
				b, err := json.Marshal(tr)
				out = append(out, string(b))
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		plain, transient := scan(false), scan(true)
		if len(plain) != len(trs) || !slices.Equal(plain, transient) {
			for i := range min(len(plain), len(transient)) {
				if plain[i] != transient[i] {
					t.Fatalf("trace %d:\n plain     %s\n transient %s", i, plain[i], transient[i])
				}
			}
			t.Fatalf("%d plain, %d transient traces", len(plain), len(transient))
		}
	})
}
