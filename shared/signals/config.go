package signals

import (
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
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
	}}
}

// readPath reads the two uuid4 path parameters.
func readPath(errs *validate.Errors, r *http.Request) (projectID, runID string) {
	projectID, _ = errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	runID, _ = errs.Path("run_id", r.PathValue("run_id")).UUID(4)
	return projectID, runID
}

// put is operation 13: PUT .../runs/{run_id}/signals/configuration creates or replaces the
// run's configuration. The run decides the variant: an experiment's body may not carry the
// scheduling and notification fields, which is told after the run is found (an operation
// rule), each at its field.
func (h *handlers) put(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	projectID, runID := readPath(errs, r)
	req := readPut(errs, raw, present)
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
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
	}
	stored, err := store.PutSignalsConfig(ctx, h.Table, cfg)
	if errors.Is(err, store.ErrConflict) {
		return httpapi.Unavailable("The signals configuration is being changed by another request; retry")
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, configOut(stored))
	return nil
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
	errs := validate.New()
	projectID, runID := readPath(errs, r)
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
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
