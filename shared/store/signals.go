package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Signals configurations: one per run (log stream or experiment).
//
//	record                 PK               SK                notes
//	signals configuration  PROJECT#<pid>    SIGNALS#<run id>  org_id scopes every read; rev orders replaces

// EntitySignalsConfig names the signals configuration records.
const EntitySignalsConfig = "signals_config"

// SignalsKey is the key of the signals configuration of a run of a project.
func SignalsKey(projectID, runID string) Key {
	return Key{PK: "PROJECT#" + projectID, SK: "SIGNALS#" + runID}
}

// SignalsConfig is the signals configuration of a run (§2.13). Schedule and the dates are
// nil when not set; an experiment's never has them.
type SignalsConfig struct {
	ID                     string           `json:"id"`
	OrgID                  string           `json:"org_id"`
	ProjectID              string           `json:"project_id"`
	RunID                  string           `json:"run_id"`
	RunKind                string           `json:"run_kind"` // RunLogStream or RunExperiment
	RunMode                string           `json:"run_mode"`
	Schedule               *SignalsSchedule `json:"schedule"`
	StartDate              *string          `json:"start_date"` // YYYY-MM-DD
	EndDate                *string          `json:"end_date"`
	ScheduledRunsEnabled   bool             `json:"scheduled_runs_enabled"`
	Model                  string           `json:"model"`
	FocusOn                string           `json:"focus_on"`
	DontFocusOn            string           `json:"dont_focus_on"`
	NotificationSeverities []string         `json:"notification_severities"`
	WebhookURL             string           `json:"webhook_url,omitempty"`        // beyond the spec
	WebhookSecretRef       string           `json:"webhook_secret_ref,omitempty"` // Secrets Manager ref of the HMAC key
	UpdatedBy              string           `json:"updated_by,omitempty"`         // whose provider integration runs use
	CreatedAt              time.Time        `json:"created_at"`
	UpdatedAt              time.Time        `json:"updated_at"`
}

// SignalsSchedule is a five-field cron expression read in an IANA time zone.
type SignalsSchedule struct {
	Cron     string `json:"cron"`
	Type     string `json:"type"`
	Timezone string `json:"timezone"`
}

// maxSignalsAttempts bounds the optimistic retries of PutSignalsConfig under contention.
const maxSignalsAttempts = 10

// PutSignalsConfig creates the run's configuration, or replaces it keeping its id and
// created_at, and in the same transaction lists it among the configurations with scheduled
// runs (a log stream's with scheduled runs enabled and a schedule) or unlists it (the id and created_at of c are used only for a create). It reads the current
// record strongly consistently and writes conditioned on the revision read, retrying when
// another writer got in between, so a replace never loses the id of a concurrent create.
// It returns the configuration as stored.
func PutSignalsConfig(ctx context.Context, t Table, c SignalsConfig) (SignalsConfig, error) {
	k := SignalsKey(c.ProjectID, c.RunID)
	for range maxSignalsAttempts {
		next := c
		var rev int64
		it, err := t.Get(ctx, k, true)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return SignalsConfig{}, fmt.Errorf("put signals configuration of run %s: %w", c.RunID, err)
		default:
			var cur SignalsConfig
			if err := Unmarshal(it, &cur); err != nil {
				return SignalsConfig{}, fmt.Errorf("put signals configuration of run %s: %w", c.RunID, err)
			}
			if cur.OrgID != c.OrgID { // the run was checked; a stranger's record is a bug
				return SignalsConfig{}, fmt.Errorf("put signals configuration of run %s: %w", c.RunID, ErrNotFound)
			}
			rev, _ = it["rev"].(int64)
			next.ID, next.CreatedAt = cur.ID, cur.CreatedAt
		}
		item, err := Marshal(next)
		if err != nil {
			return SignalsConfig{}, err
		}
		item = item.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntitySignalsConfig, "rev", rev+1)
		cond := NotExists()
		if rev > 0 {
			cond = Equals("rev", rev)
		}
		// The configuration and its entry in the scheduled list change together.
		entry := SignalsScheduled{ConfigurationID: next.ID, OrgID: next.OrgID, ProjectID: next.ProjectID, RunID: next.RunID}
		listOp := DeleteOp(signalsScheduledKey(next.ProjectID, next.RunID))
		if next.ScheduledRunsEnabled && next.Schedule != nil && next.RunKind != RunExperiment {
			e, err := Marshal(entry)
			if err != nil {
				return SignalsConfig{}, err
			}
			k := signalsScheduledKey(next.ProjectID, next.RunID)
			listOp = PutOp(e.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntitySignalsScheduled))
		}
		err = t.Transact(ctx, []Op{PutOp(item, cond), listOp})
		if errors.Is(err, ErrConditionFailed) {
			continue
		}
		if err != nil {
			return SignalsConfig{}, fmt.Errorf("put signals configuration of run %s: %w", c.RunID, err)
		}
		return next, nil
	}
	return SignalsConfig{}, fmt.Errorf("put signals configuration of run %s: %w", c.RunID, ErrConflict)
}

