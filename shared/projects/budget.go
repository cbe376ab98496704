package projects

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Daily judge budgets in the metric settings (beyond the specification; issue 16 point 7,
// docs/EVALUATION-PIPELINE.md "Budgets"):
//
//	"judge_budget": {"daily_tokens": 2000000, "daily_usd": 5.0,
//	                 "scorers": {"<scorer id>": {"daily_tokens": null, "daily_usd": 1.0}}}
//
// Every field optional; null or absent is unlimited; "judge_budget": null removes the budget.

// Pricer tells whether the judge would price a model for a user: the model's integration (by
// the judge's resolution rule) has a model_prices entry. why says what is missing.
type Pricer interface {
	HasPrice(ctx context.Context, orgID, userID, model string) (ok bool, why string, err error)
}

// readJudgeBudget reads the body's judge_budget: set false when absent (unchanged).
func readJudgeBudget(o validate.Obj) (set bool, b *store.JudgeBudget) {
	v := o.Get("judge_budget")
	if !v.Present() {
		return false, nil
	}
	if v.IsNull() {
		return true, nil
	}
	bo, ok := v.Object()
	if !ok {
		return true, nil
	}
	b = &store.JudgeBudget{BudgetLimit: readLimit(bo)}
	if sv := bo.Get("scorers"); sv.Present() && !sv.IsNull() {
		so, ok := sv.Dict()
		if !ok {
			return true, b
		}
		b.Scorers = map[string]store.BudgetLimit{}
		for _, id := range so.Keys() {
			if lo, ok := so.Get(id).Object(); ok {
				b.Scorers[id] = readLimit(lo)
			}
		}
	}
	return true, b
}

func readLimit(o validate.Obj) store.BudgetLimit {
	var l store.BudgetLimit
	if v := o.Get("daily_tokens"); v.Present() && !v.IsNull() {
		if n, ok := v.Int(validate.Ge(1)); ok {
			l.DailyTokens = &n
		}
	}
	if v := o.Get("daily_usd"); v.Present() && !v.IsNull() {
		if f, ok := v.Float(validate.Gt(0), validate.Le(1e9)); ok {
			l.DailyUSD = &f
		}
	}
	return l
}

// checkBudget refuses (422) a budget naming a scorer the settings do not hold, and a USD
// budget on a judge whose model has no price for userID (the settings' author, whose
// integrations the judges use): a stream-wide USD budget needs every LLM scorer priced.
func (h *handlers) checkBudget(ctx context.Context, orgID, userID string, b *store.JudgeBudget, scorers []store.ScorerConfig) error {
	if b == nil {
		return nil
	}
	errs := validate.New()
	loc := []any{"body", "judge_budget"}
	priced := map[string]bool{}
	for _, id := range sortedKeys(b.Scorers) {
		if !slices.ContainsFunc(scorers, func(c store.ScorerConfig) bool { return c.ID == id }) {
			errs.Add(validate.ValueError(append(loc, "scorers", id), nil, "scorer "+id+" is not in the metric settings"))
			continue
		}
		if b.Scorers[id].DailyUSD != nil {
			priced[id] = true
		}
	}
	for _, c := range scorers {
		if b.DailyUSD != nil && llmScorer(c) {
			priced[c.ID] = true
		}
	}
	if len(priced) > 0 {
		models, err := h.judgeModels(ctx, orgID, scorers)
		if err != nil {
			return err
		}
		for _, c := range scorers {
			if !priced[c.ID] || !llmScorer(c) {
				continue
			}
			ok, why, err := h.hasPrice(ctx, orgID, userID, models[c.ID])
			if err != nil {
				return err
			}
			if !ok {
				errs.Add(validate.ValueError(loc, nil, fmt.Sprintf("a USD budget needs the price of scorer %s's model %q (model_prices of its integration): %s",
					c.ID, models[c.ID], why)))
			}
		}
	}
	return errs.Err()
}

func (h *handlers) hasPrice(ctx context.Context, orgID, userID, model string) (bool, string, error) {
	if h.Prices == nil {
		return false, "no price source in this deployment", nil
	}
	return h.Prices.HasPrice(ctx, orgID, userID, model)
}

// judgeModels is the model each scorer config's judge asks, as the judge resolves it: the
// config's model_name or model_alias, else its scorer's latest version's, else the scorer's
// default, else default_model_alias ("" : the integration's default model).
func (h *handlers) judgeModels(ctx context.Context, orgID string, configs []store.ScorerConfig) (map[string]string, error) {
	ids := make([]string, 0, len(configs))
	for _, c := range configs {
		ids = append(ids, c.ID)
	}
	scorers, err := store.ScorersByID(ctx, h.Table, orgID, ids)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, c := range configs {
		cands := []*string{c.ModelName, c.ModelAlias}
		if s, ok := scorers[c.ID]; ok {
			if s.LatestVersion != nil {
				cands = append(cands, s.LatestVersion.ModelName)
			}
			cands = append(cands, s.Defaults.ModelName)
		}
		cands = append(cands, c.DefaultModelAlias)
		for _, p := range cands {
			if p != nil && *p != "" {
				out[c.ID] = *p
				break
			}
		}
	}
	return out, nil
}

// llmScorer: the scorers a judge model runs (not code, not luna).
func llmScorer(c store.ScorerConfig) bool {
	t := ""
	if c.ScorerType != nil {
		t = *c.ScorerType
	}
	return t != "code" && t != "luna"
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// spendOut is today's (UTC) spend of the log stream's judges and the pacing now: the
// settings' "judge_spend" (beyond the specification).
type spendOut struct {
	Day            string                `json:"day"`
	Judgments      int64                 `json:"judgments"`
	Tokens         int64                 `json:"tokens"`
	USD            float64               `json:"usd"`
	ReservedTokens int64                 `json:"reserved_tokens"`
	ReservedUSD    float64               `json:"reserved_usd"`
	Scorers        map[string]scorerPace `json:"scorers"`
}

type scorerPace struct {
	Judgments int64   `json:"judgments"`
	Tokens    int64   `json:"tokens"`
	USD       float64 `json:"usd"`
	// Pace multiplies every sample rate of the scorer (1: the budget does not slow it).
	Pace float64 `json:"pace"`
	// EffectiveSampleRate is the paced rate of a trace no segment filter matches.
	EffectiveSampleRate float64 `json:"effective_sample_rate"`
}

func (h *handlers) spend(ctx context.Context, runID string, s store.MetricSettings, now time.Time) (spendOut, error) {
	u, err := store.GetDayUsage(ctx, h.Table, runID, now)
	if err != nil {
		return spendOut{}, err
	}
	bt, bu := u.Committed("")
	usd := u.USD("")
	out := spendOut{Day: now.UTC().Format("2006-01-02"), Judgments: u.Judgments(""), Tokens: u.Tokens(""), USD: usd.Float64(),
		Scorers: map[string]scorerPace{}}
	out.ReservedTokens = max(bt-out.Tokens, 0)
	out.ReservedUSD = max(float64(bu-store.NanoUSD(&usd))/1e9, 0)
	for _, c := range s.Scorers {
		su := u.USD(c.ID)
		p := store.Pace(s.JudgeBudget, u, c.ID, now)
		out.Scorers[c.ID] = scorerPace{Judgments: u.Judgments(c.ID), Tokens: u.Tokens(c.ID), USD: su.Float64(),
			Pace: p, EffectiveSampleRate: p * unfilteredRate(s.SegmentFilters, c)}
	}
	return out, nil
}

// unfilteredRate is the sample rate of scorer c on a trace no segment filter matches: the
// first segment without a filter that applies to c, else 1 (SPEC-DECISIONS.md).
func unfilteredRate(segments []store.SegmentFilter, c store.ScorerConfig) float64 {
	for _, s := range segments {
		if s.Filter != nil || s.LLMScorers && !llmScorer(c) || s.MultimodalScorers && len(c.MultimodalCapabilities) == 0 {
			continue
		}
		return s.SampleRate
	}
	return 1
}
