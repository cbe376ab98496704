package experiments

import "encoding/json"

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
