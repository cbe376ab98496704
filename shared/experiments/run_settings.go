package experiments

import (
	"encoding/json"

	"github.com/evalobs/evalapi/shared/validate"
)

// runSettingKinds are the fields of prompt_run_settings (§2.12) with their JSON kinds, in the
// specification's order.
var runSettingKinds = []struct{ name, kind string }{
	{"logprobs", "bool"}, {"top_logprobs", "int"}, {"echo", "bool"}, {"n", "int"},
	{"reasoning_effort", "string"}, {"verbosity", "string"}, {"deployment_name", "string"},
	{"model_alias", "string"}, {"temperature", "number"}, {"max_tokens", "int"},
	{"stop_sequences", "strings"}, {"top_p", "number"}, {"top_k", "int"},
	{"frequency_penalty", "number"}, {"presence_penalty", "number"}, {"tools", "string"},
	{"tool_choice", "string"}, {"response_format", "object"},
}

// readRunSettings reads prompt_run_settings: every field optional and nullable, each of its
// type; the settings are stored as the fields sent (nil when the object is absent).
func readRunSettings(v validate.Value) map[string]any {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	out := map[string]any{}
	for _, f := range runSettingKinds {
		fv := o.Get(f.name).Nullable()
		if !fv.Present() || fv.IsNull() {
			continue
		}
		var got any
		switch f.kind {
		case "bool":
			got, ok = fv.Bool()
		case "int":
			got, ok = fv.Int()
		case "string":
			got, ok = fv.String()
		case "number":
			got, ok = fv.Float()
		case "strings":
			got, ok = readStrings(fv)
		case "object":
			var d validate.Obj
			d, ok = fv.Dict()
			got = d.Raw()
		}
		if ok {
			out[f.name] = got
		}
	}
	return out
}

func readStrings(v validate.Value) ([]string, bool) {
	items, ok := v.List()
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	good := true
	for _, it := range items {
		s, ok := it.String()
		good = good && ok
		out = append(out, s)
	}
	return out, good
}

// runSettingsOut turns the stored settings (the fields sent) into PromptRunSettings with
// every field; nil when the experiment has none.
func runSettingsOut(stored map[string]any) *runSettings {
	if stored == nil {
		return nil
	}
	var out runSettings
	b, err := json.Marshal(stored)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil { // stored from a validated body: cannot happen
		return &runSettings{}
	}
	return &out
}
