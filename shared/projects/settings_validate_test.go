package projects

import (
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/validate"
)

const sid = "4f1c2a3b-5d6e-4f70-8a9b-0c1d2e3f4a5b"

// scorerWith is a settings body with one scorer config holding the given extra fields.
func scorerWith(fields string) string {
	return `{"scorers":[{"id":"` + sid + `"` + fields + `}]}`
}

func filterBody(filter string) string { return scorerWith(`,"filters":[` + filter + `]`) }

func segmentBody(segment string) string { return `{"segment_filters":[` + segment + `]}` }

func readPatch(errs *validate.Errors, raw any, present bool) { readSettingsPatch(errs, raw, present) }

const (
	fl  = `["body","scorers",0,"filters",0`
	seg = `["body","segment_filters",0`
)

func TestSettingsPatchFilters(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"every kind is fine", filterBody(`{"name":"node_name","operator":"eq","value":"llm"},
			{"name":"metadata","operator":"one_of","key":"env","value":["a","b"]},
			{"name":"modality","operator":"one_of","value":["image","audio"]}`), `[]`},
		{"tag missing", filterBody(`{"operator":"eq","value":"x"}`),
			`[{"type":"union_tag_not_found","loc":` + fl + `],"msg":"Unable to extract tag using discriminator 'name'",
			"input":{"operator":"eq","value":"x"},"ctx":{"discriminator":"'name'"}}]`},
		{"tag unknown", filterBody(`{"name":"bogus","operator":"eq","value":"x"}`),
			`[{"type":"union_tag_invalid","loc":` + fl + `],
			"msg":"Input tag 'bogus' found using 'name' does not match any of the expected tags: 'node_name', 'metadata', 'modality'",
			"input":{"name":"bogus","operator":"eq","value":"x"},
			"ctx":{"discriminator":"'name'","tag":"bogus","expected_tags":"'node_name', 'metadata', 'modality'"}}]`},
		{"tag not a string", filterBody(`{"name":5}`),
			`[{"type":"union_tag_invalid","loc":` + fl + `],
			"msg":"Input tag '5' found using 'name' does not match any of the expected tags: 'node_name', 'metadata', 'modality'",
			"input":{"name":5},"ctx":{"discriminator":"'name'","tag":"5","expected_tags":"'node_name', 'metadata', 'modality'"}}]`},
		{"filter not an object", filterBody(`"node_name"`),
			`[{"type":"model_attributes_type","loc":` + fl + `],"msg":"Input should be a valid dictionary or object to extract fields from","input":"node_name"}]`},
		{"node_name operator", filterBody(`{"name":"node_name","operator":"gt","value":"x"}`),
			`[{"type":"enum","loc":` + fl + `,"node_name","operator"],"msg":"Input should be 'eq', 'ne', 'contains', 'one_of' or 'not_in'",
			"input":"gt","ctx":{"expected":"'eq', 'ne', 'contains', 'one_of' or 'not_in'"}}]`},
		{"node_name missing operator and value", filterBody(`{"name":"node_name"}`),
			`[{"type":"missing","loc":` + fl + `,"node_name","operator"],"msg":"Field required","input":{"name":"node_name"}},
			{"type":"missing","loc":` + fl + `,"node_name","value"],"msg":"Field required","input":{"name":"node_name"}}]`},
		{"node_name case_sensitive", filterBody(`{"name":"node_name","operator":"eq","value":"x","case_sensitive":"maybe"}`),
			`[{"type":"bool_parsing","loc":` + fl + `,"node_name","case_sensitive"],"msg":"Input should be a valid boolean, unable to interpret input","input":"maybe"}]`},
		{"value neither string nor list", filterBody(`{"name":"node_name","operator":"eq","value":5}`),
			`[{"type":"string_type","loc":` + fl + `,"node_name","value","str"],"msg":"Input should be a valid string","input":5},
			{"type":"list_type","loc":` + fl + `,"node_name","value","list[str]"],"msg":"Input should be a valid list","input":5}]`},
		{"value null", filterBody(`{"name":"node_name","operator":"eq","value":null}`),
			`[{"type":"string_type","loc":` + fl + `,"node_name","value","str"],"msg":"Input should be a valid string","input":null},
			{"type":"list_type","loc":` + fl + `,"node_name","value","list[str]"],"msg":"Input should be a valid list","input":null}]`},
		{"value list with a number", filterBody(`{"name":"node_name","operator":"one_of","value":["a",1]}`),
			`[{"type":"string_type","loc":` + fl + `,"node_name","value","str"],"msg":"Input should be a valid string","input":["a",1]},
			{"type":"string_type","loc":` + fl + `,"node_name","value","list[str]",1],"msg":"Input should be a valid string","input":1}]`},
		{"metadata operator and key", filterBody(`{"name":"metadata","operator":"contains","value":"x"}`),
			`[{"type":"enum","loc":` + fl + `,"metadata","operator"],"msg":"Input should be 'one_of', 'not_in', 'eq' or 'ne'",
			"input":"contains","ctx":{"expected":"'one_of', 'not_in', 'eq' or 'ne'"}},
			{"type":"missing","loc":` + fl + `,"metadata","key"],"msg":"Field required","input":{"name":"metadata","operator":"contains","value":"x"}}]`},
		{"modality operator", filterBody(`{"name":"modality","operator":"contains","value":"image"}`),
			`[{"type":"enum","loc":` + fl + `,"modality","operator"],"msg":"Input should be 'eq', 'ne', 'one_of' or 'not_in'",
			"input":"contains","ctx":{"expected":"'eq', 'ne', 'one_of' or 'not_in'"}}]`},
		{"modality value", filterBody(`{"name":"modality","operator":"eq","value":"smell"}`),
			`[{"type":"enum","loc":` + fl + `,"modality","value","str-enum[Modality]"],
			"msg":"Input should be 'text', 'image', 'audio', 'video' or 'document'","input":"smell",
			"ctx":{"expected":"'text', 'image', 'audio', 'video' or 'document'"}},
			{"type":"list_type","loc":` + fl + `,"modality","value","list[str-enum[Modality]]"],"msg":"Input should be a valid list","input":"smell"}]`},
		{"filters not a list", scorerWith(`,"filters":{"name":"node_name"}`),
			`[{"type":"list_type","loc":["body","scorers",0,"filters"],"msg":"Input should be a valid list","input":{"name":"node_name"}}]`},
		{"filters null", scorerWith(`,"filters":null`), `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			apitest.SameJSON(t, detailOf(t, tc.body, readPatch), `{"detail":`+tc.want+`}`)
		})
	}
}

func TestSettingsPatchSegmentFilters(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"bounds inclusive", segmentBody(`{"sample_rate":0},{"sample_rate":1},{"sample_rate":0.25,"filter":null}`), `[]`},
		{"above 1", segmentBody(`{"sample_rate":1.5}`),
			`[{"type":"less_than_equal","loc":` + seg + `,"sample_rate"],"msg":"Input should be less than or equal to 1","input":1.5,"ctx":{"le":1}}]`},
		{"below 0", segmentBody(`{"sample_rate":-0.1}`),
			`[{"type":"greater_than_equal","loc":` + seg + `,"sample_rate"],"msg":"Input should be greater than or equal to 0","input":-0.1,"ctx":{"ge":0}}]`},
		{"missing", segmentBody(`{"llm_scorers":true}`),
			`[{"type":"missing","loc":` + seg + `,"sample_rate"],"msg":"Field required","input":{"llm_scorers":true}}]`},
		{"not a number", segmentBody(`{"sample_rate":"half"}`),
			`[{"type":"float_parsing","loc":` + seg + `,"sample_rate"],"msg":"Input should be a valid number, unable to parse string as a number","input":"half"}]`},
		{"flags", segmentBody(`{"sample_rate":0.5,"llm_scorers":"x","multimodal_scorers":2}`),
			`[{"type":"bool_parsing","loc":` + seg + `,"llm_scorers"],"msg":"Input should be a valid boolean, unable to interpret input","input":"x"},
			{"type":"bool_parsing","loc":` + seg + `,"multimodal_scorers"],"msg":"Input should be a valid boolean, unable to interpret input","input":2}]`},
		{"filter tag", segmentBody(`{"sample_rate":0.5,"filter":{"name":"size"}}`),
			`[{"type":"union_tag_invalid","loc":` + seg + `,"filter"],
			"msg":"Input tag 'size' found using 'name' does not match any of the expected tags: 'node_name', 'metadata', 'modality'",
			"input":{"name":"size"},"ctx":{"discriminator":"'name'","tag":"size","expected_tags":"'node_name', 'metadata', 'modality'"}}]`},
		{"filter variant field", segmentBody(`{"sample_rate":0.5,"filter":{"name":"metadata","operator":"eq","key":"k","value":[true]}}`),
			`[{"type":"string_type","loc":` + seg + `,"filter","metadata","value","str"],"msg":"Input should be a valid string","input":[true]},
			{"type":"string_type","loc":` + seg + `,"filter","metadata","value","list[str]",0],"msg":"Input should be a valid string","input":true}]`},
		{"not a list", `{"segment_filters":{"sample_rate":1}}`,
			`[{"type":"list_type","loc":["body","segment_filters"],"msg":"Input should be a valid list","input":{"sample_rate":1}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			apitest.SameJSON(t, detailOf(t, tc.body, readPatch), `{"detail":`+tc.want+`}`)
		})
	}
}

