package judge_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/credentials"
	"github.com/evalobs/evalapi/shared/judge"
	"github.com/evalobs/evalapi/shared/provider"
	"github.com/evalobs/evalapi/shared/provider/providertest"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

func TestDecisionJudgedThroughCustomIntegration(t *testing.T) {
	w := newWorld(t)
	stub := providertest.New(t)
	stub.RequireHeader("X-Api-Key", canary)
	stub.Handle("judge-1", func(c providertest.Call) providertest.Reply {
		u := &providertest.Usage{Input: 100, Output: 10}
		if c.N == 3 {
			return providertest.Reply{Content: `{"explanation":"no","rating":false}`, Usage: u}
		}
		return providertest.Reply{Content: "```json\n{\"explanation\":\"yes\",\"rating\":true}\n```", Usage: u}
	})
	in := w.custom(stub.URL+"/v1", "judge-1")
	s := decision("boolean", "Is the answer correct?", store.AnswerOptions{}, 3, "judge-1")
	s.LatestVersion.CotEnabled = ptr(true)
	o := w.engine.Judge(t.Context(), w.request(s))
	if o.Failed() {
		t.Fatalf("outcome %+v", o)
	}
	if o.Value != true || o.Probability == nil || math.Abs(*o.Probability-2.0/3) > 1e-9 || o.Explanation != "yes" || o.Judges != 3 {
		t.Fatalf("outcome %+v", o)
	}
	if o.Usage != (provider.Usage{InputTokens: 300, OutputTokens: 30}) || o.CostUSD == nil ||
		math.Abs(*o.CostUSD-(300*2+30*8.5)/1e6) > 1e-12 || o.IntegrationID != in.ID || o.Model != "judge-1" {
		t.Fatalf("usage %+v cost %v integration %s", o.Usage, o.CostUSD, o.IntegrationID)
	}
	calls := stub.Calls()
	if len(calls) != 3 {
		t.Fatalf("%d calls", len(calls))
	}
	c := calls[0]
	user := c.Messages[len(c.Messages)-1].Content
	if c.Messages[0].Role != "system" || !strings.Contains(user, "Is the answer correct?") || !strings.Contains(user, "What is 2+2?") ||
		!strings.Contains(user, "Think step by step") || c.ResponseFormat["type"] != "json_schema" || c.Path != "/v1/chat/completions" {
		t.Fatalf("request %+v", c)
	}
	if c.Body["temperature"] != 1.0 {
		t.Errorf("several judges asked at temperature %v", c.Body["temperature"])
	}
	if strings.Contains(fmt.Sprintf("%+v %#v", o, o), canary) {
		t.Fatal("the outcome carries the credential")
	}
}

func TestUnreadableAnswerAskedOnceMore(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replies []providertest.Reply
		calls   int
		errType string
	}{
		{"second answer readable", []providertest.Reply{providertest.Answer("I think yes"), providertest.Answer(`{"rating":true}`)}, 2, ""},
		{"malformed envelope then readable", []providertest.Reply{providertest.Malformed(`{"choices":`), providertest.Answer(`{"rating":true}`)}, 2, ""},
		{"twice unreadable", []providertest.Reply{providertest.Answer("I think yes")}, 2, "data_validation_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			stub := providertest.New(t)
			stub.Handle("judge-1", providertest.Script(tc.replies...))
			w.custom(stub.URL, "judge-1")
			o := w.engine.Judge(t.Context(), w.request(decision("boolean", "Q?", store.AnswerOptions{}, 1, "judge-1")))
			if o.ErrorType != tc.errType || len(stub.Calls()) != tc.calls {
				t.Fatalf("outcome %+v after %d calls", o, len(stub.Calls()))
			}
			if tc.errType != "" && (o.Retryable || o.Usage.InputTokens == 0) {
				t.Fatalf("a data validation error: %+v", o)
			}
		})
	}
}

