package otlp_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// Benchmarks of decoding and mapping, without the store; docs/PERFORMANCE.md ("OTLP
// ingestion") has the figures.
//
//	go test -run '^$' -bench OTLP -benchmem ./shared/traces/otlp/

// Batch512 replays the recordings (chat, RAG, agent, error) with fresh trace ids until the
// export holds 512 spans, the exporters' default batch.
func Batch512(tb testing.TB) *otlp.Export {
	tb.Helper()
	all, _ := filepath.Glob(filepath.Join(recordings, "*.pb"))
	var recs []*otlp.Export
	for _, f := range all {
		if strings.Contains(f, "golden") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		e, err := otlp.DecodeProto(b)
		if err != nil {
			tb.Fatal(err)
		}
		recs = append(recs, e)
	}
	out := &otlp.Export{Resources: []otlp.ResourceSpans{{Attrs: recs[0].Resources[0].Attrs}}}
	spans := &out.Resources[0].Spans
	for copyN := 0; len(*spans) < 512; copyN++ {
		for _, s := range recs[copyN%len(recs)].Resources[0].Spans {
			if len(*spans) == 512 {
				break
			}
			s.TraceID[0], s.TraceID[1] = byte(copyN), byte(copyN>>8)
			*spans = append(*spans, s)
		}
	}
	return out
}

func benchDecodeMap(b *testing.B, body []byte, decode func([]byte) (*otlp.Export, error)) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	n := 0
	cpu0 := cpuTime()
	for b.Loop() {
		e, err := decode(body)
		if err != nil {
			b.Fatal(err)
		}
		for _, rs := range e.Resources {
			for i := range rs.Spans {
				m := otlp.Map("60000000-0000-4000-8000-000000000002", rs.Attrs, &rs.Spans[i])
				if m.Span.ID == "" {
					b.Fatal("no id")
				}
				n++
			}
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "spans/s")
	// Per CPU second of the process (GC included): the figure per core, which a shared,
	// loaded machine does not distort as it does the wall clock.
	b.ReportMetric(float64(n)/(cpuTime()-cpu0).Seconds(), "spans/cpu-s")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkOTLPDecodeMapProtobuf is one 512-span protobuf export decoded and mapped.
func BenchmarkOTLPDecodeMapProtobuf(b *testing.B) {
	benchDecodeMap(b, otlp.EncodeProto(Batch512(b)), otlp.DecodeProto)
}

// BenchmarkOTLPDecodeMapJSON is the same export in OTLP/JSON.
func BenchmarkOTLPDecodeMapJSON(b *testing.B) {
	benchDecodeMap(b, otlp.EncodeJSON(Batch512(b)), otlp.DecodeJSON)
}
