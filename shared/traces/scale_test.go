package traces

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
)

// itemCounter counts the items the queries through it return.
type itemCounter struct {
	store.Table
	items atomic.Int64
}

func (c *itemCounter) Query(ctx context.Context, q store.Query) (store.Page, error) {
	p, err := c.Table.Query(ctx, q)
	c.items.Add(int64(len(p.Items)))
	return p, err
}

var scaleDay = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// bulkRollups writes the roll-ups of perMinute traces a minute for a day, as ingestion would
// leave them, split over three models, and a run summary of that many traces; it returns the
// number of traces.
func bulkRollups(t testing.TB, tbl store.Table, run store.Run, perMinute int64) int64 {
	ctx := context.Background()
	models := []string{"gpt-4o", "claude", "llama"}
	var items []store.Item
	var total int64
	for m := range 24 * 60 {
		minute := scaleDay.Add(time.Duration(m) * time.Minute)
		lat := 100.0 + float64(m%7)
		all := store.Rollup{Minute: minute, Group: store.RollupAll, Count: perMinute}
		lv, _ := fixed.FromFloat(lat)
		lm := all.Metric(records.MetricLatency)
		lm.N, lm.Sum, lm.Min, lm.Max = perMinute, mulFixed(lv, perMinute), &lv, &lv
		items = append(items, store.RollupItem(run.ID, all))
		for i, model := range models {
			n := perMinute / 3
			if i == 0 {
				n += perMinute % 3
			}
			g := store.Rollup{Minute: minute, Group: "model", Value: model, Count: n}
			items = append(items, store.RollupItem(run.ID, g))
		}
		total += perMinute
	}
	// The hourly totals, as ingestion would also leave them.
	for h := range 24 {
		hour := store.Rollup{Level: store.RollupHour, Minute: scaleDay.Add(time.Duration(h) * time.Hour), Group: store.RollupAll, Count: 60 * perMinute}
		items = append(items, store.RollupItem(run.ID, hour))
	}
	if err := tbl.BatchWrite(ctx, items, nil); err != nil {
		t.Fatal(err)
	}
	if err := store.AddToRunSummary(ctx, tbl, run.ID, store.RunSummary{RunID: run.ID, NumTraces: total}, scaleDay); err != nil {
		t.Fatal(err)
	}
	return total
}

func scaleRun(t testing.TB, tbl store.Table) store.Run {
	ctx := context.Background()
	orgID, pid, lsid := "org-scale", "50000000-0000-4000-8000-000000000001", "50000000-0000-4000-8000-000000000002"
	if err := store.CreateProject(ctx, tbl, store.Project{ID: pid, OrgID: orgID, Name: "scale"}); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateLogStream(ctx, tbl, store.LogStream{ID: lsid, ProjectID: pid, OrgID: orgID, Name: "ls"}); err != nil {
		t.Fatal(err)
	}
	run, err := store.GetRun(ctx, tbl, orgID, pid, lsid)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func dayQuery(t testing.TB, run store.Run, extra string) searchRequest {
	body := `{"start_time":"2026-03-01T00:00:00Z","end_time":"2026-03-02T00:00:00Z","interval":5,"log_stream_id":"` + run.ID + `"` + extra + `}`
	raw, jerr := validateJSON(body)
	if jerr != nil {
		t.Fatal(jerr)
	}
	errs := newValidateErrors()
	q := readSearch(errs, raw, true)
	if err := errs.Err(); err != nil {
		t.Fatal(err)
	}
	if err := checkColumns(run, q, raw); err != nil {
		t.Fatal(err)
	}
	return q
}

// TestDayOfAMillionTracesReadsRollupsOnly: a 24-hour query over a million traces without
// filters reads one roll-up item per minute, whatever the number of traces.
func TestDayOfAMillionTracesReadsRollupsOnly(t *testing.T) {
	base := testenv.Embedded(t)
	run := scaleRun(t, base)
	total := bulkRollups(t, base, run, 695) // 1,000,800 traces
	ic := &itemCounter{Table: base}
	counted := storecount.New(ic)
	for _, tc := range []struct {
		extra     string
		maxItems  int64
		wantCount float64
		group     string
	}{
		{``, 1440, float64(total), ""},
		{`,"interval":60`, 24, float64(total), ""},
		{`,"group_by":"model"`, 3 * 1440, float64((695/3 + 695%3) * 1440), "gpt-4o"},
		{`,"filters":[{"type":"text","name":"model","operator":"one_of","value":["claude","llama"]}]`, 3 * 1440, float64(695 / 3 * 2 * 1440), ""},
	} {
		counted.Reset()
		ic.items.Store(0)
		start := time.Now()
		res, err := runSearch(t.Context(), counted, run, dayQuery(t, run, tc.extra), DefaultScanBound)
		if err != nil {
			t.Fatal(err)
		}
		elapsed := time.Since(start)
		b, _ := json.Marshal(res.AggregateMetrics["count"])
		var count any
		_ = json.Unmarshal(b, &count)
		if tc.group != "" {
			count = count.(map[string]any)[tc.group]
		}
		if count != tc.wantCount || (len(res.BucketedMetrics["count"]) != 288 && len(res.BucketedMetrics["count"]) != 24) {
			t.Errorf("%s: count %v, want %v; %d buckets", tc.extra, count, tc.wantCount, len(res.BucketedMetrics["count"]))
		}
		if ic.items.Load() > tc.maxItems || counted.Snapshot().Calls["Query"] > 100 {
			t.Errorf("%s: read %d items in %v", tc.extra, ic.items.Load(), counted.Snapshot())
		}
		t.Logf("%s: %d items, %v, %v", tc.extra, ic.items.Load(), counted.Snapshot(), elapsed)
	}
}

// TestTooWideScanAtScale: a filtered day over a million traces, past a bound of 500,000,
// answers 422 from the summary and the 24 hourly roll-up totals, without reading a trace.
func TestTooWideScanAtScale(t *testing.T) {
	base := testenv.Embedded(t)
	run := scaleRun(t, base)
	bulkRollups(t, base, run, 695)
	ic := &itemCounter{Table: base}
	start := time.Now()
	_, err := runSearch(t.Context(), ic, run, dayQuery(t, run, `,"filters":[{"type":"text","name":"input","operator":"contains","value":"x"}]`), 500_000)
	if err == nil || time.Since(start) > 2*time.Second || ic.items.Load() > 24 {
		t.Fatalf("err %v after %v and %d items", err, time.Since(start), ic.items.Load())
	}
	// A narrow hour of the same run is under the bound and is scanned.
	q := dayQuery(t, run, `,"filters":[{"type":"text","name":"input","operator":"contains","value":"x"}]`)
	q.end = q.start.Add(time.Hour)
	if _, err := runSearch(t.Context(), ic, run, q, 500_000); err != nil {
		t.Fatalf("narrow query: %v", err)
	}
}

// mulFixed is v times n, by repeated doubling (exact).
func mulFixed(v fixed.Value, n int64) fixed.Value {
	var out fixed.Value
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			out = out.MustAdd(v)
		}
		v = v.MustAdd(v)
	}
	return out
}
