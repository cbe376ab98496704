package experiments

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Names of experiments and of experiment groups are 1 to 255 characters, as
// ExperimentCreateRequest.experiment_group_name is in the original.
const maxNameLen = 255

// TaskTypes are the task types an experiment may have (§2.12); DefaultTaskType is the one
// of an experiment created without one (the original's EXPERIMENT task).
var TaskTypes = []int64{13, 15, 16, 17, 18, 19}

const DefaultTaskType = 16

// createRequest is a validated create body: the record without ids and times.
type createRequest struct {
	exp store.Experiment
	// inline is a prompt sent with the experiment (prompt_template: a text or messages)
	// instead of a template version; budget is the job's token budget (0: none).
	inline *templateVersionIn
	budget int64
}

// readCreate reads the body of POST /v2/projects/{project_id}/experiments, in the order of
// the fields of the response, reporting every problem at once.
func readCreate(errs *validate.Errors, raw any, present bool) createRequest {
	var req createRequest
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return req
	}
	e := &req.exp
	e.Name, _ = o.Get("name").Required().String(validate.MinLen(1), validate.MaxLen(maxNameLen))
	e.TaskType = readTaskType(o.Get("task_type"))
	e.Dataset = readDataset(o.Get("dataset"))
	e.Playground = readPlayground(o.Get("playground"))
	if id, ok := o.Get("playground_id").Nullable().UUID(4); ok && e.Playground == nil {
		e.Playground = &store.ExperimentPlayground{PlaygroundID: id}
	}
	// The original's clients send prompt_settings; the specification names the field
	// prompt_run_settings, which wins when both are sent.
	e.PromptRunSettings = readRunSettings(o.Get("prompt_settings"))
	if rs := readRunSettings(o.Get("prompt_run_settings")); rs != nil {
		e.PromptRunSettings = rs
	}
	if id, ok := o.Get("prompt_template_version_id").Nullable().UUID(4); ok {
		e.PromptTemplateVersionID = &id
	}
	if id, ok := o.Get("playground_prompt_id").Nullable().UUID(4); ok {
		e.PlaygroundPromptID = &id
	}
	e.Trigger, _ = o.Get("trigger").Bool()
	if s, ok := o.Get("prompt_model").Nullable().String(validate.MinLen(1), validate.MaxLen(maxNameLen)); ok {
		e.PromptModel = &s
	}
	e.Prompt = readPrompt(o.Get("prompt"))
	e.Tags = readTags(o.Get("tags"))
	e.Group = readGroup(o.Get("experiment_group"))
	if e.Group == nil {
		e.Group = readFlatGroup(o)
	}
	e.Scorers = readScorers(o.Get("scorers"))
	if v := o.Get("prompt_template"); v.Present() && !v.IsNull() {
		req.inline = &templateVersionIn{template: readTemplateValue(v)}
	}
	req.budget, _ = o.Get("token_budget").Nullable().Int(validate.Ge(1))
	return req
}

// readTaskType reads the integer enum task_type; absent or null is DefaultTaskType.
func readTaskType(v validate.Value) int64 {
	n, ok := v.Nullable().Int()
	if !ok {
		return DefaultTaskType
	}
	for _, t := range TaskTypes {
		if n == t {
			return n
		}
	}
	v.Add(intEnum(v.Loc(), v.Raw(), TaskTypes))
	return DefaultTaskType
}

// intEnum is Pydantic's error for an IntEnum: the members unquoted, "a, b or c".
func intEnum(loc []any, input any, members []int64) validate.Error {
	s := make([]string, len(members))
	for i, m := range members {
		s[i] = strconv.FormatInt(m, 10)
	}
	expected := strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
	return validate.Error{Type: "enum", Loc: loc, Input: input, Msg: "Input should be " + expected,
		Ctx: map[string]any{"expected": expected}}
}

func readDataset(v validate.Value) *store.ExperimentDataset {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	var d store.ExperimentDataset
	id, ok1 := o.Get("dataset_id").Required().UUID(4)
	ver, ok2 := o.Get("version_index").Required().Int(validate.Ge(0))
	name, _ := o.Get("name").Nullable().String(validate.MaxLen(maxNameLen))
	d.DatasetID, d.VersionIndex, d.Name = id, ver, name
	if !ok1 || !ok2 {
		return nil
	}
	return &d
}

func readPlayground(v validate.Value) *store.ExperimentPlayground {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	id, ok := o.Get("playground_id").Required().UUID(4)
	name, _ := o.Get("name").Nullable().String(validate.MaxLen(maxNameLen))
	if !ok {
		return nil
	}
	return &store.ExperimentPlayground{PlaygroundID: id, Name: name}
}

func readPrompt(v validate.Value) *store.ExperimentPrompt {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	id, ok1 := o.Get("prompt_template_id").Required().UUID(4)
	ver, ok2 := o.Get("version_index").Required().Int(validate.Ge(0))
	name, _ := o.Get("name").Nullable().String(validate.MaxLen(maxNameLen))
	content, _ := o.Get("content").Nullable().String()
	if !ok1 || !ok2 {
		return nil
	}
	return &store.ExperimentPrompt{PromptTemplateID: id, VersionIndex: ver, Name: name, Content: content}
}

func readTags(v validate.Value) map[string]string {
	m, ok := v.Nullable().StringMap()
	if !ok || len(m) == 0 {
		return nil
	}
	return m
}

func readGroup(v validate.Value) *store.ExperimentGroup {
	o, ok := v.Nullable().Object()
	if !ok {
		return nil
	}
	id, ok1 := o.Get("id").Required().UUID(4)
	name, ok2 := o.Get("name").Required().String(validate.MinLen(1), validate.MaxLen(maxNameLen))
	isSystem, _ := o.Get("is_system").Nullable().Bool()
	if !ok1 || !ok2 {
		return nil
	}
	return &store.ExperimentGroup{ID: id, Name: name, IsSystem: isSystem}
}

// readFlatGroup reads the group as the original's clients send it: experiment_group_id
// and/or experiment_group_name (1 to 255 characters). A name without an id names the
// project's group of that name, whose id is derived from it (the same name, the same group).
func readFlatGroup(o validate.Obj) *store.ExperimentGroup {
	id, hasID := o.Get("experiment_group_id").Nullable().UUID(4)
	name, hasName := o.Get("experiment_group_name").Nullable().String(validate.MinLen(1), validate.MaxLen(maxNameLen))
	if !hasID && !hasName {
		return nil
	}
	return &store.ExperimentGroup{ID: id, Name: name}
}

// readScorers reads the experiment's scorers, runtime scorer configs as a log stream's
// metric settings hold (§2.8): id (uuid4) is required and unique; the other fields are kept
// as sent when they fit the config's types.
func readScorers(v validate.Value) []store.ScorerConfig {
	items, ok := v.Nullable().List()
	if !ok {
		return []store.ScorerConfig{}
	}
	out := make([]store.ScorerConfig, 0, len(items))
	seen := map[string]bool{}
	for _, it := range items {
		o, ok := it.Object()
		if !ok {
			continue
		}
		id, ok := o.Get("id").Required().UUID(4)
		if !ok {
			continue
		}
		if seen[id] {
			o.Get("id").Fail("scorer " + id + " is configured twice")
			continue
		}
		seen[id] = true
		var c store.ScorerConfig
		b, _ := json.Marshal(o.Raw())
		if err := json.Unmarshal(b, &c); err != nil {
			it.Fail("not a valid scorer config: " + err.Error())
			continue
		}
		c.ID = id
		out = append(out, c)
	}
	return out
}
