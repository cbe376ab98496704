package columns

// Step types a column may apply to, in the order of §2.11.
const (
	TypeWorkflow  = "workflow"
	TypeTrace     = "trace"
	TypeHTTP      = "http"
	TypeAgent     = "agent"
	TypeLLM       = "llm"
	TypeControl   = "control"
	TypeSession   = "session"
	TypeTool      = "tool"
	TypeRetriever = "retriever"
)

// The groups of applicable types §2.11 names.
var (
	// All is every step type.
	All = []string{TypeWorkflow, TypeTrace, TypeHTTP, TypeAgent, TypeLLM, TypeControl, TypeSession, TypeTool, TypeRetriever}
	// NoSession is every step type except session.
	NoSession = []string{TypeWorkflow, TypeTrace, TypeHTTP, TypeAgent, TypeLLM, TypeControl, TypeTool, TypeRetriever}
	// Span is every span type: neither trace nor session.
	Span = []string{TypeWorkflow, TypeHTTP, TypeAgent, TypeLLM, TypeControl, TypeTool, TypeRetriever}
)

// GroupStandard is the group label of every standard column.
const GroupStandard = "Standard"

// row is the part of a standard column that varies; std fills in the rest.
type row struct {
	id, label, description string
	data                   DataType
	filter                 FilterType
	types                  []string
	optional               bool
	allowed                []string
}

func std(r row) Column {
	return Column{
		ID: r.id, Label: r.label, Description: r.description,
		Category: CategoryStandard, GroupLabel: GroupStandard,
		DataType: r.data, FilterType: r.filter,
		Filterable: true, Sortable: true,
		IsOptional: r.optional, ApplicableTypes: r.types, AllowedValues: r.allowed,
	}
}

// standard is the table of §2.11, in its order. Only tags differs from the pattern: it holds
// many values and cannot be sorted on.
var standard = func() []Column {
	rows := []row{
		{"input", "Input", "Input of the record.", DataText, FilterText, All, false, nil},
		{"output", "Output", "Output of the record.", DataText, FilterText, All, false, nil},
		{"name", "Name", "Name of the record.", DataText, FilterText, All, false, nil},
		{"created_at", "Created", "When the record was created.", DataTimestamp, FilterDate, All, false, nil},
		{"tags", "Tags", "Tags attached to the record.", DataStringList, FilterCollection, NoSession, false, nil},
		{"status_code", "Status Code", "Status code the record ended with.", DataInteger, FilterNumber, NoSession, true, nil},
		{"external_id", "External ID", "User-provided id of the record.", DataText, FilterText, All, true, nil},
		{"dataset_input", "Dataset Input", "Input of the dataset row the record was run on.", DataText, FilterText, NoSession, false, nil},
		{"dataset_output", "Dataset Output", "Expected output of the dataset row the record was run on.", DataText, FilterText, NoSession, false, nil},
		{"id", "ID", "Identifier of the record.", DataUUID, FilterID, All, false, nil},
		{"session_id", "Session ID", "Session the record belongs to.", DataUUID, FilterID, NoSession, false, nil},
		{"project_id", "Project ID", "Project the record belongs to.", DataUUID, FilterID, NoSession, false, nil},
		{"run_id", "Run ID", "Log stream or experiment the record belongs to.", DataUUID, FilterID, NoSession, false, nil},
		{"updated_at", "Updated", "When the record was last updated.", DataTimestamp, FilterDate, NoSession, true, nil},
		{"has_children", "Has Children", "Whether the record has child spans.", DataBoolean, FilterBoolean, NoSession, true, nil},
		{"progress_message", "Progress Message", "Latest progress message of the record.", DataText, FilterText, All, false, nil},
		{"error_message", "Error Message", "Error the record ended with.", DataText, FilterText, All, false, nil},
		{"dataset_generated_output", "Dataset Generated Output", "Output generated for the dataset row of the trace.", DataText, FilterText, []string{TypeTrace}, false, nil},
		{"is_complete", "Is Complete", "Whether the record has been completed.", DataBoolean, FilterBoolean, NoSession, false, nil},
		{"type", "Type", "Step type of the record.", DataText, FilterText, Span, false, All},
		{"trace_id", "Trace ID", "Trace the span belongs to.", DataUUID, FilterID, Span, false, nil},
		{"parent_id", "Parent ID", "Parent of the span.", DataUUID, FilterID, Span, false, nil},
		{"step_number", "Step Number", "Position of the span in its trace.", DataInteger, FilterNumber, Span, true, nil},
		{"agent_type", "Agent Type", "Kind of agent the span ran.", DataText, FilterText, []string{TypeAgent}, false,
			[]string{"judge", "classifier", "react", "default", "router", "planner", "supervisor", "reflection"}},
		{"agent_name", "Agent Name", "Name of the agent.", DataText, FilterText, []string{TypeControl, TypeAgent}, true, nil},
		{"tools", "Tools", "Tools offered to the model.", DataText, FilterText, []string{TypeLLM}, false, nil},
		{"model", "Model", "Model that was called.", DataText, FilterText, []string{TypeLLM}, true, nil},
		{"provider", "Provider", "Provider of the model.", DataText, FilterText, []string{TypeLLM}, true, nil},
		{"temperature", "Temperature", "Sampling temperature of the call.", DataFloatingPoint, FilterNumber, []string{TypeLLM}, true, nil},
		{"finish_reason", "Finish Reason", "Why the model stopped generating.", DataText, FilterText, []string{TypeLLM}, true, nil},
		{"tool_call_id", "Tool Call ID", "Id of the tool call the span answers.", DataText, FilterText, []string{TypeTool}, true, nil},
		{"control_id", "Control ID", "Identifier of the control.", DataInteger, FilterNumber, []string{TypeControl}, true, nil},
		{"check_stage", "Check Stage", "Whether the control ran before or after the call.", DataText, FilterText, []string{TypeControl}, true,
			[]string{"post", "pre"}},
		{"applies_to", "Applies To", "Kind of call the control checks.", DataText, FilterText, []string{TypeControl}, true,
			[]string{"llm_call", "tool_call"}},
		{"evaluator_name", "Evaluator Name", "Evaluator the control ran.", DataText, FilterText, []string{TypeControl}, true, nil},
		{"selector_path", "Selector Path", "Path of the value the control checked.", DataText, FilterText, []string{TypeControl}, true, nil},
	}
	out := make([]Column, len(rows))
	for i, r := range rows {
		out[i] = std(r)
		if r.id == "tags" {
			out[i].MultiValued, out[i].Sortable = true, false
		}
	}
	return out
}()

var standardIndex = func() map[string]int {
	m := make(map[string]int, len(standard))
	for i, c := range standard {
		m[c.ID] = i
	}
	return m
}()

// Standard returns the standard columns in the specification's order; the caller owns the
// slice.
func Standard() []Column {
	out := make([]Column, len(standard))
	for i, c := range standard {
		out[i] = c.clone()
	}
	return out
}

// Lookup finds a standard column by id. Metric columns depend on a run; look them up in that
// run's Catalog.
func Lookup(id string) (Column, bool) {
	i, ok := standardIndex[id]
	if !ok {
		return Column{}, false
	}
	return standard[i].clone(), true
}
