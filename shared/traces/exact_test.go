package traces

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand"
	"strconv"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
)

// TestExactSumsAtTheBound ingests traces whose latency, tokens, cost and metric values reach
// the accepted bound (|v| <= fixed.Bound, up to nine decimals), on every store backend, and
// holds the metrics search to exact answers: the roll-up path, the scan path and a reference
// computed here with exact rationals (math/big) give the same float64, bit for bit, for
// every aggregate and bucket: sums, averages, minima and maxima.
func TestExactSumsAtTheBound(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		r := rand.New(rand.NewSource(7))
		ctx := t.Context()
		orgID, pid, lsid := "org-exact", "21000000-0000-4000-8000-000000000001", "21000000-0000-4000-8000-000000000002"
		if err := store.CreateProject(ctx, tbl, store.Project{ID: pid, OrgID: orgID, Name: "p"}); err != nil {
			t.Fatal(err)
		}
		ls := store.LogStream{ID: lsid, ProjectID: pid, OrgID: orgID, Name: "ls"}
		if err := store.CreateLogStream(ctx, tbl, ls); err != nil {
			t.Fatal(err)
		}
		sc := []store.ScorerConfig{
			{ID: "e1", Name: ptr("big_avg"), RollUpMethod: ptr("average")},
			{ID: "e2", Name: ptr("big_sum"), RollUpMethod: ptr("sum")},
			{ID: "e3", Name: ptr("big_min"), RollUpMethod: ptr("min")},
			{ID: "e4", Name: ptr("big_max"), RollUpMethod: ptr("max")},
		}
		if _, err := store.SetMetricSettings(ctx, tbl, ls, &sc, nil, propStart); err != nil {
			t.Fatal(err)
		}
		run, err := store.GetRun(ctx, tbl, orgID, pid, lsid)
		if err != nil {
			t.Fatal(err)
		}

		// Each value is the decimal text it was drawn as: the reference adds that text.
		type sent struct {
			minute int
			values map[string]string
		}
		var all []sent
		var traces []store.Trace
		for i := range 120 {
			m := r.Intn(3)
			s := sent{minute: m, values: map[string]string{}}
			tr := store.Trace{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Type: "trace", Name: "n",
				CreatedAt: propStart.Add(time.Duration(m)*time.Minute + time.Duration(r.Intn(59))*time.Second),
				Metrics:   map[string]store.MetricValue{}}
			set := func(name string, text string) float64 {
				f, _ := strconv.ParseFloat(text, 64)
				s.values[name] = text
				return f
			}
			tr.LatencyMs = ptr(set(records.MetricLatency, boundDecimal(r, false)))
			tok := set(records.MetricTotalTokens, boundInteger(r))
			tr.TotalTokens = ptr(int64(tok))
			tr.TotalCost = ptr(set(records.MetricTotalCost, boundDecimal(r, false)))
			for _, name := range []string{"big_avg", "big_sum", "big_min", "big_max"} {
				tr.Metrics[name] = store.MetricValue{Number: ptr(set(name, boundDecimal(r, true)))}
			}
			all = append(all, s)
			traces = append(traces, tr)
		}
		for i := 0; i < len(traces); i += 40 {
			if _, err := records.Ingest(ctx, tbl, run, traces[i:i+40], propStart); err != nil {
				t.Fatal(err)
			}
		}

		// The reference: exact rationals per bucket (minute) and over the range.
		methods := map[string]string{records.MetricLatency: "average", records.MetricTotalTokens: "sum", records.MetricTotalCost: "sum",
			"big_avg": "average", "big_sum": "sum", "big_min": "min", "big_max": "max"}
		want := func(minute int) map[string]float64 {
			out := map[string]float64{}
			for name, method := range methods {
				sum, n := new(big.Rat), 0
				var lo, hi *big.Rat
				for _, s := range all {
					if minute >= 0 && s.minute != minute {
						continue
					}
					v, ok := new(big.Rat).SetString(s.values[name])
					if !ok {
						t.Fatalf("bad value %q", s.values[name])
					}
					sum.Add(sum, v)
					n++
					if lo == nil || v.Cmp(lo) < 0 {
						lo = v
					}
					if hi == nil || v.Cmp(hi) > 0 {
						hi = v
					}
				}
				var f float64
				switch method {
				case "sum":
					f, _ = sum.Float64()
				case "average":
					f, _ = new(big.Rat).Quo(sum, big.NewRat(int64(n), 1)).Float64()
				case "min":
					f, _ = lo.Float64()
				case "max":
					f, _ = hi.Float64()
				}
				out[name] = f
			}
			return out
		}

		body, _ := json.Marshal(map[string]any{"start_time": propStart.Format(time.RFC3339), "end_time": propStart.Add(3 * time.Minute).Format(time.RFC3339),
			"log_stream_id": run.ID, "interval": 1})
		q := parseQuery(t, run, body)
		if _, _, ok := rollupPlan(q); !ok {
			t.Fatal("the query cannot be answered from the roll-ups")
		}
		total := want(-1)
		for _, rollups := range []bool{true, false} {
			got, err := searchWith(ctx, tbl, run, q, DefaultScanBound, rollups)
			if err != nil {
				t.Fatal(err)
			}
			for name, w := range total {
				if g, ok := got.AggregateMetrics[name].(float64); !ok || g != w {
					t.Errorf("roll-ups %v: aggregate %s = %v, want exactly %v", rollups, name, got.AggregateMetrics[name], w)
				}
				for b := range 3 {
					wb := want(b)[name]
					if g, ok := got.BucketedMetrics[name][b]["value"].(float64); !ok || g != wb {
						t.Errorf("roll-ups %v: bucket %d of %s = %v, want exactly %v", rollups, b, name, got.BucketedMetrics[name][b]["value"], wb)
					}
				}
			}
		}
	})
}

// boundDecimal is a decimal text of up to 15 significant digits (so that a float64 holds
// it exactly) and up to nine decimals, of magnitude up to fixed.Bound: often at the bound.
func boundDecimal(r *rand.Rand, signed bool) string {
	var s string
	switch r.Intn(4) {
	case 0:
		s = "1000000000000000" // the bound itself
	case 1:
		s = strconv.Itoa(100000+r.Intn(900000)) + "." + fmt.Sprintf("%09d", r.Intn(1e9)) // 15 digits, 9 decimals
	default:
		s = strconv.FormatInt(int64(r.Intn(9e7))*1e6+int64(r.Intn(1e6)), 10) + "." + strconv.Itoa(r.Intn(10)) // up to 15 digits
	}
	if signed && r.Intn(2) == 0 {
		s = "-" + s
	}
	return s
}

// boundInteger is a token count up to the bound.
func boundInteger(r *rand.Rand) string {
	if r.Intn(3) == 0 {
		return strconv.FormatInt(int64(fixed.Bound), 10)
	}
	return strconv.FormatInt(r.Int63n(int64(fixed.Bound)), 10)
}