func TestFailureClasses(t *testing.T) {
	for _, tc := range []struct {
		name      string
		reply     providertest.Reply
		errType   string
		retryable bool
	}{
		{"rate limited", providertest.RateLimited("1"), "rate_limit_error", true},
		{"server error", providertest.Fail(500), "llm_api_error", true},
		{"refused key", providertest.Fail(401), "credentials_error", false},
		{"forbidden", providertest.Fail(403), "credentials_error", false},
		{"unknown model at the provider", providertest.Fail(404), "configuration_error", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			stub := providertest.New(t)
			stub.Reply("judge-1", tc.reply)
			w.custom(stub.URL, "judge-1")
			o := w.engine.Judge(t.Context(), w.request(decision("boolean", "Q?", store.AnswerOptions{}, 2, "judge-1")))
			if o.ErrorType != tc.errType || o.Retryable != tc.retryable || o.Value != nil || o.ErrorMessage == "" {
				t.Fatalf("outcome %+v", o)
			}
			if tc.errType == "rate_limit_error" && o.RetryAfter.Seconds() != 1 {
				t.Fatalf("retry after %v", o.RetryAfter)
			}
			if strings.Contains(o.ErrorMessage, canary) || strings.Contains(o.ErrorMessage, "stub failure") {
				t.Fatalf("message %q", o.ErrorMessage)
			}
		})
	}
}

// One judge failing fails the judgment: a vote with a missing judge would be biased.
func TestOneFailingJudgeFailsTheJudgment(t *testing.T) {
	w := newWorld(t)
	stub := providertest.New(t)
	stub.Handle("judge-1", func(c providertest.Call) providertest.Reply {
		if c.N == 1 {
			return providertest.Fail(401)
		}
		return providertest.Answer(`{"rating":true}`)
	})
	w.custom(stub.URL, "judge-1")
	o := w.engine.Judge(t.Context(), w.request(decision("boolean", "Q?", store.AnswerOptions{}, 3, "judge-1")))
	if o.ErrorType != "credentials_error" || o.Value != nil || o.Usage.InputTokens == 0 {
		t.Fatalf("outcome %+v", o)
	}
}

func TestConfigurationErrors(t *testing.T) {
	w := newWorld(t)
	stub := providertest.New(t)
	w.custom(stub.URL, "judge-1")
	w.integrate("cloud-host", map[string]any{"endpoint": stub.URL, "api_version": "v", "authentication_type": "api_key",
		"available_deployments": []any{map[string]any{"model": "off-model", "id": "d"}}}, credentials.Set{Token: secrets.NewValueString("t")}, true)
	for _, tc := range []struct {
		name string
		s    store.Scorer
		want string
	}{
		{"code scorer", store.Scorer{ScorerType: "code"}, "not run by this deployment"},
		{"luna scorer", store.Scorer{ScorerType: "luna"}, "not run by this deployment"},
		{"unknown preset", store.Scorer{ScorerType: "preset", Name: "bleu"}, "not run by this deployment"},
		{"luna preset", store.Scorer{ScorerType: "preset", Name: "context_adherence_luna"}, "not run by this deployment"},
		{"unknown model", decision("boolean", "Q?", store.AnswerOptions{}, 1, "judge-9"), `no integration of the user serves model "judge-9"`},
		{"disabled integration", decision("boolean", "Q?", store.AnswerOptions{}, 1, "off-model"), "disabled"},
		{"no model and no default", decision("boolean", "Q?", store.AnswerOptions{}, 1, ""), "no model"},
		{"categorical without options", decision("categorical", "Q?", store.AnswerOptions{}, 1, "judge-1"), "at least two answer options"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := w.engine.Judge(t.Context(), w.request(tc.s))
			if o.ErrorType != "configuration_error" || !strings.Contains(o.ErrorMessage, tc.want) {
				t.Fatalf("outcome %+v", o)
			}
		})
	}
	if n := len(stub.Calls()); n != 0 {
		t.Fatalf("%d provider calls", n)
	}
}

