package projects

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The scorer settings of a run: the original service's GET, POST and PATCH of
// /projects/{project_id}/runs/{run_id}/scorer-settings, which its Python client calls to
// enable metrics by name on a log stream (enable_metrics, set_metrics) and to read them
// (LogStream.get_metrics). They are the run's metric settings (§2.8) under another path and
// shape, for a log stream or an experiment, so what they enable is what the judges read.

// scorerSettingsResponse is the client's RunScorerSettingsResponse.
type scorerSettingsResponse struct {
	RunID          string                `json:"run_id"`
	Scorers        []store.ScorerConfig  `json:"scorers"`
	SegmentFilters []store.SegmentFilter `json:"segment_filters"`
}

// runPath reads the two uuid4 path parameters of a run.
func runPath(in *base.Input) (x onStream[struct{}]) {
	x.projectID, _ = in.Path("project_id").UUID(4)
	x.id, _ = in.Path("run_id").UUID(4)
	return x
}

// readScorerSettings reads the client's RunScorerSettingsPatchRequest: run_id, required,
// must name the run of the path; scorers and segment_filters as the metric settings' PATCH
// reads them (absent or null: unchanged).
func readScorerSettings(in *base.Input) onStream[settingsPatch] {
	p := runPath(in)
	x := onStream[settingsPatch]{projectID: p.projectID, id: p.id}
	x.req = readSettingsPatch(in.Errs, in.Raw, in.Present)
	// Only an object has a run_id; readSettingsPatch has reported any other body.
	if _, isObject := in.Raw.(map[string]any); isObject {
		o, _ := in.Errs.Body(in.Raw, in.Present).Object()
		if id, ok := o.Get("run_id").Required().UUID(4); ok && p.id != "" && id != p.id {
			o.Get("run_id").Fail("run_id must be the run_id of the path")
		}
	}
	return x
}

// findRun reads a run of the project, or answers 404 naming what is missing: the project
// (also another organization's), or the run within it.
func (h *handlers) findRun(ctx context.Context, c auth.Caller, projectID, id string) (store.Run, error) {
	run, err := store.GetRun(ctx, h.Table, c.OrgID, projectID, id)
	if !errors.Is(err, store.ErrNotFound) {
		return run, err
	}
	if _, err := h.Project(ctx, c, projectID); err != nil {
		return store.Run{}, err
	}
	return store.Run{}, httpapi.NotFound("Run")
}

// getScorerSettings is GET .../runs/{run_id}/scorer-settings.
func (h *handlers) getScorerSettings(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, runPath)
	if err != nil {
		return err
	}
	run, err := h.findRun(r.Context(), call.Caller, call.In.projectID, call.In.id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, scorerSettingsOut(run.ID, run.MetricSettings))
	return nil
}

// upsertScorerSettings is POST and PATCH of .../runs/{run_id}/scorer-settings: both replace
// the parts the body holds (the client's set_metrics replaces the enabled scorers with
// either) and answer the settings as stored afterwards. Every scorer named must be one of
// the organization's, else 422 naming it: the client sends the ids it has just looked up.
func (h *handlers) upsertScorerSettings(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, readScorerSettings)
	if err != nil {
		return err
	}
	c, patch, ctx := call.Caller, call.In.req, r.Context()
	run, err := h.findRun(ctx, c, call.In.projectID, call.In.id)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	scorers := run.Scorers
	if patch.scorers != nil {
		if err := h.checkScorersExist(ctx, c.OrgID, *patch.scorers); err != nil {
			return err
		}
		if err := h.resolveScorerTypes(ctx, c.OrgID, *patch.scorers); err != nil {
			return err
		}
		scorers = *patch.scorers
	}
	change := store.SettingsChange{Scorers: patch.scorers, Segments: patch.segments}
	budget := run.JudgeBudget
	if patch.budgetSet {
		budget, change.Budget = patch.budget, &patch.budget
	}
	// The author becomes the judges' user (Run.JudgeUser), so the prices are the caller's.
	if err := h.checkBudget(ctx, c.OrgID, c.UserID, budget, scorers); err != nil {
		return err
	}
	settings, err := store.ChangeRunSettings(ctx, h.Table, run, c.UserID, change, h.Stamp())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return httpapi.NotFound("Run")
	case errors.Is(err, store.ErrTooLarge):
		return validate.Single(validate.ValueError([]any{"body"}, nil, "the scorer settings are larger than a run can hold"))
	case err != nil:
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, scorerSettingsOut(run.ID, settings))
	return nil
}

// checkScorersExist answers 422 at the id of every config that names no scorer of the
// organization.
func (h *handlers) checkScorersExist(ctx context.Context, orgID string, configs []store.ScorerConfig) error {
	if len(configs) == 0 {
		return nil
	}
	ids := make([]string, len(configs))
	for i, c := range configs {
		ids[i] = c.ID
	}
	found, err := store.ScorersByID(ctx, h.Table, orgID, ids)
	if err != nil {
		return err
	}
	errs := validate.New()
	for i, c := range configs {
		if _, ok := found[c.ID]; !ok {
			errs.Add(validate.ValueError([]any{"body", "scorers", i, "id"}, c.ID, fmt.Sprintf("scorer %s not found", c.ID)))
		}
	}
	return errs.Err()
}

func scorerSettingsOut(runID string, s store.MetricSettings) scorerSettingsResponse {
	out := settingsOut(s)
	return scorerSettingsResponse{RunID: runID, Scorers: out.Scorers, SegmentFilters: out.SegmentFilters}
}