func TestSettingsPatchScorerFields(t *testing.T) {
	sc := `["body","scorers",0`
	for _, tc := range []struct{ name, body, want string }{
		{"body missing", ``, `[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]`},
		{"body a list", `[]`, `[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":[]}]`},
		{"empty body changes nothing", `{}`, `[]`},
		{"id missing", `{"scorers":[{"name":"x"}]}`,
			`[{"type":"missing","loc":` + sc + `,"id"],"msg":"Field required","input":{"name":"x"}}]`},
		{"id not a uuid", `{"scorers":[{"id":"abc"}]}`,
			`[{"type":"uuid_parsing","loc":` + sc + `,"id"],"msg":"Input should be a valid UUID, invalid length: expected length 32 for simple format, found 3",
			"input":"abc","ctx":{"error":"invalid length: expected length 32 for simple format, found 3"}}]`},
		{"id of version 1", `{"scorers":[{"id":"a8098c1a-f86e-11da-bd1a-00112444be1e"}]}`,
			`[{"type":"uuid_version","loc":` + sc + `,"id"],"msg":"UUID version 4 expected","input":"a8098c1a-f86e-11da-bd1a-00112444be1e","ctx":{"expected_version":4}}]`},
		{"scorer twice", `{"scorers":[{"id":"` + sid + `"},{"id":"` + strings.ToUpper(sid) + `"}]}`,
			`[{"type":"value_error","loc":["body","scorers",1,"id"],"msg":"Value error, scorer ` + sid + ` is configured twice",
			"input":"` + strings.ToUpper(sid) + `","ctx":{"error":{}}}]`},
		{"roll_up_method", scorerWith(`,"roll_up_method":"median"`),
			`[{"type":"enum","loc":` + sc + `,"roll_up_method"],
			"msg":"Input should be 'average', 'sum', 'max', 'min', 'category_count', 'percentage_true' or 'percentage_false'","input":"median",
			"ctx":{"expected":"'average', 'sum', 'max', 'min', 'category_count', 'percentage_true' or 'percentage_false'"}}]`},
		{"output_type without boolean_probability", scorerWith(`,"output_type":"boolean_probability"`),
			`[{"type":"enum","loc":` + sc + `,"output_type"],
			"msg":"Input should be 'boolean', 'categorical', 'count', 'discrete', 'freeform', 'percentage', 'multilabel', 'retrieved_chunk_list_boolean' or 'boolean_multilabel'",
			"input":"boolean_probability",
			"ctx":{"expected":"'boolean', 'categorical', 'count', 'discrete', 'freeform', 'percentage', 'multilabel', 'retrieved_chunk_list_boolean' or 'boolean_multilabel'"}}]`},
		{"small enums", scorerWith(`,"scorer_type":"x","model_type":"x","roll_up_strategy":"x","luna_input_type":"x","luna_output_type":"x"`),
			`[{"type":"enum","loc":` + sc + `,"scorer_type"],"msg":"Input should be 'llm', 'code', 'luna' or 'preset'","input":"x","ctx":{"expected":"'llm', 'code', 'luna' or 'preset'"}},
			{"type":"enum","loc":` + sc + `,"model_type"],"msg":"Input should be 'slm', 'llm' or 'code'","input":"x","ctx":{"expected":"'slm', 'llm' or 'code'"}},
			{"type":"enum","loc":` + sc + `,"roll_up_strategy"],"msg":"Input should be 'avg', 'sum', 'first', 'last' or 'none'","input":"x","ctx":{"expected":"'avg', 'sum', 'first', 'last' or 'none'"}},
			{"type":"enum","loc":` + sc + `,"luna_input_type"],"msg":"Input should be 'span', 'trace_object' or 'trace_input_output_only'","input":"x","ctx":{"expected":"'span', 'trace_object' or 'trace_input_output_only'"}},
			{"type":"enum","loc":` + sc + `,"luna_output_type"],"msg":"Input should be 'float', 'string', 'string_list' or 'bool_list'","input":"x","ctx":{"expected":"'float', 'string', 'string_list' or 'bool_list'"}}]`},
		{"multimodal capability", scorerWith(`,"multimodal_capabilities":["vision","smell"]`),
			`[{"type":"enum","loc":` + sc + `,"multimodal_capabilities",1],"msg":"Input should be 'vision' or 'audio'","input":"smell","ctx":{"expected":"'vision' or 'audio'"}}]`},
		{"roll_up_config mixed", scorerWith(`,"roll_up_config":{"roll_up_methods":["average","category_count"]}`),
			`[{"type":"enum","loc":` + sc + `,"roll_up_config","roll_up_methods","list[str-enum[NumericRollUpMethod]]",1],
			"msg":"Input should be 'average', 'sum', 'max' or 'min'","input":"category_count","ctx":{"expected":"'average', 'sum', 'max' or 'min'"}},
			{"type":"enum","loc":` + sc + `,"roll_up_config","roll_up_methods","list[str-enum[CategoricalRollUpMethod]]",0],
			"msg":"Input should be 'category_count'","input":"average","ctx":{"expected":"'category_count'"}}]`},
		{"roll_up_config empty", scorerWith(`,"roll_up_config":{"roll_up_methods":[]}`),
			`[{"type":"too_short","loc":` + sc + `,"roll_up_config","roll_up_methods","list[str-enum[NumericRollUpMethod]]"],
			"msg":"List should have at least 1 item after validation, not 0","input":[],"ctx":{"field_type":"List","min_length":1,"actual_length":0}},
			{"type":"too_short","loc":` + sc + `,"roll_up_config","roll_up_methods","list[str-enum[CategoricalRollUpMethod]]"],
			"msg":"List should have at least 1 item after validation, not 0","input":[],"ctx":{"field_type":"List","min_length":1,"actual_length":0}}]`},
		{"roll_up_config without methods", scorerWith(`,"roll_up_config":{}`),
			`[{"type":"missing","loc":` + sc + `,"roll_up_config","roll_up_methods"],"msg":"Field required","input":{}}]`},
		{"roll_up_config numeric and categorical alone", scorerWith(`,"roll_up_config":{"roll_up_methods":["average","max"]}}, {"id":"` +
			"5f1c2a3b-5d6e-4f70-8a9b-0c1d2e3f4a5b" + `","roll_up_config":{"roll_up_methods":["category_count"]}`), `[]`},
		{"vocab value not an int", scorerWith(`,"class_name_to_vocab_ix":{"yes":"x"}`),
			`[{"type":"int_parsing","loc":` + sc + `,"class_name_to_vocab_ix","yes","int"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"},
			{"type":"list_type","loc":` + sc + `,"class_name_to_vocab_ix","yes","list[int]"],"msg":"Input should be a valid list","input":"x"}]`},
		{"vocab repeated integer", scorerWith(`,"class_name_to_vocab_ix":{"yes":[1,2,1]}`),
			`[{"type":"int_type","loc":` + sc + `,"class_name_to_vocab_ix","yes","int"],"msg":"Input should be a valid integer","input":[1,2,1]},
			{"type":"value_error","loc":` + sc + `,"class_name_to_vocab_ix","yes","list[int]",2],"msg":"Value error, the integers of a class must be unique","input":1,"ctx":{"error":{}}}]`},
		{"vocab not a dict", scorerWith(`,"class_name_to_vocab_ix":[1]`),
			`[{"type":"dict_type","loc":` + sc + `,"class_name_to_vocab_ix"],"msg":"Input should be a valid dictionary","input":[1]}]`},
		{"pinned version", scorerWith(`,"scorer_version":{"version":"one","generated_scorer":{"id":"` + sid + `"}}`),
			`[{"type":"missing","loc":` + sc + `,"scorer_version","id"],"msg":"Field required","input":{"version":"one","generated_scorer":{"id":"` + sid + `"}}},
			{"type":"int_parsing","loc":` + sc + `,"scorer_version","version"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"one"},
			{"type":"missing","loc":` + sc + `,"scorer_version","scorer_id"],"msg":"Field required","input":{"version":"one","generated_scorer":{"id":"` + sid + `"}}},
			{"type":"missing","loc":` + sc + `,"scorer_version","generated_scorer","name"],"msg":"Field required","input":{"id":"` + sid + `"}}]`},
		{"chainpoll template", scorerWith(`,"chainpoll_template":{"metric_few_shot_examples":[{}]}`),
			`[{"type":"missing","loc":` + sc + `,"chainpoll_template","template"],"msg":"Field required","input":{"metric_few_shot_examples":[{}]}},
			{"type":"missing","loc":` + sc + `,"chainpoll_template","metric_few_shot_examples",0,"generation_prompt_and_response"],"msg":"Field required","input":{}},
			{"type":"missing","loc":` + sc + `,"chainpoll_template","metric_few_shot_examples",0,"evaluating_response"],"msg":"Field required","input":{}}]`},
		{"scorers null leaves them", `{"scorers":null}`, `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			apitest.SameJSON(t, detailOf(t, tc.body, readPatch), `{"detail":`+tc.want+`}`)
		})
	}
}
