package scorers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// The versions of llm, code and preset scorers, as the original's clients create and read
// them (POST /v2/scorers/{scorer_id}/version/{llm,code,preset}, GET .../version). Each kind
// of version belongs to a scorer of its type; the settings a request leaves out come from
// the latest version, then the scorer's defaults, as for decision versions. An llm version
// holds the chain-poll template its judges answer, the same record a decision version's
// judges run.

// Bounds of the texts of an llm version (the original gives none): a prompt of this size is
// far beyond what a judge model takes; the code of a code version fits one record.
const (
	maxPromptText = 20000
	maxCodeBytes  = 256 << 10
)

// versionSettings are the settings every kind of version takes; nil is not sent.
type versionSettings struct {
	modelName          *string
	numJudges          *int64
	scoreableNodeTypes []string
	rawNodeTypes       any
	cotEnabled         *bool
	outputType         *string
	inputType          *string
}

func readSettings(o validate.Obj) versionSettings {
	var s versionSettings
	if m, ok := o.Get("model_name").Nullable().String(validate.MinLen(1), validate.MaxLen(maxShortText)); ok {
		s.modelName = &m
	}
	if n, ok := o.Get("num_judges").Nullable().Int(validate.Ge(1), validate.Le(maxJudges)); ok {
		s.numJudges = &n
	}
	s.rawNodeTypes = o.Get("scoreable_node_types").Raw()
	s.scoreableNodeTypes = readStrings(o.Get("scoreable_node_types"))
	if b, ok := o.Get("cot_enabled").Nullable().Bool(); ok {
		s.cotEnabled = &b
	}
	if t, ok := o.Get("output_type").Nullable().Enum(store.OutputTypes...); ok {
		s.outputType = &t
	}
	if t, ok := o.Get("input_type").Nullable().Enum(store.InputTypes...); ok {
		s.inputType = &t
	}
	return s
}

// checkSettings holds the request to scorer s: a version of kind belongs to a scorer of
// that type, and the node, output and input types, when sent, are the scorer's.
func checkSettings(errs *validate.Errors, s store.Scorer, kind string, set versionSettings) {
	if s.ScorerType != kind {
		errs.Add(validate.ValueError([]any{"path", "scorer_id"}, s.ID,
			fmt.Sprintf("scorer %s is a %s scorer; %s versions need a %s scorer", s.ID, s.ScorerType, kind, kind)))
	}
	if set.scoreableNodeTypes != nil && !sameSet(set.scoreableNodeTypes, s.ScoreableNodeTypes) {
		errs.Add(validate.ValueError([]any{"body", "scoreable_node_types"}, set.rawNodeTypes,
			"scoreable_node_types must match the scorer's "+pyList(s.ScoreableNodeTypes)))
	}
	if set.outputType != nil && !equalPtr(set.outputType, s.OutputType) {
		errs.Add(validate.ValueError([]any{"body", "output_type"}, *set.outputType, mismatch("output_type", s.OutputType)))
	}
	if set.inputType != nil && !equalPtr(set.inputType, s.InputType) {
		errs.Add(validate.ValueError([]any{"body", "input_type"}, *set.inputType, mismatch("input_type", s.InputType)))
	}
}

// settle builds the common part of the next version of s: what the request sent, else the
// latest version's value, else the scorer's default; the types are the scorer's.
func settle(c auth.Caller, s store.Scorer, kind string, set versionSettings, now store.ScorerVersion) store.ScorerVersion {
	var prev store.ScorerVersion
	if s.LatestVersion != nil {
		prev = *s.LatestVersion
	}
	now.ID, now.OrgID, now.Kind, now.CreatedBy = uuid.NewString(), c.OrgID, kind, c.UserID
	now.ModelName = first(set.modelName, prev.ModelName, s.Defaults.ModelName)
	now.NumJudges = first(set.numJudges, prev.NumJudges, s.Defaults.NumJudges)
	now.CotEnabled = first(set.cotEnabled, prev.CotEnabled, s.Defaults.CotEnabled)
	now.ScoreableNodeTypes, now.OutputType, now.InputType = s.ScoreableNodeTypes, s.OutputType, s.InputType
	return now
}

// llmRequest is a CreateLLMScorerVersionRequest that passed validation of its shape.
type llmRequest struct {
	set          versionSettings
	instructions *string
	userPrompt   *string
	template     *store.ChainPollTemplate
	body         any // as sent: what a missing template echoes
}

func readLLMRequest(errs *validate.Errors, raw any, present bool) llmRequest {
	req := llmRequest{body: raw}
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return req
	}
	req.set = readSettings(o)
	long := []validate.Rule{validate.MinLen(1), validate.MaxLen(maxPromptText)}
	if s, ok := o.Get("instructions").Nullable().String(long...); ok {
		req.instructions = &s
	}
	if s, ok := o.Get("user_prompt").Nullable().String(long...); ok {
		req.userPrompt = &s
	}
	if t, ok := o.Get("chain_poll_template").Nullable().Object(); ok {
		req.template = readTemplate(t)
	}
	return req
}

