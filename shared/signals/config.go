package signals

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Run modes of a configuration.
const (
	RunModeOnDemand  = "ON_DEMAND"
	RunModeScheduled = "SCHEDULED"
)

// configResponse is the `data` object of §2.13, every field present.
type configResponse struct {
	ID                     string                 `json:"id"`
	ProjectID              string                 `json:"project_id"`
	RunID                  string                 `json:"run_id"`
	RunMode                string                 `json:"run_mode"`
	Schedule               *store.SignalsSchedule `json:"schedule"`
	StartDate              *string                `json:"start_date"`
	EndDate                *string                `json:"end_date"`
	ScheduledRunsEnabled   bool                   `json:"scheduled_runs_enabled"`
	Model                  string                 `json:"model"`
	UserPreferences        userPreferences        `json:"user_preferences"`
	NotificationSeverities []string               `json:"notification_severities"`
	WebhookURL             *string                `json:"webhook_url"`
	WebhookSecretSet       bool                   `json:"webhook_secret_set"`
	CreatedAt              time.Time              `json:"created_at"`
	UpdatedAt              time.Time              `json:"updated_at"`
}

type userPreferences struct {
	FocusOn     string `json:"focus_on"`
	DontFocusOn string `json:"dont_focus_on"`
}

type envelope struct {
	Data configResponse `json:"data"`
}

func configOut(c store.SignalsConfig) envelope {
	sev := c.NotificationSeverities
	if sev == nil {
		sev = []string{}
	}
	return envelope{Data: configResponse{
		ID: c.ID, ProjectID: c.ProjectID, RunID: c.RunID, RunMode: c.RunMode, Schedule: c.Schedule,
		StartDate: c.StartDate, EndDate: c.EndDate, ScheduledRunsEnabled: c.ScheduledRunsEnabled, Model: c.Model,
		UserPreferences:        userPreferences{FocusOn: c.FocusOn, DontFocusOn: c.DontFocusOn},
		NotificationSeverities: sev, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		WebhookURL: shownURL(c.WebhookURL), WebhookSecretSet: c.WebhookSecretRef != "",
	}}
}

// runRef names a run, and a record of its signals, by the path.
type runRef struct {
	projectID, runID string
	ids              []string // the path's further ids, in the order asked
}

// readPath reads the two uuid4 path parameters of a run.
func readPath(in *base.Input) runRef { return readRunPath(in) }

// readRunPath reads the path of a run, then the further ids named extra.
func readRunPath(in *base.Input, extra ...string) (ref runRef) {
	ref.projectID, _ = in.Path("project_id").UUID(4)
	ref.runID, _ = in.Path("run_id").UUID(4)
	for _, name := range extra {
		id, _ := in.Path(name).UUID(0)
		ref.ids = append(ref.ids, id)
	}
	return ref
}

// put is operation 13: PUT .../runs/{run_id}/signals/configuration creates or replaces the
// run's configuration. The run decides the variant: an experiment's body may not carry the
// scheduling and notification fields, which is told after the run is found (an operation
// rule), each at its field.
func (h *handlers) put(w http.ResponseWriter, r *http.Request) error {
	type putIn struct {
		ref runRef
		req putRequest
	}
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) putIn {
		return putIn{readPath(in), readPut(in.Errs, in.Raw, in.Present, h.CheckWebhookURL)}
	})
	if err != nil {
		return err
	}
	c, projectID, runID, req, ctx := call.Caller, call.In.ref.projectID, call.In.ref.runID, call.In.req, r.Context()
	run, err := store.GetRun(ctx, h.Table, c.OrgID, projectID, runID)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Run")
	}
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	cur, err := store.GetSignalsConfig(ctx, h.Table, c.OrgID, projectID, runID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	now := h.Stamp()
	cfg := store.SignalsConfig{ID: uuid.NewString(), OrgID: c.OrgID, ProjectID: projectID, RunID: runID,
		RunKind: run.Kind, RunMode: RunModeOnDemand, Model: req.model, FocusOn: req.focusOn,
		DontFocusOn: req.dontFocusOn, CreatedAt: now, UpdatedAt: now}
	if run.Kind == store.RunExperiment {
		if err := experimentOnly(req); err != nil {
			return err
		}
		cfg.NotificationSeverities = []string{}
	} else {
		cfg.Schedule, cfg.StartDate, cfg.EndDate = req.schedule, req.startDate, req.endDate
		cfg.ScheduledRunsEnabled, cfg.NotificationSeverities = req.scheduledRuns, req.severities
		if cfg.ScheduledRunsEnabled && cfg.Schedule != nil {
			cfg.RunMode = RunModeScheduled
		}
		if err := h.webhook(ctx, &cfg, cur, req); err != nil {
			return err
		}
	}
	cfg.UpdatedBy = c.UserID
	stored, err := store.PutSignalsConfig(ctx, h.Table, cfg)
	if errors.Is(err, store.ErrConflict) {
		return httpapi.Unavailable("The signals configuration is being changed by another request; retry")
	}
	if err != nil {
		return err
	}
	// The table first (the configuration and its scheduled entry, one transaction), then the
	// schedule: a failed schedule call is repaired by the next PUT or by the reconcile, which
	// read the table.
	h.syncSchedule(ctx, stored, true)
	if cur.WebhookSecretRef != "" && stored.WebhookSecretRef == "" {
		h.deleteKey(ctx, cur)
	}
	httpapi.WriteJSON(w, http.StatusOK, configOut(stored))
	return nil
}