// Which integration answers a model (docs/EVALUATION.md).
func TestResolutionRule(t *testing.T) {
	w := newWorld(t)
	stub := providertest.New(t)
	stub.Handle("", providertest.Script(providertest.Answer(`{"rating":true}`)))
	custom := w.integrate("custom", map[string]any{"endpoint": stub.URL + "/custom", "authentication_type": "none",
		"models": []any{"shared-model", "c-model"}, "default_model": "c-default",
		"model_properties": []any{map[string]any{"name": "c-real", "alias": "c-alias"}}}, credentials.Set{}, false)
	cloud := w.integrate("cloud-host", map[string]any{"endpoint": stub.URL, "api_version": "2025-03-01-preview", "authentication_type": "api_key",
		"available_deployments": []any{map[string]any{"model": "shared-model", "id": "dep-shared"}, map[string]any{"model": "h-model", "id": "dep-h"}},
		"deployments":           map[string]any{"mapped": "dep-mapped"}}, credentials.Set{Token: secrets.NewValueString(canary)}, false)
	vendor := w.integrate("model-vendor", map[string]any{"organization_id": nil}, credentials.Set{Token: secrets.NewValueString(canary)}, false)
	w.engine.VendorBaseURL = stub.URL + "/vendor"
	for _, tc := range []struct {
		model, integration, sent, path string
	}{
		{"c-model", custom.ID, "c-model", "/custom/chat/completions"},
		{"shared-model", custom.ID, "shared-model", "/custom/chat/completions"}, // custom first
		{"c-alias", custom.ID, "c-real", "/custom/chat/completions"},
		{"c-default", custom.ID, "c-default", "/custom/chat/completions"},
		{"", custom.ID, "c-default", "/custom/chat/completions"},
		{"h-model", cloud.ID, "dep-h", "/openai/deployments/dep-h/chat/completions"},
		{"dep-h", cloud.ID, "dep-h", "/openai/deployments/dep-h/chat/completions"},
		{"mapped", cloud.ID, "dep-mapped", "/openai/deployments/dep-mapped/chat/completions"},
		{"anything-else", vendor.ID, "anything-else", "/vendor/chat/completions"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			before := len(stub.Calls())
			o := w.engine.Judge(t.Context(), w.request(decision("boolean", "Q?", store.AnswerOptions{}, 1, tc.model)))
			calls := stub.Calls()[before:]
			if o.Failed() || o.IntegrationID != tc.integration || len(calls) != 1 || calls[0].Model != tc.sent || calls[0].Path != tc.path {
				t.Fatalf("outcome %+v, calls %+v", o, calls)
			}
			switch o.IntegrationID {
			case cloud.ID:
				if calls[0].Header.Get("api-key") != canary || calls[0].APIVersion != "2025-03-01-preview" {
					t.Fatal("cloud-host call without its api-key or api-version")
				}
			case vendor.ID:
				if calls[0].Header.Get("Authorization") != "Bearer "+canary {
					t.Fatal("vendor call without its bearer token")
				}
			}
		})
	}
}

// A cloud-host integration with custom OAuth2 gets its token from the token URL once.
func TestCloudHostOAuth2(t *testing.T) {
	w := newWorld(t)
	stub := providertest.New(t)
	stub.OAuth2("client-1", canary, "access-1", 3600)
	stub.Reply("dep-1", providertest.Answer(`{"rating":true}`))
	w.integrate("cloud-host", map[string]any{"endpoint": stub.URL, "api_version": "v1", "authentication_type": "custom_oauth2",
		"oauth2_token_url": stub.TokenURL(), "authentication_scope": "s", "custom_header_mapping": map[string]any{"project_id": "X-Project"},
		"available_deployments": []any{map[string]any{"model": "m", "id": "dep-1"}}},
		credentials.Set{Token: secrets.NewValueString("client-1:" + canary), Headers: map[string]secrets.Value{"X-Team": secrets.NewValueString("t")}}, false)
	for range 2 {
		if o := w.engine.Judge(t.Context(), w.request(decision("boolean", "Q?", store.AnswerOptions{}, 2, "m"))); o.Failed() {
			t.Fatalf("outcome %+v", o)
		}
	}
	c := stub.Calls()[0]
	if stub.TokenRequests() != 1 || c.Header.Get("X-Project") != "p-1" || c.Header.Get("X-Team") != "t" {
		t.Fatalf("%d token requests, headers %v", stub.TokenRequests(), c.Header)
	}
}

