package traces

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/storecount"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// TestOTLPMergeOfManySpans: a merge of more spans than a transaction holds writes them in
// several transactions; when a concurrent export stores a placeholder (with a judgment) of
// a span of a later transaction, after the earlier ones committed, the merge starts again,
// writes nothing twice, and the trace ends whole with the judgment on its span. Both ways
// round: children merged into a stored root, and a root into a placeholder trace of stored
// children (which are rewritten with the trace's session).
func TestOTLPMergeOfManySpans(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(otlpData, "chat.json"))
	mustDo(t, err)
	base, err := otlp.DecodeJSON(raw)
	mustDo(t, err)
	res, root := base.Resources[0].Attrs, base.Resources[0].Spans[0]
	const n = 250 // three transactions of spans
	children := make([]otlp.Span, n)
	for i := range children {
		c := root
		c.SpanID = [8]byte{0xc1, byte(i), byte(i >> 8), 1}
		c.ParentSpanID = root.SpanID
		c.Start += uint64(i) * 1000
		children[i] = c
	}
	last := children[n-1]
	carrier := evalCarrier(root.TraceID, "e300000000000001", "", last.End+1e9, evalAttrs("relevance", f64(0.4), "", ""))
	carrier.ParentSpanID = last.SpanID
	id := otlp.TraceUUID(ExampleLogStreamID, root.TraceID)
	for name, parts := range map[string][2][]otlp.Span{
		"children into a root": {{root}, children},
		"a root into children": {children, {root}},
	} {
		t.Run(name, func(t *testing.T) {
			key := store.SpanKey(id, otlp.SpanUUID(ExampleLogStreamID, root.TraceID, last.SpanID))
			racy := &raceOnSpan{Table: testenv.Embedded(t), key: key}
			if name == "a root into children" { // the children are rewritten with the session: race on the root
				racy.key = store.SpanKey(id, otlp.SpanUUID(ExampleLogStreamID, root.TraceID, root.SpanID))
			}
			txs := &countSpanTransactions{Table: racy}
			h := newHarnessOn(t, storecount.New(txs), Deps{})
			post := func(ss ...otlp.Span) {
				t.Helper()
				if code, body, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, jsonExport(t, res, ss), exampleRun); code != http.StatusOK {
					t.Fatalf("export: %d %s", code, body)
				}
			}
			post(parts[0]...)
			raced := false
			racy.race = func() { raced = true; post(carrier) }
			txs.n.Store(0)
			post(parts[1]...)
			if !raced {
				t.Fatal("the span was not written: the test no longer exercises the race")
			}
			if got := txs.n.Load(); got < 3 {
				t.Errorf("%d transactions of spans: the merge did not split %d spans", got, n)
			}
			tr := h.readTrace(id)
			kids, _ := tr["spans"].([]any)
			if tr["num_spans"] != float64(n+1) || len(kids) != 1 || len(kids[0].(map[string]any)["spans"].([]any)) != n {
				t.Fatalf("num_spans %v, %d top-level spans", tr["num_spans"], len(kids))
			}
			if m := tr["metrics"].(map[string]any); m["num_total_tokens"] != float64((n+1)*51) {
				t.Errorf("trace tokens %v, want %d", m["num_total_tokens"], (n+1)*51)
			}
			if v := tr["metric_info"].(map[string]any)["relevance"].(map[string]any); v["value"] != 0.4 {
				t.Errorf("the trace's relevance: %v", v)
			}
			var judged map[string]any
			for _, sp := range kids[0].(map[string]any)["spans"].([]any) {
				if sp := sp.(map[string]any); sp["id"] == otlp.SpanUUID(ExampleLogStreamID, root.TraceID, last.SpanID) {
					judged = sp
				}
			}
			if mi, _ := judged["metric_info"].(map[string]any); mi == nil || mi["relevance"].(map[string]any)["value"] != 0.4 {
				t.Errorf("the judged span: %v", judged["metric_info"])
			}
			if w := h.writes(func() { post(parts[1]...); post(carrier) }); w != 0 {
				t.Errorf("re-exports wrote %d times", w)
			}
		})
	}
}

// countSpanTransactions counts the transactions that put span items.
type countSpanTransactions struct {
	store.Table
	n atomic.Int64
}

func (c *countSpanTransactions) Transact(ctx context.Context, ops []store.Op) error {
	for _, op := range ops {
		if op.Kind == store.OpPut && op.Item[store.AttrEntity] == store.EntitySpan {
			c.n.Add(1)
			break
		}
	}
	return c.Table.Transact(ctx, ops)
}
