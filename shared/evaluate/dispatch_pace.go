package evaluate

import (
	"context"
	"fmt"

	"github.com/evalobs/evalapi/shared/store"
)

// pacing is a run's budget state for one dispatched batch: the day's usage read once, and
// the judgments offered (sampled at the unpaced rate) counted for the next batches' pacing.
type pacing struct {
	run     *store.Run
	usage   store.DayUsage
	offered map[string]int64
	d       *Dispatcher
}

// pacing reads the run's usage of the day once per batch; nil (no pacing) without a budget.
func (d *Dispatcher) pacing(ctx context.Context, out *outbox, run *store.Run) (*pacing, error) {
	if run.JudgeBudget == nil || run.Kind == store.RunExperiment {
		return nil, nil
	}
	if pc, ok := out.paced[run.ID]; ok {
		return pc, nil
	}
	u, err := store.GetDayUsage(ctx, d.table, run.ID, d.now())
	if err != nil {
		return nil, fmt.Errorf("dispatch: %w", err)
	}
	if out.paced == nil {
		out.paced = map[string]*pacing{}
	}
	pc := &pacing{run: run, usage: u, offered: map[string]int64{}, d: d}
	out.paced[run.ID] = pc
	return pc, nil
}

// pace is the factor of scorerID's rates at this moment.
// paceFunc is the plan's pace of a scorer; nil (no pacing) when pc is nil.
func (pc *pacing) paceFunc() func(string) float64 {
	if pc == nil {
		return nil
	}
	return pc.pace
}

func (pc *pacing) pace(scorerID string) float64 {
	return store.Pace(pc.run.JudgeBudget, pc.usage, scorerID, pc.d.now())
}

func (pc *pacing) offer(scorerIDs []string) {
	if pc == nil {
		return
	}
	for _, id := range scorerIDs {
		pc.offered[id]++
	}
}

// countOffered adds the batch's offered judgments to each budgeted run's day. A failure is
// logged, not retried: the counter is an estimate of demand, not an account.
func (d *Dispatcher) countOffered(ctx context.Context, out *outbox) {
	for runID, pc := range out.paced {
		if len(pc.offered) == 0 {
			continue
		}
		if _, err := d.table.Update(ctx, store.OfferedUpdate(runID, d.now(), pc.offered)); err != nil {
			d.log.Warn("dispatch: offered judgments not counted", "run", runID, "error", err)
		}
	}
}
