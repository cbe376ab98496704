package projects

import (
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// readVersionRecord reads the scorer version a config pins (§2.8): id, version and scorer_id
// are required, the rest nullable.
func readVersionRecord(v validate.Value) *store.ScorerVersionRecord {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	var r store.ScorerVersionRecord
	r.ID, _ = o.Get("id").Required().UUID(4)
	r.Version, _ = o.Get("version").Required().Int()
	r.ScorerID, _ = o.Get("scorer_id").Required().UUID(4)
	r.GeneratedScorer = readGenerated(o.Get("generated_scorer"))
	r.RegisteredScorer = readRegistered(o.Get("registered_scorer"))
	r.FinetunedScorer = readFinetuned(o.Get("finetuned_scorer"))
	r.ModelName = optString(o, "model_name")
	r.NumJudges = optInt(o, "num_judges")
	r.CotEnabled = optBool(o, "cot_enabled")
	return &r
}

func readGenerated(v validate.Value) *store.GeneratedScorerRecord {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	var g store.GeneratedScorerRecord
	g.ID, _ = o.Get("id").Required().UUID(4)
	g.Name, _ = o.Get("name").Required().String()
	g.Instructions = optString(o, "instructions")
	g.ChainPollTemplate = readChainPollTemplate(o.Get("chain_poll_template"))
	g.UserPrompt = optString(o, "user_prompt")
	return &g
}

func readRegistered(v validate.Value) *store.RegisteredScorerRecord {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	var r store.RegisteredScorerRecord
	r.ID, _ = o.Get("id").Required().UUID(4)
	r.Name, _ = o.Get("name").Required().String()
	r.ScoreType = optString(o, "score_type")
	return &r
}

func readFinetuned(v validate.Value) *store.FinetunedScorerRecord {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	var f store.FinetunedScorerRecord
	f.ID, _ = o.Get("id").Required().UUID(4)
	f.Name, _ = o.Get("name").Required().String()
	f.LoraTaskID, _ = o.Get("lora_task_id").Required().Int()
	f.Prompt, _ = o.Get("prompt").Required().String()
	f.CreatedBy = optString(o, "created_by")
	f.LoraWeightsPath = optString(o, "lora_weights_path")
	f.LunaInputType = optEnum(o, "luna_input_type", lunaInputTypes...)
	f.LunaOutputType = optEnum(o, "luna_output_type", lunaOutputTypes...)
	f.ClassNameToVocabIx = readVocab(o.Get("class_name_to_vocab_ix"))
	f.Executor = optEnum(o, "executor", scorerNames...)
	return &f
}

// readChainPollTemplate reads a chain-poll template (§2.7): template required, the field names
// defaulting to rating and explanation, the few-shot examples to none.
func readChainPollTemplate(v validate.Value) *store.ChainPollTemplate {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	t := store.ChainPollTemplate{ValueFieldName: "rating", ExplanationFieldName: "explanation",
		MetricFewShotExamples: []store.FewShotExample{}}
	t.Template, _ = o.Get("template").Required().String()
	t.MetricSystemPrompt = optString(o, "metric_system_prompt")
	t.MetricDescription = optString(o, "metric_description")
	if o.Has("value_field_name") {
		t.ValueFieldName, _ = o.Get("value_field_name").String()
	}
	if o.Has("explanation_field_name") {
		t.ExplanationFieldName, _ = o.Get("explanation_field_name").String()
	}
	if o.Has("metric_few_shot_examples") {
		items, _ := o.Get("metric_few_shot_examples").List()
		for _, it := range items {
			ex, ok := it.Object()
			if !ok {
				continue
			}
			var e store.FewShotExample
			e.GenerationPromptAndResponse, _ = ex.Get("generation_prompt_and_response").Required().String()
			e.EvaluatingResponse, _ = ex.Get("evaluating_response").Required().String()
			t.MetricFewShotExamples = append(t.MetricFewShotExamples, e)
		}
	}
	if rs, ok := o.Get("response_schema").Nullable().Dict(); ok {
		t.ResponseSchema = rs.Raw()
	}
	return &t
}
