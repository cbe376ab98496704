package evaluate

import (
	"context"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/stream"
)

// TestJobPagesOnceEach: a job's stream record sends its page once (a redelivery finds the
// cursor moved), the job's change brings the next page, and the evaluator counts each
// judged pair once however often its message comes.
func TestJobPagesOnceEach(t *testing.T) {
	ctx := context.Background()
	tbl := embeddedTable(t)
	e := newEnv(t, tbl, 250, nil)
	j := store.EvalJob{ID: store.EvalJobID(runID, base, base.Add(time.Hour), []string{scorerID}), OrgID: orgID, ProjectID: projectID,
		RunID: runID, Start: base, End: base.Add(time.Hour), ScorerIDs: []string{scorerID}, CreatedAt: base, Status: store.EvalJobDispatching}
	if _, created, err := store.CreateEvalJob(ctx, tbl, j); err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	if _, created, _ := store.CreateEvalJob(ctx, tbl, j); created {
		t.Fatal("the same job created twice")
	}
	c := &captured{}
	d := NewDispatcher(tbl, c, 0, nil)
	var old store.Item
	for step := 0; step < 10; step++ {
		cur, err := tbl.Get(ctx, store.EvalJobKey(runID, j.ID), true)
		if err != nil {
			t.Fatal(err)
		}
		r := stream.Record{ID: "job", Old: old, New: cur}
		if !d.Accepts(r) {
			break
		}
		for range 2 { // delivered twice
			if f := d.Handle(ctx, []stream.Record{r}); len(f) != 0 {
				t.Fatal("dispatch failed")
			}
		}
		old = cur
	}
	if len(c.bodies) != 250 {
		t.Errorf("%d messages for 250 traces and one scorer", len(c.bodies))
	}
	ev := NewEvaluator(tbl, nil, newFakeJudge(), EvaluatorOptions{})
	msgs := c.messages()
	for range 2 {
		if f := ev.Handle(ctx, msgs); len(f) != 0 {
			t.Fatal("evaluation failed")
		}
	}
	got, err := store.GetEvalJob(ctx, tbl, orgID, runID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != store.EvalJobDispatched || got.Scanned != 250 || got.Sent != 250 || got.Done != 250 {
		t.Errorf("job %+v: want dispatched, 250 scanned, sent and done", got)
	}
	if recs, rolls, _ := e.counted(); recs != 250 || rolls != 250 {
		t.Errorf("counted %d on records, %d in roll-ups", recs, rolls)
	}
}
