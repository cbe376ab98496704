package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Signals runs and findings: what the signals worker found in a run's traces.
//
//	record          PK                SK                           notes
//	signals run     SIGRUNS#<run id>  SRUN#<created_at>#<id>        SK order is creation order (signals_keys.go)
//	finding         SIGRUNS#<run id>  SFIND#<created_at>#<id>       newest first is a descending query
//	by id           SIGRUNS#<run id>  SRUNID#<id>, SFINDID#<id>     the same record, for reads by id
//	fire claim      SIGRUNS#<run id>  SFIRE#<configuration id>@<scheduled time>   one run per scheduled fire
//	lease           SIGRUNS#<run id>  SLEASE                        the running run; absent when none runs
//	scheduled entry SIGSCHED          CFG#<project id>#<run id>     configurations with scheduled runs (reconcile, make run)
//
// A run's partition is apart from the traces' (RUN#<run id>) so that a scan of traces never
// reads a finding. org_id scopes every read by id.

// Entity names of the signals records.
const (
	EntitySignalsRun       = "signals_run"
	EntitySignalsFinding   = "signals_finding"
	EntitySignalsFire      = "signals_fire"
	EntitySignalsLease     = "signals_lease"
	EntitySignalsScheduled = "signals_scheduled"
)

// States of a signals run.
const (
	SignalsQueued    = "queued"    // created, the worker has not started it
	SignalsRunning   = "running"   // the worker holds the lease
	SignalsSucceeded = "succeeded" // findings stored
	SignalsFailed    = "failed"    // ErrorType says why
	SignalsSkipped   = "skipped"   // a scheduled fire while the previous run was still running
)

// ErrSignalsBusy is returned when a run of the same configuration holds the lease.
var ErrSignalsBusy = errors.New("store: a signals run of this run is in progress")

// ErrDuplicateFire is returned when a run for the same (configuration, scheduled time) exists.
var ErrDuplicateFire = errors.New("store: this scheduled fire already started a signals run")

func signalsRunsPK(runID string) string { return "SIGRUNS#" + runID }

func signalsFireKey(runID, fireKey string) Key {
	return Key{PK: signalsRunsPK(runID), SK: "SFIRE#" + fireKey}
}

func signalsLeaseKey(runID string) Key { return Key{PK: signalsRunsPK(runID), SK: "SLEASE"} }

// SignalsRun is one analysis of a run's traces.
type SignalsRun struct {
	ID              string     `json:"id"`
	OrgID           string     `json:"org_id"`
	ProjectID       string     `json:"project_id"`
	RunID           string     `json:"run_id"`
	ConfigurationID string     `json:"configuration_id"`
	Trigger         string     `json:"trigger"` // ON_DEMAND or SCHEDULED
	ScheduledTime   *time.Time `json:"scheduled_time,omitempty"`
	RequestedBy     string     `json:"requested_by,omitempty"` // the user of an on-demand run
	State           string     `json:"state"`
	Model           string     `json:"model"`
	WindowStart     *time.Time `json:"window_start,omitempty"`
	WindowEnd       *time.Time `json:"window_end,omitempty"`
	TracesInWindow  int64      `json:"traces_in_window"`
	TracesRead      int64      `json:"traces_read"`
	Truncated       bool       `json:"truncated,omitempty"`
	InputTokens     int64      `json:"input_tokens"`
	OutputTokens    int64      `json:"output_tokens"`
	FindingIDs      []string   `json:"finding_ids,omitempty"`
	NewCount        int64      `json:"new_count"`
	RecurringCount  int64      `json:"recurring_count"`
	Resolved        []Resolved `json:"resolved,omitempty"`
	PreviousRunID   string     `json:"previous_run_id,omitempty"`
	ErrorType       string     `json:"error_type,omitempty"`
	ErrorMessage    string     `json:"error_message,omitempty"`
	Notified        bool       `json:"notified,omitempty"`
	CreatedAt       time.Time  `json:"created_at"`
	StartedAt       *time.Time `json:"started_at,omitempty"`
	FinishedAt      *time.Time `json:"finished_at,omitempty"`
}

// Resolved is a finding of the previous run that this run no longer shows.
type Resolved struct {
	FindingID string `json:"finding_id"`
	Kind      string `json:"kind"`
	Title     string `json:"title"`
	Severity  string `json:"severity"`
}

