package evaluate

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestNoContentInMessagesLogsOrDeadLetters plants a canary in a trace's content and runs
// the worker path with failures on every branch (a retryable verdict until the last
// delivery, a non-retryable one, a store failure on every delivery so the message dies): the
// canary is in no queue message, no dead letter and no log line of the dispatcher or the
// evaluator. (Credentials never reach the worker: the judge resolves them.)
func TestNoContentInMessagesLogsOrDeadLetters(t *testing.T) {
	const canary = "CANARY-3f9a1c7e-content-must-not-leak"
	ctx := context.Background()
	tbl := embeddedTable(t)
	e := newEnv(t, tbl, 3, nil)
	for i := range e.traces { // rewrite the traces with the canary as their input
		e.traces[i].Input = store.Content(`"` + canary + `"`)
		it, err := store.TraceItem(e.traces[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := tbl.Put(ctx, it); err != nil {
			t.Fatal(err)
		}
		e.items[i] = it
	}
	var logs lockedBuffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	q := queue.NewLocal(queue.Options{VisibilityTimeout: 1, MaxReceiveCount: 2, MaxConcurrency: 2, Log: log})
	j := newFakeJudge()
	j.fail = func(id string, _ int) *Verdict {
		switch id {
		case e.traces[0].ID:
			return &Verdict{ErrorType: ErrLLMAPI, Retryable: true, ErrorMessage: "provider answered 503"}
		case e.traces[1].ID:
			return &Verdict{ErrorType: ErrDataValidation, ErrorMessage: "the answer was not JSON"}
		}
		return nil
	}
	ev := NewEvaluator(tbl, nil, j, EvaluatorOptions{MaxReceiveCount: 2, Log: log})
	var sent [][]byte
	q.Start(func(ctx context.Context, msgs []queue.Message) []string {
		failed := ev.Handle(ctx, msgs)
		for _, m := range msgs { // the third trace's message always fails: it dies
			if strings.Contains(string(m.Body), e.traces[2].ID) {
				failed = append(failed, m.ID)
			}
		}
		return failed
	})
	defer q.Close()
	d := NewDispatcher(tbl, q, 0, log)
	var recs []stream.Record
	for i, it := range e.items {
		recs = append(recs, stream.Record{ID: string(rune('a' + i)), New: it})
	}
	sent = append(sent, q.Pending()...)
	if f := d.Handle(ctx, recs); len(f) != 0 {
		t.Fatal("dispatch failed")
	}
	sent = append(sent, q.Pending()...)
	if err := q.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if len(q.Dead()) != 1 {
		t.Fatalf("%d dead letters, want 1", len(q.Dead()))
	}
	for _, m := range q.Dead() {
		sent = append(sent, m.Body)
	}
	if len(sent) == 0 || logs.String() == "" {
		t.Fatalf("nothing captured: %d messages, %d bytes of logs", len(sent), len(logs.String()))
	}
	for _, b := range sent {
		if strings.Contains(string(b), canary) {
			t.Errorf("a message carries content: %s", b)
		}
	}
	if strings.Contains(logs.String(), canary) {
		t.Errorf("a log line carries content:\n%s", logs.String())
	}
}
