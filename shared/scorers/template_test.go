package scorers

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/store"
)

func TestChainPollTemplate(t *testing.T) {
	for _, tc := range []struct {
		name, outputType string
		options          store.AnswerOptions
		cot              bool
		contains         []string
		rating           string // JSON of the rating's schema
	}{
		{"categorical", "categorical", store.AnswerOptions{Labels: []string{"red", "blue"}}, false,
			[]string{"Question: Which colour?", `exactly one of: "red", "blue".`, "one or two sentences"},
			`{"type":"string","enum":["red","blue"]}`},
		{"multilabel", "multilabel", store.AnswerOptions{Labels: []string{"a", "b"}}, true,
			[]string{`every option that applies, chosen from: "a", "b".`, "Think step by step"},
			`{"type":"array","items":{"type":"string","enum":["a","b"]}}`},
		{"discrete", "discrete", store.AnswerOptions{Levels: []store.DecisionLevel{{Label: "low", Value: 0}, {Label: "high", Value: 1}}}, false,
			[]string{`lowest to highest: "low", "high".`}, `{"type":"string","enum":["low","high"]}`},
		{"boolean without labels", "boolean", store.AnswerOptions{}, false, []string{"Answer true or false."}, `{"type":"boolean"}`},
		{"boolean_probability", "boolean_probability", store.AnswerOptions{}, false,
			[]string{"probability, between 0 and 1"}, `{"type":"number","minimum":0,"maximum":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl := chainPollTemplate("Which colour?", tc.outputType, tc.options, tc.cot)
			for _, want := range append(tc.contains, "{input}", "{output}", `"explanation"`, `"rating"`) {
				if !strings.Contains(tpl.Template, want) {
					t.Errorf("template lacks %q:\n%s", want, tpl.Template)
				}
			}
			if tpl.ValueFieldName != "rating" || tpl.ExplanationFieldName != "explanation" ||
				tpl.MetricFewShotExamples == nil || *tpl.MetricDescription != "Which colour?" {
				t.Errorf("template fields: %+v", tpl)
			}
			b, _ := json.Marshal(tpl.ResponseSchema["properties"].(map[string]any)["rating"])
			apitest.SameJSON(t, string(b), tc.rating)
		})
	}
}

func TestNewVersionDefaults(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := auth.Caller{UserID: "u", OrgID: "o"}
	s := llmScorer("boolean")
	s.Defaults = store.ScorerDefaults{ModelName: ptr("default-model"), NumJudges: ptr(int64(3)), CotEnabled: ptr(false)}
	latest := &store.ScorerVersion{ModelName: ptr("latest-model"), NumJudges: ptr(int64(5))}
	for _, tc := range []struct {
		name   string
		latest *store.ScorerVersion
		req    decisionRequest
		model  string
		judges int64
		cot    bool
	}{
		{"scorer defaults", nil, decisionRequest{question: "q"}, "default-model", 3, false},
		{"latest version first", latest, decisionRequest{question: "q"}, "latest-model", 5, false},
		{"request wins", latest, decisionRequest{question: "q", modelName: ptr("mine"), numJudges: ptr(int64(7)), cotEnabled: ptr(true)}, "mine", 7, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newVersion(c, s, tc.latest, tc.req, store.AnswerOptions{}, now)
			if *v.ModelName != tc.model || *v.NumJudges != tc.judges || *v.CotEnabled != tc.cot {
				t.Errorf("got model %s judges %d cot %v", *v.ModelName, *v.NumJudges, *v.CotEnabled)
			}
			if *v.OutputType != "boolean" || *v.InputType != "basic" || len(v.ScoreableNodeTypes) != 2 ||
				v.Decision.Question != "q" || v.Decision.OrganizationID != "o" || v.CreatedBy != "u" || !v.CreatedAt.Equal(now) {
				t.Errorf("version %+v", v)
			}
			if tc.cot != strings.Contains(v.ChainPollTemplate.Template, "step by step") {
				t.Error("the template does not follow cot_enabled")
			}
		})
	}
}
