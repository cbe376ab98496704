package projects

import "github.com/evalobs/evalapi/shared/store"

// The enumerations of §2.8 and §2.9, in the specification's order (Pydantic lists them in
// that order in its messages).
var (
	rollUpMethods = []string{"average", "sum", "max", "min", "category_count", "percentage_true", "percentage_false"}
	// numericRollUps and categoricalRollUps are the two kinds roll_up_config may hold.
	numericRollUps     = []string{"average", "sum", "max", "min"}
	categoricalRollUps = []string{"category_count"}
	modelTypes         = []string{"slm", "llm", "code"}
	rollUpStrategies   = []string{"avg", "sum", "first", "last", "none"}
	lunaInputTypes     = []string{"span", "trace_object", "trace_input_output_only"}
	lunaOutputTypes    = []string{"float", "string", "string_list", "bool_list"}
	multimodalCaps     = []string{"vision", "audio"}
	// configOutputTypes is §2.7's output types without boolean_probability.
	configOutputTypes = store.OutputTypes[:len(store.OutputTypes)-1]

	nodeNameOperators = []string{"eq", "ne", "contains", "one_of", "not_in"}
	metadataOperators = []string{"one_of", "not_in", "eq", "ne"}
	modalityOperators = []string{"eq", "ne", "one_of", "not_in"}
	// modalities are the content modalities a modality filter names. The specification calls
	// them "enum values of modalities" without listing them; these are the kinds of content
	// an LLM span carries.
	modalities  = []string{"text", "image", "audio", "video", "document"}
	filterNames = []string{store.FilterNodeName, store.FilterMetadata, store.FilterModality}

	// scorerNames is the executor enumeration of §2.8.
	scorerNames = []string{"action_completion_luna", "action_advancement_luna", "agentic_session_success",
		"action_completion_vision", "action_completion_audio", "agentic_workflow_success", "agent_efficiency",
		"agent_flow", "agent_flow_vision", "agent_flow_audio", "chunk_attribution_utilization_luna",
		"chunk_attribution_utilization", "chunk_relevance", "chunk_relevance_luna", "context_precision",
		"precision_at_k", "completeness_luna", "completeness", "context_adherence", "context_adherence_luna",
		"context_adherence_vision", "context_adherence_audio", "context_relevance", "context_relevance_luna",
		"conversation_quality", "conversation_quality_vision", "conversation_quality_audio", "correctness",
		"correctness_vision", "correctness_audio", "ground_truth_adherence", "ground_truth_adherence_vision",
		"ground_truth_adherence_audio", "visual_fidelity", "visual_quality", "input_pii", "input_pii_gpt",
		"input_sexist", "input_sexist_vision", "input_sexist_audio", "input_sexist_luna", "input_tone",
		"input_tone_gpt", "input_toxicity", "input_toxicity_luna", "input_toxicity_vision", "input_toxicity_audio",
		"instruction_adherence", "instruction_adherence_vision", "instruction_adherence_audio", "output_pii",
		"output_pii_gpt", "output_sexist", "output_sexist_vision", "output_sexist_audio", "output_sexist_luna",
		"output_tone", "output_tone_gpt", "output_toxicity", "output_toxicity_luna", "output_toxicity_vision",
		"output_toxicity_audio", "prompt_injection", "prompt_injection_vision", "prompt_injection_audio",
		"prompt_injection_luna", "reasoning_coherence", "reasoning_coherence_vision", "reasoning_coherence_audio",
		"sql_efficiency", "sql_adherence", "sql_injection", "sql_correctness", "tool_error_rate",
		"tool_error_rate_luna", "tool_selection_quality", "tool_selection_quality_vision",
		"tool_selection_quality_audio", "tool_selection_quality_luna", "user_intent_change",
		"user_intent_change_vision", "user_intent_change_audio", "interruption_detection"}
)
