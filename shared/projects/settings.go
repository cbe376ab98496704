package projects

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// settingsResponse is MetricSettingsResponse (§2.8): scorers always a list, segment_filters
// null until they are first set.
// Beyond the specification, only when the log stream has a daily judge budget (so the
// specification's shape is unchanged otherwise): judge_budget and judge_spend (today's spend
// and pacing, budget.go).
type settingsResponse struct {
	Scorers        []store.ScorerConfig  `json:"scorers"`
	SegmentFilters []store.SegmentFilter `json:"segment_filters"`
	JudgeBudget    *store.JudgeBudget    `json:"judge_budget,omitempty"`
	JudgeSpend     *spendOut             `json:"judge_spend,omitempty"`
}

// settingsWithSpend is settingsOut with the run's spend of today.
func (h *handlers) settingsWithSpend(ctx context.Context, runID string, s store.MetricSettings) (settingsResponse, error) {
	out := settingsOut(s)
	if s.JudgeBudget == nil {
		return out, nil
	}
	sp, err := h.spend(ctx, runID, s, h.Now())
	if err != nil {
		return out, err
	}
	out.JudgeSpend = &sp
	return out, nil
}

func settingsOut(s store.MetricSettings) settingsResponse {
	out := settingsResponse{Scorers: make([]store.ScorerConfig, len(s.Scorers)), SegmentFilters: s.SegmentFilters, JudgeBudget: s.JudgeBudget}
	for i, c := range s.Scorers {
		if c.ScorerType == nil { // stored before scorer types were resolved on write
			t := inferScorerType(c)
			c.ScorerType = &t
		}
		out.Scorers[i] = c
	}
	return out
}

// resolveScorerTypes gives every scorer config without a scorer_type one, since the
// original's clients require it in every answer (§2.8 lets a request leave it out): the
// type of the organization's scorer the config names, else the one its other fields imply.
func (h *handlers) resolveScorerTypes(ctx context.Context, orgID string, configs []store.ScorerConfig) error {
	var ids []string
	for _, c := range configs {
		if c.ScorerType == nil {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	scorers, err := store.ScorersByID(ctx, h.Table, orgID, ids)
	if err != nil {
		return err
	}
	for i, c := range configs {
		if c.ScorerType != nil {
			continue
		}
		t := inferScorerType(c)
		if s, ok := scorers[c.ID]; ok && slices.Contains(store.ScorerTypes, s.ScorerType) {
			t = s.ScorerType
		}
		configs[i].ScorerType = &t
	}
	return nil
}

// inferScorerType is the type a scorer config's fields imply: code for code and registered
// scorers, luna for fine-tuned small models, preset for the service's named scorers, and
// llm (the judge-model scorers) otherwise.
func inferScorerType(c store.ScorerConfig) string {
	switch {
	case c.ModelType != nil && *c.ModelType == "code", c.UserCode != nil, c.RegisteredScorerID != nil, c.ScorerPathName != nil:
		return "code"
	case c.ModelType != nil && *c.ModelType == "slm", c.LoraTaskID != nil, c.LoraWeightsPath != nil, c.LunaInputType != nil, c.LunaOutputType != nil:
		return "luna"
	case c.Name != nil && slices.Contains(scorerNames, *c.Name):
		return "preset"
	}
	return "llm"
}

// settingsPatch is a validated PATCH body: a nil part is left as it is stored.
type settingsPatch struct {
	scorers   *[]store.ScorerConfig
	segments  *[]store.SegmentFilter
	budgetSet bool // judge_budget present (null: removed)
	budget    *store.JudgeBudget
}

// readSettingsPatch reads {"scorers": [...], "segment_filters": [...]}; each part is optional,
// and absent or null leaves it unchanged.
func readSettingsPatch(errs *validate.Errors, raw any, present bool) settingsPatch {
	var p settingsPatch
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return p
	}
	if items, ok := o.Get("scorers").Nullable().List(); ok {
		scorers := make([]store.ScorerConfig, 0, len(items))
		seen := map[string]bool{}
		for _, it := range items {
			c, _ := readScorerConfig(it)
			if c.ID != "" && seen[c.ID] {
				o, _ := it.Object()
				o.Get("id").Fail(fmt.Sprintf("scorer %s is configured twice", c.ID))
			}
			seen[c.ID] = true
			scorers = append(scorers, c)
		}
		p.scorers = &scorers
	}
	if items, ok := o.Get("segment_filters").Nullable().List(); ok {
		segments := make([]store.SegmentFilter, 0, len(items))
		for _, it := range items {
			sf, _ := readSegmentFilter(it)
			segments = append(segments, sf)
		}
		p.segments = &segments
	}
	p.budgetSet, p.budget = readJudgeBudget(o)
	return p
}

// getMetricSettings is operation 9: GET .../log_streams/{log_stream_id}/metric_settings.
func (h *handlers) getMetricSettings(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, logStreamPath)
	if err != nil {
		return err
	}
	ls, err := h.findLogStream(r.Context(), call.Caller, call.In.projectID, call.In.id)
	if err != nil {
		return err
	}
	out, err := h.settingsWithSpend(r.Context(), ls.ID, ls.MetricSettings)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// patchMetricSettings is PATCH .../log_streams/{log_stream_id}/metric_settings: it replaces
// the parts the body holds and answers the settings as stored afterwards.
func (h *handlers) patchMetricSettings(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, onLogStream(readSettingsPatch))
	if err != nil {
		return err
	}
	c, patch := call.Caller, call.In.req
	ls, err := h.findLogStream(r.Context(), c, call.In.projectID, call.In.id)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(r.Context()); err != nil {
		return err
	}
	if patch.scorers != nil {
		if err := h.resolveScorerTypes(r.Context(), c.OrgID, *patch.scorers); err != nil {
			return err
		}
	}
	change := store.SettingsChange{Scorers: patch.scorers, Segments: patch.segments}
	budget, scorers := ls.JudgeBudget, ls.Scorers
	if patch.budgetSet {
		budget, change.Budget = patch.budget, &patch.budget
	}
	if patch.scorers != nil {
		scorers = *patch.scorers
	}
	// The author becomes the judges' user (Run.JudgeUser), so the prices are the caller's.
	if err := h.checkBudget(r.Context(), c.OrgID, c.UserID, budget, scorers); err != nil {
		return err
	}
	settings, err := store.ChangeMetricSettings(r.Context(), h.Table, ls, c.UserID, change, h.Stamp())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return httpapi.NotFound("Log stream")
	case errors.Is(err, store.ErrTooLarge):
		return validate.Single(validate.ValueError([]any{"body"}, nil, "the metric settings are larger than a log stream can hold"))
	case err != nil:
		return err
	}
	out, err := h.settingsWithSpend(r.Context(), ls.ID, settings)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
