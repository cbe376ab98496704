package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

// putLegacySignals stores a run or finding as the former layout did: a UUIDv7 id and a key
// of that id alone (SRUN#<id>, SFIND#<id>), with no reference item.
func putLegacySignals(t *testing.T, tbl store.Table, v any, runID, sk, entity string) {
	t.Helper()
	it, err := store.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.Put(t.Context(), it.With(store.AttrPK, "SIGRUNS#"+runID, store.AttrSK, sk, store.AttrEntity, entity)); err != nil {
		t.Fatal(err)
	}
}

func signalsRunIDs(t *testing.T, tbl store.Table, runID string) []string {
	t.Helper()
	runs, _, err := store.ListSignalsRuns(t.Context(), tbl, runID, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	return ids
}

// The runs and findings stored with UUIDv7 ids before the change and those stored with
// UUID4 ids after it list newest first together, and each is read by its id.
func TestSignalsOrderAcrossTheIDChange(t *testing.T) {
	eachTable(t, func(t *testing.T, tbl store.Table) {
		ctx := t.Context()
		const org, runID = "o1", "r1"
		t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
		var legacy []string
		for i := range 3 {
			id := uuid.Must(uuid.NewV7()).String()
			legacy = append(legacy, id)
			r := store.SignalsRun{ID: id, OrgID: org, RunID: runID, State: store.SignalsSucceeded, TracesRead: 1,
				CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
			putLegacySignals(t, tbl, r, runID, "SRUN#"+id, store.EntitySignalsRun)
		}
		if got, want := signalsRunIDs(t, tbl, runID), []string{legacy[2], legacy[1], legacy[0]}; !slices.Equal(got, want) {
			t.Fatalf("before the change: runs %v, want newest first %v", got, want)
		}
		// New ids whose own order is the reverse of their times: the order must come from time.
		newer := []string{"ffffffff-ffff-4fff-bfff-ffffffffffff", "00000000-0000-4000-8000-000000000001"}
		for i, id := range newer {
			at := t0.Add(time.Hour + time.Duration(i)*time.Minute)
			r := store.SignalsRun{ID: id, OrgID: org, RunID: runID, State: store.SignalsQueued, CreatedAt: at}
			if err := store.StartSignalsRun(ctx, tbl, r, "", at, at); err != nil {
				t.Fatal(err)
			}
			r.State, r.TracesRead = store.SignalsSucceeded, 1
			if err := store.FinishSignalsRun(ctx, tbl, r, store.SignalsQueued, nil); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{newer[1], newer[0], legacy[2], legacy[1], legacy[0]}
		if got := signalsRunIDs(t, tbl, runID); !slices.Equal(got, want) {
			t.Fatalf("after the change: runs %v, want newest first %v", got, want)
		}
		page, more, err := store.ListSignalsRuns(ctx, tbl, runID, 1, 2)
		if err != nil || !more || len(page) != 2 || page[0].ID != newer[0] || page[1].ID != legacy[2] {
			t.Errorf("page (skip 1, limit 2) = %v more %v (%v), want [%s %s] and more", page, more, err, newer[0], legacy[2])
		}
		for _, id := range want {
			r, err := store.GetSignalsRun(ctx, tbl, org, runID, id)
			if err != nil || r.ID != id {
				t.Errorf("GetSignalsRun(%s) = %s, %v", id, r.ID, err)
			}
		}
		last, err := store.GetSignalsRun(ctx, tbl, org, runID, newer[1])
		if err != nil {
			t.Fatal(err)
		}
		prev, err := store.PreviousSignalsRun(ctx, tbl, last)
		if err != nil || prev.ID != newer[0] {
			t.Errorf("PreviousSignalsRun(newest) = %s, %v, want %s", prev.ID, err, newer[0])
		}
		first, _ := store.GetSignalsRun(ctx, tbl, org, runID, newer[0])
		if prev, err := store.PreviousSignalsRun(ctx, tbl, first); err != nil || prev.ID != legacy[2] {
			t.Errorf("PreviousSignalsRun(first new) = %s, %v, want the newest legacy run %s", prev.ID, err, legacy[2])
		}
		if err := store.MarkSignalsNotified(ctx, tbl, last); err != nil {
			t.Errorf("MarkSignalsNotified(new run): %v", err)
		}
		if err := store.ClaimSignalsRun(ctx, tbl, last, t0); err == nil {
			t.Error("ClaimSignalsRun of a succeeded run succeeded, want a failed condition")
		}

		old := store.SignalsFinding{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org, RunID: runID, CreatedAt: t0}
		putLegacySignals(t, tbl, old, runID, "SFIND#"+old.ID, store.EntitySignalsFinding)
		fresh := store.SignalsFinding{ID: uuid.NewString(), OrgID: org, RunID: runID, CreatedAt: t0.Add(2 * time.Hour)}
		r := store.SignalsRun{ID: uuid.NewString(), OrgID: org, RunID: runID, State: store.SignalsQueued, CreatedAt: fresh.CreatedAt}
		if err := store.StartSignalsRun(ctx, tbl, r, "", r.CreatedAt, r.CreatedAt); err != nil {
			t.Fatal(err)
		}
		if err := store.FinishSignalsRun(ctx, tbl, r, store.SignalsQueued, []store.SignalsFinding{fresh}); err != nil {
			t.Fatal(err)
		}
		fs, _, err := store.ListSignalsFindings(ctx, tbl, runID, 0, 10)
		if err != nil || len(fs) != 2 || fs[0].ID != fresh.ID || fs[1].ID != old.ID {
			t.Errorf("findings = %v (%v), want [%s %s]", fs, err, fresh.ID, old.ID)
		}
		byID, err := store.SignalsFindings(ctx, tbl, runID, []string{old.ID, fresh.ID, uuid.NewString()})
		if err != nil || len(byID) != 2 || byID[0].ID != old.ID || byID[1].ID != fresh.ID {
			t.Errorf("SignalsFindings = %v (%v), want [%s %s]", byID, err, old.ID, fresh.ID)
		}
		for _, f := range []store.SignalsFinding{old, fresh} {
			got, err := store.AcknowledgeSignalsFinding(ctx, tbl, f, "u1", t0)
			if err != nil || !got.Acknowledged {
				t.Errorf("acknowledge %s: %+v, %v", f.ID, got, err)
			}
			if read, err := store.GetSignalsFinding(ctx, tbl, org, runID, f.ID); err != nil || !read.Acknowledged {
				t.Errorf("GetSignalsFinding(%s) = %+v, %v, want it acknowledged", f.ID, read, err)
			}
		}
	})
}