// readTemplate reads a chain-poll template (§2.7): template required, the field names
// default to rating and explanation.
func readTemplate(o validate.Obj) *store.ChainPollTemplate {
	long := []validate.Rule{validate.MinLen(1), validate.MaxLen(maxPromptText)}
	t := store.ChainPollTemplate{ValueFieldName: valueField, ExplanationFieldName: explanationField,
		MetricFewShotExamples: []store.FewShotExample{}}
	t.Template, _ = o.Get("template").Required().String(long...)
	if s, ok := o.Get("metric_system_prompt").Nullable().String(validate.MaxLen(maxPromptText)); ok {
		t.MetricSystemPrompt = &s
	}
	if s, ok := o.Get("metric_description").Nullable().String(validate.MaxLen(maxPromptText)); ok {
		t.MetricDescription = &s
	}
	if s, ok := o.Get("value_field_name").String(validate.MinLen(1), validate.MaxLen(maxShortText)); ok {
		t.ValueFieldName = s
	}
	if s, ok := o.Get("explanation_field_name").String(validate.MinLen(1), validate.MaxLen(maxShortText)); ok {
		t.ExplanationFieldName = s
	}
	if items, ok := o.Get("metric_few_shot_examples").List(); ok {
		for _, it := range items {
			if e, ok := it.Object(); ok {
				g, _ := e.Get("generation_prompt_and_response").Required().String(validate.MaxLen(maxPromptText))
				ev, _ := e.Get("evaluating_response").Required().String(validate.MaxLen(maxPromptText))
				t.MetricFewShotExamples = append(t.MetricFewShotExamples, store.FewShotExample{GenerationPromptAndResponse: g, EvaluatingResponse: ev})
			}
		}
	}
	if d, ok := o.Get("response_schema").Nullable().Dict(); ok {
		t.ResponseSchema = d.Raw()
	}
	return &t
}

// createLLMVersion is POST /v2/scorers/{scorer_id}/version/llm. The judges' template is the
// one sent, else one written from the instructions sent, else one written from the user
// prompt sent (for the scorer's output type, boolean when it has none), else the latest
// version's.
func (h *handlers) createLLMVersion(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("scorer_id", 4, readLLMRequest))
	if err != nil {
		return err
	}
	req := call.In.Req
	return h.newVersion(w, r, call.Caller, call.In.ID, func(rules *validate.Errors, c auth.Caller, s store.Scorer) store.ScorerVersion {
		checkSettings(rules, s, store.VersionLLM, req.set)
		v := settle(c, s, store.VersionLLM, req.set, store.ScorerVersion{})
		var prev *store.GeneratedScorer
		if s.LatestVersion != nil {
			prev = s.LatestVersion.Generated
		}
		tpl := req.template
		switch {
		case tpl == nil && req.instructions != nil:
			tpl = chainPollTemplate(*req.instructions, deref(s.OutputType), store.AnswerOptions{}, v.CotEnabled != nil && *v.CotEnabled)
		case tpl == nil && req.userPrompt != nil:
			if v.OutputType == nil {
				boolean := "boolean"
				v.OutputType = &boolean
			}
			tpl = userPromptTemplate(*req.userPrompt, *v.OutputType, v.CotEnabled != nil && *v.CotEnabled)
		case tpl == nil && prev != nil:
			tpl = &prev.ChainPollTemplate
		case tpl == nil:
			rules.Add(validate.Missing([]any{"body", "chain_poll_template"}, req.body))
			return v
		}
		g := &store.GeneratedScorer{ID: uuid.NewString(), Name: s.Name, Instructions: req.instructions,
			ChainPollTemplate: *tpl, UserPrompt: req.userPrompt, CreatedBy: c.UserID, CreatedAt: h.Stamp(), UpdatedAt: h.Stamp()}
		if prev != nil && g.Instructions == nil {
			g.Instructions = prev.Instructions
		}
		if prev != nil && g.UserPrompt == nil {
			g.UserPrompt = prev.UserPrompt
		}
		v.Generated, v.ChainPollTemplate = g, &g.ChainPollTemplate
		return v
	})
}

// createPresetVersion is POST /v2/scorers/{scorer_id}/version/preset: the settings alone.
func (h *handlers) createPresetVersion(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("scorer_id", 4, readPresetRequest))
	if err != nil {
		return err
	}
	set := call.In.Req
	return h.newVersion(w, r, call.Caller, call.In.ID, func(rules *validate.Errors, c auth.Caller, s store.Scorer) store.ScorerVersion {
		checkSettings(rules, s, store.VersionPreset, set)
		return settle(c, s, store.VersionPreset, set, store.ScorerVersion{})
	})
}

