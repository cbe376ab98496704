package traces

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
)

// pageTrace is what the pagination test logs of a trace, and the reference it sorts.
type pageTrace struct {
	id      string
	name    string
	latency *float64
	tags    []string
	created time.Time
}

// TestRecordPagesProperty: random filters and sorts; walking every page, by keyset
// (previous_last_row_id) and by offset (starting_token), answers each matching trace exactly
// once, in the order of a reference sort, on every store backend.
func TestRecordPagesProperty(t *testing.T) {
	testenv.EachTable(t, func(t *testing.T, tbl store.Table) {
		h := newHarnessOn(t, tbl, Deps{})
		r := rand.New(rand.NewPCG(7, 11))
		ls := store.LogStream{ID: uuidN(8, 1), ProjectID: ExampleProjectID, OrgID: h.org.ID, Name: "pages",
			CreatedBy: h.org.Admin.UserID, CreatedAt: testNow, UpdatedAt: testNow}
		if err := store.CreateLogStream(t.Context(), tbl, ls); err != nil {
			t.Fatal(err)
		}
		// Every page is a search over the emulator, fifty walks of them: the emulators get
		// 15 traces (still several pages at every limit, ties on latency and on name, and
		// traces without latency), the embedded store 45.
		n := 45
		if !strings.HasSuffix(t.Name(), "/embedded") {
			n = 15
		}
		cutoff := time.Date(2026, 1, 1, 0, 0, 20*n/45, 0, time.UTC) // the date filter keeps about half
		names, tagSet := []string{"alpha", "beta", "gamma"}, []string{"a", "b", "c"}
		var all []pageTrace
		var body strings.Builder
		for i := range n {
			tr := pageTrace{id: uuidN(9, i), name: names[r.IntN(3)], created: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)}
			if r.IntN(5) > 0 {
				v := float64(r.IntN(6) * 10) // ties on purpose
				tr.latency = &v
			}
			for _, tg := range tagSet {
				if r.IntN(2) == 0 {
					tr.tags = append(tr.tags, tg)
				}
			}
			all = append(all, tr)
			rec := map[string]any{"id": tr.id, "name": tr.name, "created_at": tr.created.Format(time.RFC3339), "input": "q", "output": "a",
				"tags": tr.tags}
			if tr.latency != nil {
				rec["latency_ms"] = *tr.latency
			}
			b, _ := json.Marshal(rec)
			if body.Len() > 0 {
				body.WriteString(",")
			}
			body.Write(b)
		}
		h.call("POST", projectPath+"/traces", `{"log_stream_id":"`+ls.ID+`","traces":[`+body.String()+`]}`, 200, nil)

		type query struct {
			filter string
			keep   func(pageTrace) bool
		}
		queries := []query{
			{"", func(pageTrace) bool { return true }},
			{`"filters":[{"type":"text","column_id":"name","operator":"eq","value":"beta"}],`, func(p pageTrace) bool { return p.name == "beta" }},
			{`"filters":[{"type":"collection","column_id":"tags","operator":"one_of","value":["a"]}],`, func(p pageTrace) bool { return slices.Contains(p.tags, "a") }},
			{`"filter_tree":{"or":[{"filter":{"type":"number","column_id":"latency_ms","operator":"gt","value":30}},{"not":{"filter":{"type":"text","column_id":"name","operator":"ne","value":"gamma"}}}]},`,
				func(p pageTrace) bool { return (p.latency != nil && *p.latency > 30) || p.name == "gamma" }},
			{`"filters":[{"type":"date","column_id":"created_at","operator":"gte","value":"` + cutoff.Format(time.RFC3339) + `"}],`,
				func(p pageTrace) bool { return !p.created.Before(cutoff) }},
		}
		sorts := []struct {
			clause string
			col    string
			asc    bool
		}{{"", "created_at", false}, {`"sort":{"column_id":"created_at","ascending":true},`, "created_at", true},
			{`"sort":{"column_id":"latency_ms","ascending":true},`, "latency_ms", true},
			{`"sort":{"column_id":"latency_ms","ascending":false},`, "latency_ms", false},
			{`"sort":{"column_id":"name"},`, "name", true}}
		for qi, q := range queries {
			for si, s := range sorts {
				want := pageReference(all, q.keep, s.col, s.asc)
				limit := 1 + r.IntN(7)
				for _, mode := range []string{"keyset", "offset"} {
					t.Run(fmt.Sprintf("q%d/s%d/%s/limit%d", qi, si, mode, limit), func(t *testing.T) {
						var got []string
						next, pages := "", 0
						for page := 0; ; page++ {
							pages++
							if page > len(all)+2 {
								t.Fatal("pages never end")
							}
							b := `{"log_stream_id":"` + ls.ID + `",` + q.filter + s.clause + next + fmt.Sprintf(`"limit":%d}`, limit)
							var p pageAnswer
							h.call("POST", projectPath+"/traces/search", b, 200, &p)
							got = append(got, ids(p.Records)...)
							if !p.Paginated {
								break
							}
							if mode == "keyset" {
								next = `"previous_last_row_id":"` + *p.LastRowID + `",`
							} else {
								next = fmt.Sprintf(`"starting_token":%d,`, *p.NextStartingToken)
							}
						}
						if !slices.Equal(got, want) {
							t.Errorf("pages answered\n%v\nwant\n%v", got, want)
						}
						if wantPages := (len(want) + limit - 1) / limit; pages < wantPages || (qi == 0 && pages < 3) {
							t.Errorf("%d pages of %d records at limit %d: want %d, and at least three unfiltered", pages, len(want), limit, wantPages)
						}
					})
				}
			}
		}
	})
}

// pageReference filters and sorts as the search does: by the column, records without a value
// last, ties by creation time then id, the whole order reversed for a descending sort
// (but not the place of records without a value).
func pageReference(all []pageTrace, keep func(pageTrace) bool, col string, asc bool) []string {
	var rows []pageTrace
	for _, p := range all {
		if keep(p) {
			rows = append(rows, p)
		}
	}
	slices.SortStableFunc(rows, func(a, b pageTrace) int {
		if col == "latency_ms" && (a.latency == nil) != (b.latency == nil) {
			if a.latency == nil {
				return 1
			}
			return -1
		}
		c := 0
		switch col {
		case "latency_ms":
			if a.latency != nil {
				c = cmp.Compare(*a.latency, *b.latency)
			}
		case "name":
			c = cmp.Compare(a.name, b.name)
		}
		if c == 0 {
			c = cmp.Or(a.created.Compare(b.created), cmp.Compare(a.id, b.id))
		}
		if !asc {
			c = -c
		}
		return c
	})
	out := make([]string, len(rows))
	for i, p := range rows {
		out[i] = p.id
	}
	return out
}
