package judge

import (
	"fmt"
	"strings"

	"github.com/evalobs/evalapi/shared/provider"
	"github.com/evalobs/evalapi/shared/store"
)

// Defaults of a judgment.
const (
	DefaultNumJudges = 1
	MaxNumJudges     = 10
	defaultValue     = "rating"
	defaultReason    = "explanation"
)

// plan is what the judges are asked and how their answers are read.
type plan struct {
	template   store.ChainPollTemplate
	outputType string
	labels     []string // categorical / multilabel / discrete labels, boolean labels (first is yes)
	levels     []int64  // discrete: the value of each label
	inputType  string   // what of the record the judges read (trace_input_only, ...)
	judges     int
	cot        bool
	model      string
	schema     map[string]any
}

// planFor reads the scorer, its version and its settings entry into a plan.
//
// Precedence (documented in docs/EVALUATION.md): the metric-settings entry's model_name,
// model_alias, num_judges and cot_enabled, then the version's, then the scorer's defaults,
// then the preset's. The template is the version's chain-poll template (a decision version
// stores the one built from its question; an llm version its generated scorer's), else the
// entry's chainpoll_template, else one built here from the decision question, else the
// preset's.
func planFor(r Request) (*plan, *provider.Error) {
	v := r.Version
	if v == nil {
		v = r.Scorer.LatestVersion
	}
	c := r.Config
	if c == nil {
		c = &store.ScorerConfig{}
	}
	scorerType := first(str(c.ScorerType), r.Scorer.ScorerType)
	switch scorerType {
	case "code", "luna":
		return nil, provider.Errorf(provider.ClassConfiguration, "%s scorers are not run by this deployment", scorerType)
	case "llm", "preset":
	default:
		return nil, provider.Errorf(provider.ClassConfiguration, "unknown scorer type %q", scorerType)
	}
	p := &plan{judges: DefaultNumJudges}
	var pre *Preset
	if scorerType == "preset" {
		pre = findPreset(r.Scorer, c)
		if pre == nil {
			return nil, provider.Errorf(provider.ClassConfiguration, "preset scorer %q is not run by this deployment", r.Scorer.Name)
		}
	}
	if v != nil && v.Kind == store.VersionCode {
		return nil, provider.Errorf(provider.ClassConfiguration, "code scorers are not run by this deployment")
	}

	// Output type and answer options.
	p.outputType = first(str(c.OutputType), versionStr(v, func(v *store.ScorerVersion) *string { return v.OutputType }), str(r.Scorer.OutputType))
	if pre != nil { // a preset's template is written for its own output type and labels
		p.outputType, p.labels = pre.OutputType, pre.Labels
	}
	if p.outputType == "" {
		p.outputType = "boolean"
	}
	if v != nil && v.Decision != nil && pre == nil {
		p.labels = v.Decision.AnswerOptions.Names()
		for _, l := range v.Decision.AnswerOptions.Levels {
			p.levels = append(p.levels, l.Value)
		}
	}
	if p.outputType == "discrete" && p.levels == nil {
		for i := range p.labels {
			p.levels = append(p.levels, int64(i))
		}
	}
	switch p.outputType {
	case "retrieved_chunk_list_boolean", "boolean_multilabel":
		return nil, provider.Errorf(provider.ClassConfiguration, "output type %s is not run by this deployment", p.outputType)
	case "categorical", "multilabel", "discrete":
		if len(p.labels) < 2 {
			return nil, provider.Errorf(provider.ClassConfiguration, "a %s scorer needs at least two answer options", p.outputType)
		}
	}

	p.inputType = first(str(c.InputType), versionStr(v, func(v *store.ScorerVersion) *string { return v.InputType }), str(r.Scorer.InputType))

	// Model, judges, chain of thought. An empty model is the integration's default
	// (a custom integration's default_model).
	p.model = first(str(c.ModelName), str(c.ModelAlias),
		versionStr(v, func(v *store.ScorerVersion) *string { return v.ModelName }),
		str(r.Scorer.Defaults.ModelName), str(c.DefaultModelAlias))
	if n := firstInt(c.NumJudges, versionInt(v), r.Scorer.Defaults.NumJudges); n > 0 {
		p.judges = int(n)
	}
	if p.judges > MaxNumJudges {
		p.judges = MaxNumJudges
	}
	p.cot = firstBool(c.CotEnabled, versionBool(v), r.Scorer.Defaults.CotEnabled)

	// Template.
	switch {
	case pre != nil:
		p.template = pre.template()
	case v != nil && v.ChainPollTemplate != nil && v.ChainPollTemplate.Template != "":
		p.template = *v.ChainPollTemplate
	case v != nil && v.Generated != nil && v.Generated.ChainPollTemplate.Template != "":
		p.template = v.Generated.ChainPollTemplate
	case c.ChainpollTemplate != nil && c.ChainpollTemplate.Template != "":
		p.template = *c.ChainpollTemplate
	case c.ScorerVersion != nil && c.ScorerVersion.GeneratedScorer != nil && c.ScorerVersion.GeneratedScorer.ChainPollTemplate != nil &&
		c.ScorerVersion.GeneratedScorer.ChainPollTemplate.Template != "":
		p.template = *c.ScorerVersion.GeneratedScorer.ChainPollTemplate
	case v != nil && v.Decision != nil:
		p.template = decisionTemplate(v.Decision.Question)
	default:
		return nil, provider.Errorf(provider.ClassConfiguration, "the scorer has no question or template to ask")
	}
	if p.template.ValueFieldName == "" {
		p.template.ValueFieldName = defaultValue
	}
	if p.template.ExplanationFieldName == "" {
		p.template.ExplanationFieldName = defaultReason
	}
	p.schema = p.template.ResponseSchema
	if p.schema == nil {
		p.schema = responseSchema(p)
	}
	return p, nil
}

