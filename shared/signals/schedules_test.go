package signals

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/store"
)

type names []string

func (n names) Names(context.Context) ([]string, error) { return n, nil }

// TestReconcileRepairsFromTheTable: a configuration whose schedule call failed is written
// again, one whose scheduled runs were turned off is deleted, and a schedule left by a
// deleted configuration is deleted; a schedule not named like a configuration's is left.
func TestReconcileRepairsFromTheTable(t *testing.T) {
	tbl := testenv.Embedded(t)
	ctx := t.Context()
	put := func(enabled bool) store.SignalsConfig {
		cfg, err := store.PutSignalsConfig(ctx, tbl, store.SignalsConfig{ID: uuid.NewString(), OrgID: uuid.NewString(),
			ProjectID: uuid.NewString(), RunID: uuid.NewString(), RunKind: store.RunLogStream, Model: "m",
			Schedule: &store.SignalsSchedule{Cron: "0 9 * * MON-FRI", Type: "CRON", Timezone: "Europe/Paris"}, ScheduledRunsEnabled: enabled})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.SetSignalsScheduled(ctx, tbl, store.SignalsScheduled{ConfigurationID: cfg.ID, OrgID: cfg.OrgID,
			ProjectID: cfg.ProjectID, RunID: cfg.RunID}, true); err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	on, off := put(true), put(false)
	rec := &syncRecorder{}
	orphan := schedule.NamePrefix + uuid.NewString()
	written, deleted, err := Reconcile(ctx, tbl, rec, names{orphan, "reconcile", schedule.NamePrefix + on.ID}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"upsert signals-" + on.ID + " cron(0 9 ? * 2-6 *) Europe/Paris", "delete signals-" + off.ID, "delete " + orphan}
	slices.Sort(want)
	got := slices.Clone(rec.calls)
	slices.Sort(got)
	if !slices.Equal(got, want) || written != 2 || deleted != 1 {
		t.Fatalf("calls %v (written %d, deleted %d), want %v", rec.calls, written, deleted, want)
	}
}
