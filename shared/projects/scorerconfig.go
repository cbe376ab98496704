package projects

import (
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// readScorerConfig reads one runtime scorer config (§2.8). Only id is required; every other
// field may be absent or null, and is stored as sent. Fields are read in the specification's
// order, which is the order Pydantic reports their problems in.
func readScorerConfig(v validate.Value) (store.ScorerConfig, bool) {
	o, ok := v.Object()
	if !ok {
		return store.ScorerConfig{}, false
	}
	var c store.ScorerConfig
	c.ID, _ = o.Get("id").Required().UUID(4)
	c.ScorerVersionID = optUUID(o, "scorer_version_id")
	c.Filters = readFilters(o.Get("filters"))
	c.RollUpMethod = optEnum(o, "roll_up_method", rollUpMethods...)
	c.Name = optString(o, "name")
	c.ScorerType = optEnum(o, "scorer_type", store.ScorerTypes...)
	c.ModelName = optString(o, "model_name")
	c.NumJudges = optInt(o, "num_judges")
	c.ScorerVersion = readVersionRecord(o.Get("scorer_version"))
	c.ScoreableNodeTypes = optStrings(o, "scoreable_node_types", nil)
	c.CotEnabled = optBool(o, "cot_enabled")
	c.OutputType = optEnum(o, "output_type", configOutputTypes...)
	c.InputType = optEnum(o, "input_type", store.InputTypes...)
	c.MultimodalCapabilities = optStrings(o, "multimodal_capabilities", enumItem(multimodalCaps...))
	c.RollUpConfig = readRollUpConfig(o.Get("roll_up_config"))
	c.ScoreType = optString(o, "score_type")
	c.ModelType = optEnum(o, "model_type", modelTypes...)
	c.ChainpollTemplate = readChainPollTemplate(o.Get("chainpoll_template"))
	c.MetricName = optString(o, "metric_name")
	c.ScorerPathName = optString(o, "scorer_path_name")
	c.UserCode = optString(o, "user_code")
	c.ModelAlias = optString(o, "model_alias")
	c.DefaultModelAlias = optString(o, "default_model_alias")
	c.Prompt = optString(o, "prompt")
	c.LoraWeightsPath = optString(o, "lora_weights_path")
	c.RegisteredScorerID = optUUID(o, "registered_scorer_id")
	c.GroundTruth = boolDefault(o, "ground_truth", false)
	c.RequiresToolsInLLMSpan = boolDefault(o, "requires_tools_in_llm_span", false)
	c.RollUpStrategy = optEnum(o, "roll_up_strategy", rollUpStrategies...)
	c.RequiredScorers = optStrings(o, "required_scorers", nil)
	c.RequiredMetricIDs = optStrings(o, "required_metric_ids", nil)
	c.LoraTaskID = optInt(o, "lora_task_id")
	c.LunaInputType = optEnum(o, "luna_input_type", lunaInputTypes...)
	c.LunaOutputType = optEnum(o, "luna_output_type", lunaOutputTypes...)
	c.ClassNameToVocabIx = readVocab(o.Get("class_name_to_vocab_ix"))
	return c, true
}

// readFilters reads a nullable list of scorer filters.
func readFilters(v validate.Value) []store.ScorerFilter {
	items, ok := v.Nullable().List()
	if !ok {
		return nil
	}
	out := make([]store.ScorerFilter, 0, len(items))
	for _, it := range items {
		f, _ := readFilter(it)
		out = append(out, f)
	}
	return out
}

// readRollUpConfig reads roll_up_config: roll_up_methods is a union of a list of numeric
// methods and a list of categorical ones, each with at least one item, so a mixed list fails
// both members.
func readRollUpConfig(v validate.Value) *store.RollUpConfig {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	methods := o.Get("roll_up_methods").Required()
	if !methods.Present() {
		return nil
	}
	listOfEnum := func(values []string) func(validate.Value) ([]string, bool) {
		return func(v validate.Value) ([]string, bool) {
			items, ok := v.List(validate.MinLen(1))
			if !ok {
				return nil, false
			}
			out := make([]string, len(items))
			for i, it := range items {
				out[i], _ = it.Enum(values...)
			}
			return out, true
		}
	}
	got, ok := validate.Union(methods,
		validate.Member[[]string]{Name: "list[str-enum[NumericRollUpMethod]]", Read: listOfEnum(numericRollUps)},
		validate.Member[[]string]{Name: "list[str-enum[CategoricalRollUpMethod]]", Read: listOfEnum(categoricalRollUps)},
	)
	if !ok {
		return nil
	}
	return &store.RollUpConfig{RollUpMethods: got}
}

// readVocab reads class_name_to_vocab_ix: each value an integer or a list of distinct integers.
func readVocab(v validate.Value) map[string]store.VocabIndex {
	o, ok := v.Nullable().Dict()
	if !ok {
		return nil
	}
	out := make(map[string]store.VocabIndex, len(o.Keys()))
	for _, k := range o.Keys() {
		got, ok := validate.Union(o.Get(k),
			validate.Member[store.VocabIndex]{Name: "int", Read: func(v validate.Value) (store.VocabIndex, bool) {
				n, ok := v.Int()
				return store.VocabIndex{One: n}, ok
			}},
			validate.Member[store.VocabIndex]{Name: "list[int]", Read: readDistinctInts},
		)
		if ok {
			out[k] = got
		}
	}
	return out
}

func readDistinctInts(v validate.Value) (store.VocabIndex, bool) {
	items, ok := v.List()
	if !ok {
		return store.VocabIndex{}, false
	}
	out := store.VocabIndex{Set: make([]int64, 0, len(items))}
	seen := make(map[int64]bool, len(items))
	for _, it := range items {
		n, ok := it.Int()
		if !ok {
			continue
		}
		if seen[n] {
			it.Fail("the integers of a class must be unique")
			continue
		}
		seen[n] = true
		out.Set = append(out.Set, n)
	}
	return out, true
}