// A cached secret of an older revision is read again from the uncached store.
func TestStaleCachedSecret(t *testing.T) {
	w := newWorld(t)
	stub := providertest.New(t)
	stub.RequireHeader("X-Api-Key", "new-key")
	in := w.custom(stub.URL, "judge-1")
	stale := secrets.NewMemory()
	old, _ := credentials.Encode("old-revision", credentials.Set{APIKeyValue: secrets.NewValueString("old-key")})
	if _, err := stale.Put(t.Context(), credentials.SecretName(in.ID), old, nil); err != nil {
		t.Fatal(err)
	}
	fresh, _ := credentials.Encode(in.Revision, credentials.Set{APIKeyValue: secrets.NewValueString("new-key")})
	if _, err := w.sec.Put(t.Context(), in.SecretRef, fresh, nil); err != nil {
		t.Fatal(err)
	}
	w.engine.Secrets, w.engine.Fresh = stale, w.sec
	if o := w.engine.Judge(t.Context(), w.request(decision("boolean", "Q?", store.AnswerOptions{}, 1, "judge-1"))); o.Failed() {
		t.Fatalf("outcome %+v", o)
	}
	// Without a fresh store to ask, the mismatch is a configuration error to retry later.
	w.engine.Fresh = nil
	o := w.engine.Judge(t.Context(), w.request(decision("boolean", "Q?", store.AnswerOptions{}, 1, "judge-1")))
	if o.ErrorType != "configuration_error" || !o.Retryable {
		t.Fatalf("outcome %+v", o)
	}
}

// Every preset the issue names exists, is a name of the specification's enumeration, and
// runs through the stub.
func TestPresets(t *testing.T) {
	required := []string{"correctness", "completeness", "context_adherence", "context_relevance", "instruction_adherence",
		"tool_selection_quality", "input_toxicity", "output_toxicity", "input_tone", "output_tone", "input_pii",
		"output_pii", "prompt_injection"}
	for _, n := range required {
		if _, ok := judge.LookupPreset(n); !ok {
			t.Errorf("no preset %s", n)
		}
	}
	for _, n := range []string{"input_pii_gpt", "_output_tone_gpt", "Context Adherence"} {
		if _, ok := judge.LookupPreset(n); !ok {
			t.Errorf("%q not found", n)
		}
	}
	spec := strings.Fields(strings.NewReplacer(",", " ", "`", " ").Replace(specScorerNames))
	for _, p := range judge.Presets() {
		found := false
		for _, s := range spec {
			found = found || s == p.Name
		}
		if !found {
			t.Errorf("preset %s is not a name of the specification's enumeration", p.Name)
		}
	}

	w := newWorld(t)
	stub := providertest.New(t)
	stub.Handle("judge-1", func(c providertest.Call) providertest.Reply {
		if strings.Contains(c.Messages[len(c.Messages)-1].Content, "emotional tone") {
			return providertest.Answer(`{"explanation":"calm","rating":"Neutral"}`)
		}
		return providertest.Answer(`{"explanation":"ok","rating":true}`)
	})
	w.custom(stub.URL, "judge-1")
	for _, p := range judge.Presets() {
		s := store.Scorer{ScorerType: "preset", Name: p.Name, Defaults: store.ScorerDefaults{ModelName: ptr("judge-1")}}
		o := w.engine.Judge(t.Context(), judge.Request{OrgID: w.org, UserID: w.user, Scorer: s,
			Content: judge.Content{Input: "in", Output: "out", Context: []string{"doc"}, Tools: "[]", ToolCalls: "[]", GroundTruth: "gt"}})
		want := any(true)
		if p.OutputType == "categorical" {
			want = "neutral"
		}
		if o.Failed() || o.Value != want || o.OutputType != p.OutputType {
			t.Errorf("preset %s: %+v", p.Name, o)
		}
	}
	for _, c := range stub.Calls() {
		if strings.Contains(c.Messages[len(c.Messages)-1].Content, "{") && strings.Contains(c.Messages[len(c.Messages)-1].Content, "{input}") {
			t.Errorf("a placeholder was left in %q", c.Messages[len(c.Messages)-1].Content)
		}
	}
}