// SignalsFinding is one pattern or problem a signals run found.
type SignalsFinding struct {
	ID              string     `json:"id"`
	OrgID           string     `json:"org_id"`
	ProjectID       string     `json:"project_id"`
	RunID           string     `json:"run_id"`
	ConfigurationID string     `json:"configuration_id"`
	SignalsRunID    string     `json:"signals_run_id"`
	Kind            string     `json:"kind"`
	Title           string     `json:"title"`
	Description     string     `json:"description"`
	Severity        string     `json:"severity"`
	TraceIDs        []string   `json:"trace_ids"`
	SuggestedAction string     `json:"suggested_action"`
	Change          string     `json:"change"` // new or recurring
	FirstSeenRunID  string     `json:"first_seen_run_id"`
	Acknowledged    bool       `json:"acknowledged"`
	AcknowledgedAt  *time.Time `json:"acknowledged_at,omitempty"`
	AcknowledgedBy  string     `json:"acknowledged_by,omitempty"`
	CreatedAt       time.Time  `json:"created_at"`
}

func signalsRunItem(r SignalsRun) (Item, error) {
	it, err := Marshal(r)
	if err != nil {
		return nil, err
	}
	return it.With(AttrEntity, EntitySignalsRun), nil
}

// StartSignalsRun creates a run record in one transaction with, when fireKey is not "",
// the claim of its scheduled fire, and, when the state is running, the lease of the run's
// configuration (held until leaseUntil). A held, unexpired lease is ErrSignalsBusy; an
// existing claim ErrDuplicateFire. A run created skipped or queued takes no lease.
func StartSignalsRun(ctx context.Context, t Table, r SignalsRun, fireKey string, now, leaseUntil time.Time) error {
	it, err := signalsRunItem(r)
	if err != nil {
		return err
	}
	ops := signalsPuts(it, signalsRunKeys(r), NotExists())
	fireAt := -1
	if fireKey != "" {
		fireAt = len(ops)
		k := signalsFireKey(r.RunID, fireKey)
		ops = append(ops, PutOp(Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntitySignalsFire, "signals_run_id": r.ID}, NotExists()))
	}
	leaseAt := -1
	if r.State == SignalsRunning || r.State == SignalsQueued {
		lease, err := leaseOp(ctx, t, r.RunID, r.ID, now, leaseUntil)
		if err != nil {
			return err
		}
		leaseAt = len(ops)
		ops = append(ops, lease)
	}
	err = t.Transact(ctx, ops)
	var tx *TxCanceledError
	if errors.As(err, &tx) {
		switch tx.Failed() {
		case fireAt:
			return ErrDuplicateFire
		case leaseAt:
			return ErrSignalsBusy
		}
	}
	if err != nil {
		return fmt.Errorf("start signals run %s: %w", r.ID, err)
	}
	return nil
}

// leaseOp is the write that takes the lease: a create when nobody holds it, a takeover
// (conditioned on the holder read) when the holder's lease has expired, ErrSignalsBusy else.
func leaseOp(ctx context.Context, t Table, runID, holder string, now, until time.Time) (Op, error) {
	k := signalsLeaseKey(runID)
	item := Item{AttrPK: k.PK, AttrSK: k.SK, AttrEntity: EntitySignalsLease, "holder": holder, "until": until.UTC().Format(time.RFC3339Nano)}
	cur, err := t.Get(ctx, k, true)
	if errors.Is(err, ErrNotFound) {
		return PutOp(item, NotExists()), nil
	}
	if err != nil {
		return Op{}, fmt.Errorf("read signals lease of run %s: %w", runID, err)
	}
	prev, _ := cur["holder"].(string)
	u, _ := cur["until"].(string)
	if exp, err := time.Parse(time.RFC3339Nano, u); err == nil && exp.After(now) {
		return Op{}, ErrSignalsBusy
	}
	return PutOp(item, Equals("holder", prev)), nil
}

// ClaimSignalsRun moves a queued run (as read) to running (the worker's start of an on-demand
// run); a run in any other state is ErrConditionFailed, so that a redelivered start does
// nothing.
func ClaimSignalsRun(ctx context.Context, t Table, r SignalsRun, at time.Time) error {
	ops := signalsUpdates(signalsRunKeys(r), map[string]any{"state": SignalsRunning, "started_at": at.UTC().Format(time.RFC3339Nano)},
		Equals("state", SignalsQueued))
	if err := signalsTransact(ctx, t, ops); err != nil {
		return fmt.Errorf("claim signals run %s: %w", r.ID, err)
	}
	return nil
}

// FinishSignalsRun writes the run in its final state and its findings, all or nothing,
// conditioned on the run being in state `from` (so a finish applies once), then releases
// the run's lease.
func FinishSignalsRun(ctx context.Context, t Table, r SignalsRun, from string, findings []SignalsFinding) error {
	it, err := signalsRunItem(r)
	if err != nil {
		return err
	}
	ops := signalsPuts(it, signalsRunKeys(r), Equals("state", from))
	for _, f := range findings {
		fi, err := Marshal(f)
		if err != nil {
			return err
		}
		ops = append(ops, signalsPuts(fi.With(AttrEntity, EntitySignalsFinding), signalsFindingKeys(f), NotExists())...)
	}
	if err := t.Transact(ctx, ops); err != nil {
		return fmt.Errorf("finish signals run %s: %w", r.ID, err)
	}
	// The lease goes after the run is final, and only if this run still holds it (one that
	// outlived its lease must not release its successor's); a crash in between leaves a
	// lease that expires.
	return ReleaseSignalsLease(ctx, t, r.RunID, r.ID)
}