// GetSignalsConfig reads the configuration of a run of the project in the organization;
// ErrNotFound when there is none (or it is another organization's).
func GetSignalsConfig(ctx context.Context, t Table, orgID, projectID, runID string) (SignalsConfig, error) {
	var c SignalsConfig
	if err := getOwned(ctx, t, SignalsKey(projectID, runID), orgID, &c, func() string { return c.OrgID }); err != nil {
		return SignalsConfig{}, fmt.Errorf("get signals configuration of run %s: %w", runID, err)
	}
	return c, nil
}

// DeleteSignalsConfig removes the run's configuration and its scheduled entry; absent is
// ErrNotFound. It returns what was removed.
func DeleteSignalsConfig(ctx context.Context, t Table, orgID, projectID, runID string) (SignalsConfig, error) {
	c, err := GetSignalsConfig(ctx, t, orgID, projectID, runID)
	if err != nil {
		return SignalsConfig{}, err
	}
	err = t.Transact(ctx, []Op{DeleteOp(SignalsKey(projectID, runID), Equals("id", c.ID)), DeleteOp(signalsScheduledKey(projectID, runID))})
	if err != nil {
		return SignalsConfig{}, fmt.Errorf("delete signals configuration of run %s: %w", runID, err)
	}
	return c, nil
}

// SignalsScheduled is the entry of a configuration with scheduled runs in the list that the
// reconcile and the local scheduler read (one partition: these are few and small).
type SignalsScheduled struct {
	ConfigurationID string `json:"configuration_id"`
	OrgID           string `json:"org_id"`
	ProjectID       string `json:"project_id"`
	RunID           string `json:"run_id"`
}

func signalsScheduledKey(projectID, runID string) Key {
	return Key{PK: "SIGSCHED", SK: "CFG#" + projectID + "#" + runID}
}

// SetSignalsScheduled writes (on) or removes (off) the configuration's scheduled entry;
// both are idempotent.
func SetSignalsScheduled(ctx context.Context, t Table, e SignalsScheduled, on bool) error {
	k := signalsScheduledKey(e.ProjectID, e.RunID)
	if !on {
		if err := t.Delete(ctx, k); err != nil {
			return fmt.Errorf("unlist scheduled signals of run %s: %w", e.RunID, err)
		}
		return nil
	}
	it, err := Marshal(e)
	if err != nil {
		return err
	}
	if err := t.Put(ctx, it.With(AttrPK, k.PK, AttrSK, k.SK, AttrEntity, EntitySignalsScheduled)); err != nil {
		return fmt.Errorf("list scheduled signals of run %s: %w", e.RunID, err)
	}
	return nil
}

// ListSignalsScheduled returns every scheduled entry.
func ListSignalsScheduled(ctx context.Context, t Table) ([]SignalsScheduled, error) {
	items, err := QueryAll(ctx, t, Query{PK: "SIGSCHED", SKOp: SKPrefix, From: "CFG#"})
	if err != nil {
		return nil, fmt.Errorf("list scheduled signals: %w", err)
	}
	out := make([]SignalsScheduled, 0, len(items))
	for _, it := range items {
		var e SignalsScheduled
		if err := Unmarshal(it, &e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
