package scorers

import (
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/validate"
)

func TestDecisionRequestShape(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) } // characters, not bytes, count
	for _, tc := range []struct{ name, body, want string }{
		{"question only", `{"question":"Is it polite?"}`, `[]`},
		{"question at 2000", `{"question":"` + long(2000) + `"}`, `[]`},
		{"everything at its bounds", `{"question":"q","model_name":"` + long(255) + `","num_judges":10,
			"answer_options":["` + long(255) + `","b"],"output_type":"categorical","input_type":"basic",
			"scoreable_node_types":["llm"],"cot_enabled":true}`, `[]`},
		{"lower bounds", `{"question":"q","model_name":"m","num_judges":1,"answer_options":["a"]}`, `[]`},
		{"body missing", ``, `[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]`},
		{"body not an object", `"q"`,
			`[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":"q"}]`},
		{"question missing", `{"model_name":"m"}`,
			`[{"type":"missing","loc":["body","question"],"msg":"Field required","input":{"model_name":"m"}}]`},
		{"question empty", `{"question":""}`,
			`[{"type":"string_too_short","loc":["body","question"],"msg":"String should have at least 1 character","input":"","ctx":{"min_length":1}}]`},
		{"question over 2000", `{"question":"` + long(2001) + `"}`,
			`[{"type":"string_too_long","loc":["body","question"],"msg":"String should have at most 2000 characters","input":"` + long(2001) + `","ctx":{"max_length":2000}}]`},
		{"question not a string", `{"question":7}`,
			`[{"type":"string_type","loc":["body","question"],"msg":"Input should be a valid string","input":7}]`},
		{"model_name empty", `{"question":"q","model_name":""}`,
			`[{"type":"string_too_short","loc":["body","model_name"],"msg":"String should have at least 1 character","input":"","ctx":{"min_length":1}}]`},
		{"model_name over 255", `{"question":"q","model_name":"` + long(256) + `"}`,
			`[{"type":"string_too_long","loc":["body","model_name"],"msg":"String should have at most 255 characters","input":"` + long(256) + `","ctx":{"max_length":255}}]`},
		{"answer option empty", `{"question":"q","answer_options":["a",""]}`,
			`[{"type":"string_too_short","loc":["body","answer_options",1],"msg":"String should have at least 1 character","input":"","ctx":{"min_length":1}}]`},
		{"answer option over 255", `{"question":"q","answer_options":["` + long(256) + `"]}`,
			`[{"type":"string_too_long","loc":["body","answer_options",0],"msg":"String should have at most 255 characters","input":"` + long(256) + `","ctx":{"max_length":255}}]`},
		{"answer options not a list", `{"question":"q","answer_options":"a,b"}`,
			`[{"type":"list_type","loc":["body","answer_options"],"msg":"Input should be a valid list","input":"a,b"}]`},
		{"num_judges 0", `{"question":"q","num_judges":0}`,
			`[{"type":"greater_than_equal","loc":["body","num_judges"],"msg":"Input should be greater than or equal to 1","input":0,"ctx":{"ge":1}}]`},
		{"num_judges 11", `{"question":"q","num_judges":11}`,
			`[{"type":"less_than_equal","loc":["body","num_judges"],"msg":"Input should be less than or equal to 10","input":11,"ctx":{"le":10}}]`},
		{"num_judges fractional", `{"question":"q","num_judges":2.5}`,
			`[{"type":"int_from_float","loc":["body","num_judges"],"msg":"Input should be a valid integer, got a number with a fractional part","input":2.5}]`},
		{"enums", `{"question":"q","output_type":"score","input_type":"x"}`,
			`[{"type":"enum","loc":["body","output_type"],
			"msg":"Input should be 'boolean', 'categorical', 'count', 'discrete', 'freeform', 'percentage', 'multilabel', 'retrieved_chunk_list_boolean', 'boolean_multilabel' or 'boolean_probability'",
			"input":"score","ctx":{"expected":"'boolean', 'categorical', 'count', 'discrete', 'freeform', 'percentage', 'multilabel', 'retrieved_chunk_list_boolean', 'boolean_multilabel' or 'boolean_probability'"}},
			{"type":"enum","loc":["body","input_type"],
			"msg":"Input should be 'basic', 'llm_spans', 'retriever_spans', 'sessions_normalized', 'sessions_trace_io_only', 'tool_spans', 'trace_input_only', 'trace_io_only', 'trace_normalized', 'trace_output_only', 'agent_spans' or 'workflow_spans'",
			"input":"x","ctx":{"expected":"'basic', 'llm_spans', 'retriever_spans', 'sessions_normalized', 'sessions_trace_io_only', 'tool_spans', 'trace_input_only', 'trace_io_only', 'trace_normalized', 'trace_output_only', 'agent_spans' or 'workflow_spans'"}}]`},
		{"all problems at once", `{"question":"","scoreable_node_types":[1],"cot_enabled":"perhaps"}`,
			`[{"type":"string_too_short","loc":["body","question"],"msg":"String should have at least 1 character","input":"","ctx":{"min_length":1}},
			{"type":"string_type","loc":["body","scoreable_node_types",0],"msg":"Input should be a valid string","input":1},
			{"type":"bool_parsing","loc":["body","cot_enabled"],"msg":"Input should be a valid boolean, unable to interpret input","input":"perhaps"}]`},
		{"nulls are absent", `{"question":"q","model_name":null,"num_judges":null,"answer_options":null,"output_type":null}`, `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, present := decode(t, tc.body)
			errs := validate.New()
			readDecisionRequest(errs, raw, present)
			apitest.SameJSON(t, bodyOf(t, errs), `{"detail":`+tc.want+`}`)
		})
	}
}