// specScorerNames is §2.8's scorer name enumeration.
const specScorerNames = "`action_completion_luna`, `action_advancement_luna`, `agentic_session_success`, `action_completion_vision`, `action_completion_audio`, `agentic_workflow_success`, `agent_efficiency`, `agent_flow`, `agent_flow_vision`, `agent_flow_audio`, `chunk_attribution_utilization_luna`, `chunk_attribution_utilization`, `chunk_relevance`, `chunk_relevance_luna`, `context_precision`, `precision_at_k`, `completeness_luna`, `completeness`, `context_adherence`, `context_adherence_luna`, `context_adherence_vision`, `context_adherence_audio`, `context_relevance`, `context_relevance_luna`, `conversation_quality`, `conversation_quality_vision`, `conversation_quality_audio`, `correctness`, `correctness_vision`, `correctness_audio`, `ground_truth_adherence`, `ground_truth_adherence_vision`, `ground_truth_adherence_audio`, `visual_fidelity`, `visual_quality`, `input_pii`, `input_pii_gpt`, `input_sexist`, `input_sexist_vision`, `input_sexist_audio`, `input_sexist_luna`, `input_tone`, `input_tone_gpt`, `input_toxicity`, `input_toxicity_luna`, `input_toxicity_vision`, `input_toxicity_audio`, `instruction_adherence`, `instruction_adherence_vision`, `instruction_adherence_audio`, `output_pii`, `output_pii_gpt`, `output_sexist`, `output_sexist_vision`, `output_sexist_audio`, `output_sexist_luna`, `output_tone`, `output_tone_gpt`, `output_toxicity`, `output_toxicity_luna`, `output_toxicity_vision`, `output_toxicity_audio`, `prompt_injection`, `prompt_injection_vision`, `prompt_injection_audio`, `prompt_injection_luna`, `reasoning_coherence`, `reasoning_coherence_vision`, `reasoning_coherence_audio`, `sql_efficiency`, `sql_adherence`, `sql_injection`, `sql_correctness`, `tool_error_rate`, `tool_error_rate_luna`, `tool_selection_quality`, `tool_selection_quality_vision`, `tool_selection_quality_audio`, `tool_selection_quality_luna`, `user_intent_change`, `user_intent_change_vision`, `user_intent_change_audio`, `interruption_detection`"

func TestPriceOf(t *testing.T) {
	w := newWorld(t)
	w.custom("https://models.example.com", "judge-1", "judge-2")
	p, ok, perr := w.engine.PriceOf(t.Context(), w.org, w.user, "judge-1")
	if perr != nil || !ok || p.InputPerMillion != 2 || p.OutputPerMillion != 8.5 ||
		p.Cost(provider.Usage{InputTokens: 1e6, OutputTokens: 2e6}) != 19 {
		t.Fatalf("price %+v %v %v", p, ok, perr)
	}
	if _, ok, perr := w.engine.PriceOf(t.Context(), w.org, w.user, "judge-2"); ok || perr != nil {
		t.Fatalf("a model without a price: ok=%v %v", ok, perr)
	}
	if _, ok, perr := w.engine.PriceOf(t.Context(), w.org, w.user, "judge-3"); ok || perr == nil || perr.Class != provider.ClassConfiguration {
		t.Fatalf("a model nobody serves: ok=%v %v", ok, perr)
	}
}
