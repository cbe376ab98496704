package projects

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/store"
)

// fakePrices prices the models named "priced-*" only.
type fakePrices struct{}

func (fakePrices) HasPrice(_ context.Context, _, _, model string) (bool, string, error) {
	if strings.HasPrefix(model, "priced-") {
		return true, "", nil
	}
	return false, "the model has no price", nil
}

func budgetScorers(modelA, modelB string) string {
	return `[{"id":"` + scorerA + `","scorer_type":"llm","model_name":"` + modelA + `"},
	         {"id":"` + scorerB + `","scorer_type":"llm","model_name":"` + modelB + `"}]`
}

// TestJudgeBudgetPatch: a budget is stored and shown; a USD budget on a judge model without a
// price, a budget on a scorer the settings do not hold and a zero budget are refused (422).
func TestJudgeBudgetPatch(t *testing.T) {
	cases := []struct {
		name, scorers, budget string
		code                  int
	}{
		{"tokens on the stream", budgetScorers("free-a", "free-b"), `{"daily_tokens": 1000}`, 200},
		{"usd on a priced scorer", budgetScorers("priced-a", "free-b"), `{"scorers": {"` + scorerA + `": {"daily_usd": 2.5}}}`, 200},
		{"usd on an unpriced scorer", budgetScorers("priced-a", "free-b"), `{"scorers": {"` + scorerB + `": {"daily_usd": 2.5}}}`, 422},
		{"usd on the stream, one scorer unpriced", budgetScorers("priced-a", "free-b"), `{"daily_usd": 10}`, 422},
		{"usd on the stream, all priced", budgetScorers("priced-a", "priced-b"), `{"daily_usd": 10, "daily_tokens": null}`, 200},
		{"unknown scorer", budgetScorers("priced-a", "priced-b"), `{"scorers": {"99999999-2222-4333-8444-555555555555": {"daily_tokens": 5}}}`, 422},
		{"zero tokens", budgetScorers("priced-a", "priced-b"), `{"daily_tokens": 0}`, 422},
		{"negative usd", budgetScorers("priced-a", "priced-b"), `{"daily_usd": -1}`, 422},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			user := &h.org.User
			pid := h.project(user, "p")
			lsid := h.logStream(user, pid, "ls")
			path := "/v2/projects/" + pid + "/log_streams/" + lsid + "/metric_settings"
			code, body := h.do(user, "PATCH", path, `{"scorers": `+c.scorers+`, "judge_budget": `+c.budget+`}`)
			if code != c.code {
				t.Fatalf("PATCH = %d %s, want %d", code, body, c.code)
			}
			var got map[string]any
			h.must(user, "GET", path, "", &got)
			if _, has := got["judge_budget"]; has != (c.code == 200) {
				t.Errorf("judge_budget shown %v after %d: %v", has, code, got)
			}
			if c.code != 200 {
				return
			}
			// removed by null: the specification's shape again
			h.must(user, "PATCH", path, `{"judge_budget": null}`, nil)
			got = nil
			h.must(user, "GET", path, "", &got)
			if _, has := got["judge_budget"]; has {
				t.Errorf("judge_budget still shown after null: %v", got)
			}
		})
	}
}

// TestJudgeSpendShown: GET metric settings shows today's spend, per scorer, and the pace.
func TestJudgeSpendShown(t *testing.T) {
	h := newHarness(t)
	user := &h.org.User
	pid := h.project(user, "p")
	lsid := h.logStream(user, pid, "ls")
	path := "/v2/projects/" + pid + "/log_streams/" + lsid + "/metric_settings"
	h.must(user, "PATCH", path, `{"scorers": `+budgetScorers("priced-a", "priced-b")+`,
		"segment_filters": [{"sample_rate": 0.5}], "judge_budget": {"daily_tokens": 1000}}`, nil)
	usd, _ := fixed.FromFloat(0.25)
	for range 4 {
		if _, err := h.tbl.Update(context.Background(), store.UsageUpdate(lsid, h.now, scorerA, 100, 50, &usd)); err != nil {
			t.Fatal(err)
		}
	}
	var got struct {
		Spend struct {
			Tokens    int64   `json:"tokens"`
			USD       float64 `json:"usd"`
			Judgments int64   `json:"judgments"`
			Scorers   map[string]struct {
				Tokens    int64   `json:"tokens"`
				Pace      float64 `json:"pace"`
				Effective float64 `json:"effective_sample_rate"`
			} `json:"scorers"`
		} `json:"judge_spend"`
	}
	h.must(user, "GET", path, "", &got)
	s := got.Spend
	if s.Tokens != 600 || s.USD != 1 || s.Judgments != 4 || s.Scorers[scorerA].Tokens != 600 || s.Scorers[scorerB].Tokens != 0 {
		b, _ := json.Marshal(s)
		t.Fatalf("spend %s: want 600 tokens, 1 USD, 4 judgments, all of scorer A", b)
	}
	// 600 of 1000 tokens by 07:08 UTC: the rest of the day would bring far more, so paced.
	if a := s.Scorers[scorerA]; a.Pace <= 0 || a.Pace >= 1 || a.Effective != 0.5*a.Pace {
		t.Errorf("scorer A: pace %v, effective %v; want 0 < pace < 1 and effective = 0.5 × pace", a.Pace, a.Effective)
	}
}
