package traces

import (
	"net/http"
	"testing"

	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// TestOTLPJudgmentTime: a judgment's time is kept with its value, and a (span, name)'s value
// is replaced only by a newer judgment: an exporter's late retry of an older one changes
// nothing, in the span, the trace's roll-up or the metrics search (by the roll-ups and by a
// scan); two judgments of one time end the same whichever comes first; a value stored
// before times were kept is replaced by any judgment.
func TestOTLPJudgmentTime(t *testing.T) {
	res, spans, carriers := evalExports(t)
	id := otlp.TraceUUID(ExampleLogStreamID, spans[0].TraceID)
	judged := carriers[0] // of the older chat span (anthropic.chat), which nothing else judges
	judgment := func(carrier string, at uint64, value float64) otlp.Span {
		c := judged
		c.SpanID, c.Start, c.End, c.Attrs = spanID8(carrier), at, at, evalAttrs("relevance", f64(value), "", "")
		return c
	}
	t0 := judged.Start
	older, newer := judgment("e200000000000001", t0+1e9, 0.2), judgment("e200000000000002", t0+2e9, 0.9)
	post := func(h *harness, ss ...otlp.Span) {
		t.Helper()
		if code, body, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, jsonExport(t, res, ss), exampleRun); code != http.StatusOK {
			t.Fatalf("export: %d %s", code, body)
		}
	}
	rollups := `{"start_time":"2026-01-05T10:00:00Z","end_time":"2026-01-05T11:00:00Z","log_stream_id":"` + ExampleLogStreamID + `"}`
	scan := `{"start_time":"2026-01-05T09:59:30Z","end_time":"2026-01-05T11:00:00Z","log_stream_id":"` + ExampleLogStreamID + `"}`
	// check reads the span's value, the trace's (the chat span's 0.9 and this one's average)
	// and the searches'.
	check := func(h *harness, what string, want float64) {
		t.Helper()
		tr := h.readTrace(id)
		if v := metricOf(tr, "anthropic.chat", "relevance"); v["value"] != want {
			t.Errorf("%s: the span's value %v, want %v", what, v, want)
		}
		avg := (0.9 + want) / 2
		if v := tr["metric_info"].(map[string]any)["relevance"].(map[string]any); v["value"] != avg {
			t.Errorf("%s: the trace's roll-up %v, want %v", what, v, avg)
		}
		for _, q := range []string{rollups, scan} {
			if a := h.search(q); a.AggregateMetrics["relevance"] != avg {
				t.Errorf("%s: search %s: %v, want %v", what, q, a.AggregateMetrics["relevance"], avg)
			}
		}
	}

	t.Run("late older retry", func(t *testing.T) {
		h := newOTLPHarness(t)
		post(h, spans...)
		post(h, newer)
		check(h, "newer", 0.9)
		if n := h.writes(func() { post(h, older) }); n != 0 {
			t.Errorf("the older judgment wrote %d times", n)
		}
		check(h, "older after newer", 0.9)
	})
	t.Run("older before its span, newer with it", func(t *testing.T) {
		h := newOTLPHarness(t)
		post(h, older)                                           // a placeholder holds it
		post(h, append(spans[:len(spans):len(spans)], newer)...) // the span comes with a newer one
		post(h, older)
		check(h, "placeholder's older, span's newer", 0.9)
	})
	t.Run("one export, newer first", func(t *testing.T) {
		h := newOTLPHarness(t)
		post(h, append(spans[:len(spans):len(spans)], newer, older)...)
		check(h, "newer then older in one export", 0.9)
	})
	t.Run("equal times", func(t *testing.T) {
		a, b := judgment("e200000000000003", t0+3e9, 0.3), judgment("e200000000000004", t0+3e9, 0.7)
		var first any
		for _, order := range [][]otlp.Span{{a, b}, {b, a}} {
			h := newOTLPHarness(t)
			post(h, spans...)
			post(h, order[0])
			post(h, order[1])
			got := metricOf(h.readTrace(id), "anthropic.chat", "relevance")["value"]
			if first == nil {
				first = got
			} else if got != first {
				t.Errorf("two judgments of one time end as %v or %v by their order", first, got)
			}
		}
	})
	t.Run("value of unknown time", func(t *testing.T) {
		h := newOTLPHarness(t)
		post(h, spans...)
		spanID := otlp.SpanUUID(ExampleLogStreamID, judged.TraceID, judged.ParentSpanID)
		untimed := store.MetricValue{Number: f64(0.6), Source: store.SourceExternal} // as stored before times were kept
		_, err := records.WriteSpanScore(t.Context(), h.tbl, records.ScoreWrite{Key: store.SpanKey(id, spanID),
			Values: map[string]store.MetricValue{"relevance": untimed}, Now: testNow})
		mustDo(t, err)
		mustDo(t, records.RollUpSpanScores(t.Context(), h.tbl, ExampleLogStreamID, id, "relevance", records.RollUpAvg))
		check(h, "untimed", 0.6)
		post(h, older)
		check(h, "any judgment after an untimed value", 0.2)
	})
}