// ReleaseSignalsLease drops the lease if id holds it.
func ReleaseSignalsLease(ctx context.Context, t Table, runID, id string) error {
	err := t.Delete(ctx, signalsLeaseKey(runID), Equals("holder", id))
	if err != nil && !errors.Is(err, ErrConditionFailed) {
		return fmt.Errorf("release signals lease of run %s: %w", runID, err)
	}
	return nil
}

// MarkSignalsNotified records that the run's notifications were delivered (or given up).
func MarkSignalsNotified(ctx context.Context, t Table, r SignalsRun) error {
	if err := signalsTransact(ctx, t, signalsUpdates(signalsRunKeys(r), map[string]any{"notified": true}, Exists())); err != nil {
		return fmt.Errorf("mark signals run %s notified: %w", r.ID, err)
	}
	return nil
}

// GetSignalsRun reads a signals run of run runID in the organization; ErrNotFound else.
func GetSignalsRun(ctx context.Context, t Table, orgID, runID, id string) (SignalsRun, error) {
	var r SignalsRun
	k := signalsIDKey(runID, signalsRunPrefix, signalsRunByID, id)
	if err := getOwned(ctx, t, k, orgID, &r, func() string { return r.OrgID }); err != nil {
		return SignalsRun{}, fmt.Errorf("get signals run %s: %w", id, err)
	}
	return r, nil
}

// SignalsRunOfFire reads the run a scheduled fire started; ErrNotFound if none.
func SignalsRunOfFire(ctx context.Context, t Table, orgID, runID, fireKey string) (SignalsRun, error) {
	it, err := t.Get(ctx, signalsFireKey(runID, fireKey), true)
	if err != nil {
		return SignalsRun{}, fmt.Errorf("get signals fire %s: %w", fireKey, err)
	}
	id, _ := it["signals_run_id"].(string)
	return GetSignalsRun(ctx, t, orgID, runID, id)
}

// GetSignalsFinding reads a finding of run runID in the organization; ErrNotFound else.
func GetSignalsFinding(ctx context.Context, t Table, orgID, runID, id string) (SignalsFinding, error) {
	var f SignalsFinding
	k := signalsIDKey(runID, signalsFindingPrefix, signalsFindingByID, id)
	if err := getOwned(ctx, t, k, orgID, &f, func() string { return f.OrgID }); err != nil {
		return SignalsFinding{}, fmt.Errorf("get signals finding %s: %w", id, err)
	}
	return f, nil
}

// SignalsFindings reads findings by id (those of one run), in the order of ids.
func SignalsFindings(ctx context.Context, t Table, runID string, ids []string) ([]SignalsFinding, error) {
	keys := make([]Key, len(ids))
	for i, id := range ids {
		keys[i] = signalsIDKey(runID, signalsFindingPrefix, signalsFindingByID, id)
	}
	items, err := t.BatchGet(ctx, keys, true)
	if err != nil {
		return nil, fmt.Errorf("read findings of run %s: %w", runID, err)
	}
	byID := map[string]SignalsFinding{}
	for _, it := range items {
		var f SignalsFinding
		if err := Unmarshal(it, &f); err != nil {
			return nil, err
		}
		byID[f.ID] = f
	}
	out := make([]SignalsFinding, 0, len(ids))
	for _, id := range ids {
		if f, ok := byID[id]; ok {
			out = append(out, f)
		}
	}
	return out, nil
}

// AcknowledgeSignalsFinding marks finding f (as read) acknowledged by user at `at` and
// returns it; an acknowledged finding is returned unchanged (the first acknowledgement
// stays, also when two race).
func AcknowledgeSignalsFinding(ctx context.Context, t Table, f SignalsFinding, user string, at time.Time) (SignalsFinding, error) {
	if f.Acknowledged {
		return f, nil
	}
	err := signalsTransact(ctx, t, signalsUpdates(signalsFindingKeys(f),
		map[string]any{"acknowledged": true, "acknowledged_at": at.UTC().Format(time.RFC3339Nano), "acknowledged_by": user},
		Exists(), AttrAbsent("acknowledged_at")))
	if errors.Is(err, ErrConditionFailed) {
		return GetSignalsFinding(ctx, t, f.OrgID, f.RunID, f.ID)
	}
	if err != nil {
		return SignalsFinding{}, fmt.Errorf("acknowledge signals finding %s: %w", f.ID, err)
	}
	f.Acknowledged, f.AcknowledgedBy = true, user
	a := at.UTC()
	f.AcknowledgedAt = &a
	return f, nil
}