func readPresetRequest(errs *validate.Errors, raw any, present bool) (set versionSettings) {
	if o, ok := errs.Body(raw, present).Required().Object(); ok {
		set = readSettings(o)
	}
	return set
}

// codeRuntime is the runtime new code versions record (§2.7: a version without one runs on
// the legacy Python 3.12 runtime).
const codeRuntime = "python3.12"

// createCodeVersion is POST /v2/scorers/{scorer_id}/version/code, a multipart form as the
// original's clients send it: file (the code, UTF-8, at most 256 KiB) and
// validation_result (the client's report of checking it, kept as sent; its score_type,
// when it is a JSON object that has one, is the version's).
func (h *handlers) createCodeVersion(w http.ResponseWriter, r *http.Request) error {
	// The form is read first, as the opening reads a JSON body: one that is not a form, or
	// too large, is answered alone.
	form, err := httpapi.ReadForm(r, maxCodeBytes+64<<10)
	if err != nil {
		return err
	}
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) string {
		scorerID, _ := in.Path("scorer_id").UUID(4)
		if file, ok := form.Files["file"]; !ok {
			in.Errs.Add(validate.Missing([]any{"body", "file"}, nil))
		} else if !utf8.Valid(file.Data) || len(file.Data) == 0 || len(file.Data) > maxCodeBytes {
			in.Errs.Add(validate.ValueError([]any{"body", "file"}, file.Filename,
				"the code must be UTF-8 text of 1 to "+strconv.Itoa(maxCodeBytes)+" bytes"))
		}
		if _, ok := form.Values["validation_result"]; !ok {
			in.Errs.Add(validate.Missing([]any{"body", "validation_result"}, nil))
		}
		return scorerID
	})
	if err != nil {
		return err
	}
	file, result := form.Files["file"], form.Values["validation_result"]
	var scoreType *string
	var report map[string]any
	if json.Unmarshal([]byte(result), &report) == nil {
		if st, ok := report["score_type"].(string); ok {
			scoreType = &st
		}
	}
	return h.newVersion(w, r, call.Caller, call.In, func(rules *validate.Errors, c auth.Caller, s store.Scorer) store.ScorerVersion {
		checkSettings(rules, s, store.VersionCode, versionSettings{})
		v := settle(c, s, store.VersionCode, versionSettings{}, store.ScorerVersion{Code: string(file.Data)})
		runtime := codeRuntime
		v.Runtime = &runtime
		v.Registered = &store.RegisteredScorer{ID: uuid.NewString(), Name: s.Name, ScoreType: scoreType,
			ScoreableNodeTypes: s.ScoreableNodeTypes, ValidationResult: result, CreatedBy: c.UserID,
			CreatedAt: h.Stamp(), UpdatedAt: h.Stamp()}
		return v
	})
}

// newVersion runs the steps every version kind shares after its request was read: find the
// caller's scorer (404), refuse read-only callers (403), build and store the next version
// with build's rules (422), answer it.
func (h *handlers) newVersion(w http.ResponseWriter, r *http.Request, c auth.Caller, scorerID string, build func(rules *validate.Errors, c auth.Caller, s store.Scorer) store.ScorerVersion) error {
	ctx := r.Context()
	s, err := h.loadScorer(ctx, c, scorerID)
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	now := h.Stamp()
	v, err := h.appendVersion(ctx, c, s, func(rules *validate.Errors, s store.Scorer) store.ScorerVersion {
		v := build(rules, c, s)
		v.CreatedAt, v.UpdatedAt = now, now
		return v
	})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, versionOut(v))
	return nil
}

// versionQuery is what GET /v2/scorers/{scorer_id}/version asks: the scorer, and a version
// number or none (the latest).
type versionQuery struct {
	scorerID string
	n        int64
	byNumber bool
}

// getVersion is GET /v2/scorers/{scorer_id}/version: version `version` of the scorer, or
// its latest (404 when it has none).
func (h *handlers) getVersion(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) (q versionQuery) {
		q.scorerID, _ = in.Path("scorer_id").UUID(4)
		q.n, q.byNumber = in.Query("version").Int(validate.Ge(1))
		return q
	})
	if err != nil {
		return err
	}
	s, err := h.loadScorer(r.Context(), call.Caller, call.In.scorerID)
	if err != nil {
		return err
	}
	n, byNumber := call.In.n, call.In.byNumber
	var v store.ScorerVersion
	switch {
	case byNumber && n <= s.VersionCount:
		if v, err = store.GetScorerVersion(r.Context(), h.Table, s.ID, n); err != nil {
			return err
		}
	case !byNumber && s.LatestVersion != nil:
		v = *s.LatestVersion
	default:
		return httpapi.NotFound("Scorer version")
	}
	httpapi.WriteJSON(w, http.StatusOK, versionOut(v))
	return nil
}