// decisionTemplate is the prompt of a decision version stored without one.
func decisionTemplate(question string) store.ChainPollTemplate {
	return store.ChainPollTemplate{
		Template: "Answer the following question about the interaction below.\n\nQuestion: " + question +
			"\n\nInput:\n{input}\n\nOutput:\n{output}",
	}
}

// responseSchema is the JSON schema of a judge's reply when the template gives none.
func responseSchema(p *plan) map[string]any {
	var value map[string]any
	switch {
	case p.outputType == "multilabel":
		value = map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": p.labels}}
	case len(p.labels) > 0:
		value = map[string]any{"type": "string", "enum": p.labels}
	case p.outputType == "boolean":
		value = map[string]any{"type": "boolean"}
	case p.outputType == "boolean_probability", p.outputType == "percentage":
		value = map[string]any{"type": "number", "minimum": 0, "maximum": 1}
	case p.outputType == "count":
		value = map[string]any{"type": "integer", "minimum": 0}
	case p.outputType == "freeform":
		value = map[string]any{"type": "string"}
	default:
		value = map[string]any{"type": "number"}
	}
	ef, vf := p.template.ExplanationFieldName, p.template.ValueFieldName
	return map[string]any{
		"type":                 "object",
		"properties":           map[string]any{ef: map[string]any{"type": "string"}, vf: value},
		"required":             []string{ef, vf},
		"additionalProperties": false,
	}
}

// answerInstruction says what a valid answer is, after the template.
func (p *plan) answerInstruction() string {
	var what string
	switch {
	case p.outputType == "multilabel":
		what = "the list of every option that applies, chosen from: " + quoted(p.labels)
	case p.outputType == "discrete":
		what = "exactly one of these levels, from lowest to highest: " + quoted(p.labels)
	case len(p.labels) > 0:
		what = "exactly one of: " + quoted(p.labels)
	case p.outputType == "boolean":
		what = "true or false"
	case p.outputType == "boolean_probability":
		what = "the probability, between 0 and 1, that the answer is yes"
	case p.outputType == "percentage":
		what = "a number between 0 and 1"
	case p.outputType == "count":
		what = "a whole number"
	case p.outputType == "freeform":
		what = "a few words"
	default:
		what = "a number"
	}
	ef, vf := p.template.ExplanationFieldName, p.template.ValueFieldName
	s := fmt.Sprintf("Reply with only a JSON object with the keys %q and %q. In %q give %s.", ef, vf, vf, what)
	if p.cot {
		return s + fmt.Sprintf(" Think step by step in %q before you give your answer.", ef)
	}
	return s + fmt.Sprintf(" Keep %q to one or two sentences.", ef)
}

func quoted(labels []string) string {
	q := make([]string, len(labels))
	for i, l := range labels {
		q[i] = fmt.Sprintf("%q", l)
	}
	return strings.Join(q, ", ")
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func versionStr(v *store.ScorerVersion, f func(*store.ScorerVersion) *string) string {
	if v == nil {
		return ""
	}
	return str(f(v))
}

func versionInt(v *store.ScorerVersion) *int64 {
	if v == nil {
		return nil
	}
	return v.NumJudges
}

func versionBool(v *store.ScorerVersion) *bool {
	if v == nil {
		return nil
	}
	return v.CotEnabled
}

func firstInt(ns ...*int64) int64 {
	for _, n := range ns {
		if n != nil && *n > 0 {
			return *n
		}
	}
	return 0
}

func firstBool(bs ...*bool) bool {
	for _, b := range bs {
		if b != nil {
			return *b
		}
	}
	return false
}
