package traces

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// raceOnPlaceholder runs race once, just before the first write of a placeholder span: what
// a concurrent export does between a merge's read of the stored spans and its writes.
type raceOnPlaceholder struct {
	store.Table
	once sync.Once
	race func()
}

func (r *raceOnPlaceholder) Put(ctx context.Context, it store.Item, conds ...store.Cond) error {
	if store.IsPendingSpan(it) {
		r.once.Do(r.race)
	}
	return r.Table.Put(ctx, it, conds...)
}

func (r *raceOnPlaceholder) Transact(ctx context.Context, ops []store.Op) error {
	for _, op := range ops {
		if op.Kind == store.OpPut && store.IsPendingSpan(op.Item) {
			r.once.Do(r.race)
		}
	}
	return r.Table.Transact(ctx, ops)
}

func (r *raceOnPlaceholder) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	for _, it := range puts {
		if store.IsPendingSpan(it) {
			r.once.Do(r.race)
		}
	}
	return r.Table.BatchWrite(ctx, puts, deletes)
}

// TestOTLPPlaceholderNeverOverwritesItsSpan: a judgment of a span not read yet makes a
// placeholder; when the span itself is stored by another export in between, the placeholder
// is not written over it (its content would be lost): the merge starts again and puts the
// judgment on the span. The trace ends as when both came in one export.
func TestOTLPPlaceholderNeverOverwritesItsSpan(t *testing.T) {
	res, spans, carriers := evalExports(t)
	judged := carriers[0].ParentSpanID
	var others, theSpan []otlp.Span
	for _, sp := range spans {
		if sp.SpanID == judged {
			theSpan = append(theSpan, sp)
		} else {
			others = append(others, sp)
		}
	}
	if len(theSpan) != 1 {
		t.Fatalf("the recording has %d spans of id %s", len(theSpan), hex.EncodeToString(judged[:]))
	}
	id := otlp.TraceUUID(ExampleLogStreamID, spans[0].TraceID)
	read := func(h *harness) string {
		tr := h.readTrace(id)
		b, _ := json.Marshal(withoutStamps(tr))
		return string(b)
	}
	post := func(h *harness, ss []otlp.Span) {
		t.Helper()
		if code, body, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, jsonExport(t, res, ss), exampleRun); code != http.StatusOK {
			t.Errorf("export: %d %s", code, body)
		}
	}
	once := newOTLPHarness(t)
	post(once, append(append([]otlp.Span{}, spans...), carriers[:1]...))
	want := read(once)

	racy := &raceOnPlaceholder{Table: testenv.Embedded(t)}
	h := newHarnessOn(t, racy, Deps{})
	raced := false
	racy.race = func() { raced = true; post(h, theSpan) }
	post(h, others)
	post(h, carriers[:1]) // the placeholder's write meets the span, stored by then
	if !raced {
		t.Fatal("no placeholder was written: the test no longer exercises the race")
	}
	if got := read(h); got != want {
		t.Errorf("the trace differs from the one export's:\n%s\n%s", got, want)
	}
}

// raceOnSpan runs race once, just before the first write of the span item of key (the span
// itself, not a placeholder of it), whichever call writes it.
type raceOnSpan struct {
	store.Table
	key  store.Key
	once sync.Once
	race func()
}

func (r *raceOnSpan) check(it store.Item) {
	if it.Key() == r.key && !store.IsPendingSpan(it) {
		r.once.Do(r.race)
	}
}

func (r *raceOnSpan) Put(ctx context.Context, it store.Item, conds ...store.Cond) error {
	r.check(it)
	return r.Table.Put(ctx, it, conds...)
}

func (r *raceOnSpan) BatchWrite(ctx context.Context, puts []store.Item, deletes []store.Key) error {
	for _, it := range puts {
		r.check(it)
	}
	return r.Table.BatchWrite(ctx, puts, deletes)
}

func (r *raceOnSpan) Transact(ctx context.Context, ops []store.Op) error {
	for _, op := range ops {
		if op.Kind == store.OpPut {
			r.check(op.Item)
		}
	}
	return r.Table.Transact(ctx, ops)
}

// TestOTLPSpanNeverOverwritesItsPlaceholder: a span of a stored trace is read as absent
// and is to be written when another export stores a placeholder of it holding a judgment.
// The span is not written over the placeholder (the judgment would be lost from the span
// while the trace's roll-up keeps it): the merge starts again and the span takes the
// placeholder's place and its judgment. The trace ends as when both came in one export.
func TestOTLPSpanNeverOverwritesItsPlaceholder(t *testing.T) {
	res, spans, carriers := evalExports(t)
	judged := carriers[0].ParentSpanID
	var others, theSpan []otlp.Span
	for _, sp := range spans {
		if sp.SpanID == judged {
			theSpan = append(theSpan, sp)
		} else {
			others = append(others, sp)
		}
	}
	if len(theSpan) != 1 {
		t.Fatalf("the recording has %d spans of id %s", len(theSpan), hex.EncodeToString(judged[:]))
	}
	id := otlp.TraceUUID(ExampleLogStreamID, spans[0].TraceID)
	read := func(h *harness) string {
		b, _ := json.Marshal(withoutStamps(h.readTrace(id)))
		return string(b)
	}
	post := func(h *harness, ss []otlp.Span) {
		t.Helper()
		if code, body, _ := h.otlpPost(&h.org.Admin, "/otel/traces", ctJSON, jsonExport(t, res, ss), exampleRun); code != http.StatusOK {
			t.Errorf("export: %d %s", code, body)
		}
	}
	once := newOTLPHarness(t)
	post(once, append(append([]otlp.Span{}, spans...), carriers[:1]...))
	want := read(once)

	racy := &raceOnSpan{Table: testenv.Embedded(t),
		key: store.SpanKey(id, otlp.SpanUUID(ExampleLogStreamID, theSpan[0].TraceID, judged))}
	h := newHarnessOn(t, racy, Deps{})
	raced := false
	racy.race = func() { raced = true; post(h, carriers[:1]) }
	post(h, others)  // the trace is stored: the span's export merges into it
	post(h, theSpan) // its write meets the placeholder, stored by then
	if !raced {
		t.Fatal("the span was not written: the test no longer exercises the race")
	}
	got := read(h)
	if got != want {
		t.Errorf("the trace differs from the one export's:\n%s\n%s", got, want)
	}
	var tr map[string]any
	mustDo(t, json.Unmarshal([]byte(got), &tr))
	if v := metricOf(tr, "anthropic.chat", "relevance"); v["value"] != 0.5 {
		t.Errorf("the span's judgment: %v", v)
	}
}