// ListSignalsRuns returns up to limit runs of runID newest first, after skipping `skip`.
func ListSignalsRuns(ctx context.Context, t Table, runID string, skip, limit int) ([]SignalsRun, bool, error) {
	var out []SignalsRun
	more, err := listDesc(ctx, t, runID, signalsRunPrefix, skip, limit, func(it Item) error {
		var r SignalsRun
		if err := Unmarshal(it, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, more, err
}

// ListSignalsFindings returns up to limit findings of runID newest first, after `skip`.
func ListSignalsFindings(ctx context.Context, t Table, runID string, skip, limit int) ([]SignalsFinding, bool, error) {
	var out []SignalsFinding
	more, err := listDesc(ctx, t, runID, signalsFindingPrefix, skip, limit, func(it Item) error {
		var f SignalsFinding
		if err := Unmarshal(it, &f); err != nil {
			return err
		}
		out = append(out, f)
		return nil
	})
	return out, more, err
}

// listDesc pages the prefix of a run's signals partition newest first; it reports whether
// items remain after the page.
func listDesc(ctx context.Context, t Table, runID, prefix string, skip, limit int, fn func(Item) error) (bool, error) {
	q := Query{PK: signalsRunsPK(runID), SKOp: SKPrefix, From: prefix, Descending: true, Consistent: true}
	seen := 0
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return false, fmt.Errorf("list signals records of run %s: %w", runID, err)
		}
		for _, it := range p.Items {
			seen++
			switch {
			case seen <= skip:
			case seen <= skip+limit:
				if err := fn(it); err != nil {
					return false, err
				}
			default:
				return true, nil
			}
		}
		if p.Next == nil {
			return false, nil
		}
		q.Start = p.Next
	}
}

// maxSignalsLookback bounds how many earlier runs PreviousSignalsRun and
// LastSignalsWindowEnd read (a ten-minute schedule over a quiet log stream makes many runs
// that read nothing); past it there is no previous run.
const maxSignalsLookback = 1000

// PreviousSignalsRun is the newest succeeded run of before's run created before it (by key
// order) that read traces: what a new run's findings are compared with. ErrNotFound when none.
func PreviousSignalsRun(ctx context.Context, t Table, before SignalsRun) (SignalsRun, error) {
	runID := before.RunID
	q := Query{PK: signalsRunsPK(runID), SKOp: SKBetween, From: signalsRunPrefix, To: SignalsRunKey(before).SK, Descending: true, Consistent: true, Limit: 100}
	read := 0
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return SignalsRun{}, fmt.Errorf("previous signals run of run %s: %w", runID, err)
		}
		if read += len(p.Items); read > maxSignalsLookback {
			return SignalsRun{}, ErrNotFound
		}
		for _, it := range p.Items {
			var r SignalsRun
			if err := Unmarshal(it, &r); err != nil {
				return SignalsRun{}, err
			}
			if r.ID != before.ID && r.State == SignalsSucceeded && r.TracesRead > 0 {
				return r, nil
			}
		}
		if p.Next == nil {
			return SignalsRun{}, ErrNotFound
		}
		q.Start = p.Next
	}
}

// LastSignalsWindowEnd is the end of the window of the newest run of before's run created
// before it that read its window (succeeded), or the zero time: where the next run's window
// starts.
func LastSignalsWindowEnd(ctx context.Context, t Table, before SignalsRun) (time.Time, error) {
	runID := before.RunID
	q := Query{PK: signalsRunsPK(runID), SKOp: SKBetween, From: signalsRunPrefix, To: SignalsRunKey(before).SK, Descending: true, Consistent: true, Limit: 100}
	read := 0
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return time.Time{}, fmt.Errorf("last signals window of run %s: %w", runID, err)
		}
		if read += len(p.Items); read > maxSignalsLookback {
			return time.Time{}, nil
		}
		for _, it := range p.Items {
			var r SignalsRun
			if err := Unmarshal(it, &r); err != nil {
				return time.Time{}, err
			}
			if r.ID != before.ID && r.State == SignalsSucceeded && r.WindowEnd != nil {
				return *r.WindowEnd, nil
			}
		}
		if p.Next == nil {
			return time.Time{}, nil
		}
		q.Start = p.Next
	}
}

// signalsTransact writes the ops of one record's items: one op (a legacy record's one item)
// as a plain update, several in one transaction; a failed condition is ErrConditionFailed
// either way.
func signalsTransact(ctx context.Context, t Table, ops []Op) error {
	if len(ops) == 1 && ops[0].Kind == OpUpdate {
		_, err := t.Update(ctx, ops[0].Update)
		return err
	}
	return t.Transact(ctx, ops)
}