// webhook sets the configuration's webhook: a new key goes to the secrets store before the
// table refers to it; without one the stored key stays; a URL needs a key.
func (h *handlers) webhook(ctx context.Context, cfg *store.SignalsConfig, cur store.SignalsConfig, req putRequest) error {
	if req.webhookURL == "" {
		return nil
	}
	cfg.WebhookURL = req.webhookURL
	if req.webhookSecret == "" {
		if cur.WebhookSecretRef == "" {
			return validate.Single(validate.Error{Type: "missing", Loc: []any{"body", "webhook_secret"},
				Msg: "Field required: a webhook_url needs a webhook_secret (whsec_...) the first time", Input: nil})
		}
		cfg.WebhookSecretRef = cur.WebhookSecretRef
		return nil
	}
	if h.Secrets == nil {
		return httpapi.Unavailable("Webhook keys cannot be stored on this host")
	}
	ref, err := h.Secrets.Put(ctx, WebhookSecretName(cfg.RunID), []byte(req.webhookSecret),
		map[string]string{"org_id": cfg.OrgID, "kind": "signals-webhook"})
	if err != nil {
		return fmt.Errorf("storing the webhook key: %w", err)
	}
	cfg.WebhookSecretRef = ref
	return nil
}

// WebhookSecretName is the secrets store name of the webhook key of a run's configuration.
func WebhookSecretName(runID string) string { return "signals-webhooks/" + runID }

// shownURL is a webhook URL as responses show it: scheme and host only, since the path or
// query of a hook URL is often its token.
func shownURL(u string) *string {
	if u == "" {
		return nil
	}
	s := notify.Destination{URL: u}.String()
	s = strings.TrimPrefix(s, "webhook ")
	return &s
}

// deleteConfig is DELETE .../signals/configuration (beyond the specification): the
// configuration, its scheduled entry and its schedule go; its runs and findings stay.
func (h *handlers) deleteConfig(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readPath)
	if err != nil {
		return err
	}
	c, projectID, runID := call.Caller, call.In.projectID, call.In.runID
	ctx := r.Context()
	if _, err := store.GetSignalsConfig(ctx, h.Table, c.OrgID, projectID, runID); errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Signals configuration")
	} else if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	cfg, err := store.DeleteSignalsConfig(ctx, h.Table, c.OrgID, projectID, runID)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrConditionFailed) {
		return httpapi.NotFound("Signals configuration")
	}
	if err != nil {
		return err
	}
	h.syncSchedule(ctx, cfg, false)
	h.deleteKey(ctx, cfg)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// syncSchedule makes the configuration's schedule match it (exists: the configuration is
// stored; false after a delete). A failure is logged: the table is already right, and the
// next PUT or the periodic reconcile repairs the schedule.
func (h *handlers) syncSchedule(ctx context.Context, cfg store.SignalsConfig, exists bool) {
	if h.Schedules == nil {
		return
	}
	if err := SyncSchedule(ctx, h.Schedules, cfg, exists, h.Now()); err != nil {
		h.Log.WarnContext(ctx, "signals: the schedule was not updated; the reconcile will repair it", "configuration_id", cfg.ID, "error", err.Error())
	}
}

// experimentOnly refuses the log-stream-only fields in an experiment's body, each as the
// experiment variant's model (extra="forbid") would: extra_forbidden at the field.
func experimentOnly(req putRequest) error {
	errs := validate.New()
	for _, name := range logStreamOnly {
		if v, ok := req.sent[name]; ok {
			errs.Add(validate.Error{Type: "extra_forbidden", Loc: v.Loc(), Msg: "Extra inputs are not permitted", Input: v.Raw()})
		}
	}
	return errs.Err()
}

// get is GET .../runs/{run_id}/signals/configuration: the stored configuration.
func (h *handlers) get(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readPath)
	if err != nil {
		return err
	}
	c, projectID, runID := call.Caller, call.In.projectID, call.In.runID
	cfg, err := store.GetSignalsConfig(r.Context(), h.Table, c.OrgID, projectID, runID)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Signals configuration")
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, configOut(cfg))
	return nil
}

// deleteKey deletes the webhook key of a configuration that no longer refers to it; a
// failure leaves an orphan key, logged.
func (h *handlers) deleteKey(ctx context.Context, cfg store.SignalsConfig) {
	if cfg.WebhookSecretRef == "" || h.Secrets == nil {
		return
	}
	if err := h.Secrets.Delete(ctx, cfg.WebhookSecretRef); err != nil {
		h.Log.WarnContext(ctx, "signals: deleting the webhook key failed", "configuration_id", cfg.ID, "error", err.Error())
	}
}
