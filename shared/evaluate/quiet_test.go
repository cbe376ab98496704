package evaluate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// TestQuietPeriod: a trace the client has not marked complete is sent with the quiet
// period's delay and the write it was sent for; when a later write came meanwhile, that
// message is dropped unjudged and the later write's message judges the trace. The pipeline's
// own writes (marks, values) are not dispatched again; marking the trace complete is.
func TestQuietPeriod(t *testing.T) {
	ctx := context.Background()
	tbl := embeddedTable(t)
	e := newEnv(t, tbl, 1, nil)
	tr := e.traces[0]
	tr.IsComplete = false
	it, err := store.TraceItem(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.Put(ctx, it); err != nil {
		t.Fatal(err)
	}
	c := &captured{}
	d := NewDispatcher(tbl, c, 3*time.Minute, nil)
	if f := d.Handle(ctx, []stream.Record{{ID: "1", New: it}}); len(f) != 0 {
		t.Fatal("dispatch failed")
	}
	if len(c.delays) != 1 || c.delays[0] != 3*time.Minute {
		t.Fatalf("delays %v, want one of 3m", c.delays)
	}
	marked, _ := tbl.Get(ctx, it.Key(), true)
	if d.Accepts(stream.Record{Old: it, New: marked}) {
		t.Error("the dispatcher takes its own pending mark")
	}

	// A later client write: new updated_at.
	later := tr
	now := base.Add(time.Hour)
	later.UpdatedAt = &now
	var cur store.Trace
	_ = store.DecodeTrace(marked, &cur)
	later.Metrics = cur.Metrics
	it2, _ := store.TraceItem(later)
	if err := tbl.Put(ctx, it2); err != nil {
		t.Fatal(err)
	}
	if !d.Accepts(stream.Record{Old: marked, New: it2}) {
		t.Fatal("the dispatcher refuses a client's later write")
	}
	if f := d.Handle(ctx, []stream.Record{{ID: "2", Old: marked, New: it2}}); len(f) != 0 {
		t.Fatal("dispatch failed")
	}
	msgs := c.messages()
	j := newFakeJudge()
	ev := NewEvaluator(tbl, nil, j, EvaluatorOptions{})
	if f := ev.Handle(ctx, msgs[:1]); len(f) != 0 || j.total() != 0 {
		t.Fatalf("the first write's message was judged (%d calls)", j.total())
	}
	if f := ev.Handle(ctx, msgs[1:]); len(f) != 0 || j.total() != 1 {
		t.Fatalf("the last write's message was not judged (%d calls)", j.total())
	}
	recs, rolls, _ := e.counted()
	if recs != 1 || rolls != 1 {
		t.Errorf("counted %d on records, %d in roll-ups", recs, rolls)
	}

	// Marking it complete dispatches at once (the claim then keeps it judged once).
	final, _ := tbl.Get(ctx, it2.Key(), true)
	var f store.Trace
	_ = store.DecodeTrace(final, &f)
	f.IsComplete = true
	done, _ := store.TraceItem(f)
	if !d.Accepts(stream.Record{Old: final, New: done}) {
		t.Error("the dispatcher refuses is_complete")
	}
	if d.Accepts(stream.Record{Old: done, New: done}) {
		t.Error("the dispatcher takes a write of a trace complete before")
	}
}

type failingSender struct{}

func (failingSender) Send(context.Context, [][]byte, time.Duration) error { return errSend }

var errSend = errors.New("sqs unavailable")

// TestSendFailureFailsTheRecords: the batch's messages go out in one send at the end; when
// it fails, every record with a message in it is reported failed (and dispatched again).
func TestSendFailureFailsTheRecords(t *testing.T) {
	e := newEnv(t, embeddedTable(t), 3, nil)
	failed := NewDispatcher(e.tbl, failingSender{}, 0, nil).Handle(context.Background(), e.records())
	if len(failed) != 3 {
		t.Errorf("failed %v, want the 3 records", failed)
	}
	if again := e.dispatchAll(); len(again) != 3 {
		t.Errorf("the retry sent %d messages, want 3", len(again))
	}
}
