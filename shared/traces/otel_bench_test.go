package traces

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// BenchmarkOTLPStoreWrites512 is the store's side of one 512-span export (the recordings
// replayed with fresh trace ids: 206 traces) on the embedded table: calls per export, by
// kind, and the write units of its span items (spanWCU: 1 per KB a put or batch put writes,
// 2 in a transaction), for a first export, for a re-export of it, and for an export of the
// same spans split in two halves, children first (the placeholder path) or roots first
// (children merged into stored traces). docs/PERFORMANCE.md has the figures.
//
//	go test -run '^$' -bench OTLPStoreWrites512 -benchtime 10x ./shared/traces/
func BenchmarkOTLPStoreWrites512(b *testing.B) {
	batch := otlpBatch512(b)
	whole := otlp.EncodeProto(batch)
	spans := batch.Resources[0].Spans
	var children, roots []otlp.Span
	for _, s := range spans {
		if s.IsRoot() {
			roots = append(roots, s)
		} else {
			children = append(children, s)
		}
	}
	half := func(s []otlp.Span) []byte {
		return otlp.EncodeProto(&otlp.Export{Resources: []otlp.ResourceSpans{{Attrs: batch.Resources[0].Attrs, Spans: s}}})
	}
	for _, c := range []struct {
		name   string
		before [][]byte
		bodies [][]byte
	}{
		{"first", nil, [][]byte{whole}},
		{"again", [][]byte{whole}, [][]byte{whole}},
		{"children-then-roots", nil, [][]byte{half(children), half(roots)}},
		{"roots-then-children", nil, [][]byte{half(roots), half(children)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var total storecount.Counts
			var wcu int64
			for b.Loop() {
				b.StopTimer()
				units := &spanUnits{Table: testenv.Embedded(b)}
				tbl := storecount.New(units)
				env := authtest.New(b, tbl, auth.Config{})
				org := env.Org(b)
				rt := httpapi.NewRouter(slog.New(slog.DiscardHandler))
				RegisterOTLP(rt, Deps{Deps: base.Deps{Table: tbl, Authenticate: env.Service.Authenticate, Now: func() time.Time { return testNow }}})
				if err := SeedExample(b.Context(), tbl, org.ID, org.Admin.UserID, testNow); err != nil {
					b.Fatal(err)
				}
				post := func(body []byte) {
					req := httptest.NewRequest("POST", "/v1/traces", bytes.NewReader(body))
					req.Header = org.Admin.Header()
					req.Header.Set("Content-Type", ctProtobuf)
					req.Header.Set("project", ExampleProjectID)
					req.Header.Set("logstream", ExampleLogStreamID)
					rec := httptest.NewRecorder()
					rt.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("%d %s", rec.Code, rec.Body)
					}
				}
				for _, body := range c.before {
					post(body)
				}
				tbl.Reset()
				units.n.Store(0)
				b.StartTimer()
				for _, body := range c.bodies {
					post(body)
				}
				total = tbl.Snapshot()
				wcu = units.n.Load()
				b.StartTimer()
			}
			b.ReportMetric(float64(wcu), "spanWCU/export")
			for _, m := range []string{"Get", "BatchGet", "Query", "BatchWrite", "Transact", "Put", "Update"} {
				b.ReportMetric(float64(total.Calls[m]), m+"/export")
			}
			b.ReportMetric(float64(total.Total), "calls/export")
		})
	}
}

// otlpBatch512 is the otlp package's benchmark batch: the recordings replayed with fresh
// trace ids until the export holds 512 spans.
func otlpBatch512(tb testing.TB) *otlp.Export {
	tb.Helper()
	var recs []*otlp.Export
	for _, name := range []string{"agent", "chat", "error", "rag"} {
		raw, err := os.ReadFile(filepath.Join(otlpData, name+".pb"))
		if err != nil {
			tb.Fatal(err)
		}
		e, err := otlp.DecodeProto(raw)
		if err != nil {
			tb.Fatal(err)
		}
		recs = append(recs, e)
	}
	out := &otlp.Export{Resources: []otlp.ResourceSpans{{Attrs: recs[0].Resources[0].Attrs}}}
	spans := &out.Resources[0].Spans
	for n := 0; len(*spans) < 512; n++ {
		for _, s := range recs[n%len(recs)].Resources[0].Spans {
			if len(*spans) == 512 {
				break
			}
			s.TraceID[0], s.TraceID[1] = byte(n), byte(n>>8)
			*spans = append(*spans, s)
		}
	}
	return out
}

// spanUnits sums the write units of the span items written through it: a KB (rounded up)
// per item put alone or in a batch, twice that in a transaction (DynamoDB's pricing).
type spanUnits struct {
	store.Table
	n atomic.Int64
}

func (u *spanUnits) add(it store.Item, per int64) {
	if it[store.AttrEntity] == store.EntitySpan {
		u.n.Add(per * int64((store.ItemSize(it)+1023)/1024))
	}
}

func (u *spanUnits) Put(ctx context.Context, it store.Item, conds ...store.Cond) error {
	u.add(it, 1)
	return u.Table.Put(ctx, it, conds...)
}

func (u *spanUnits) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	for _, it := range puts {
		u.add(it, 1)
	}
	return u.Table.BatchWrite(ctx, puts, deletes)
}

func (u *spanUnits) Transact(ctx context.Context, ops []store.Op) error {
	for _, op := range ops {
		if op.Kind == store.OpPut {
			u.add(op.Item, 2)
		}
	}
	return u.Table.Transact(ctx, ops)
}
