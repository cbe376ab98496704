package scorers

import (
	"encoding/json"
	"testing"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

const scorerID = "6a1c2a3b-5d6e-4f70-8a9b-0c1d2e3f4a5b"

func llmScorer(outputType string) store.Scorer {
	s := store.Scorer{ID: scorerID, ScorerType: "llm", ScoreableNodeTypes: []string{"llm", "agent"},
		InputType: ptr("basic")}
	if outputType != "" {
		s.OutputType = &outputType
	}
	return s
}

// rulesOf runs the scorer rules of a request body and returns the options to store and the
// 422 body of the problems.
func rulesOf(t *testing.T, s store.Scorer, body string, latest *store.ScorerVersion) (string, string) {
	t.Helper()
	raw, present := decode(t, body)
	shape := validate.New()
	req := readDecisionRequest(shape, raw, present)
	if shape.Err() != nil {
		t.Fatalf("test body fails shape validation: %v", shape)
	}
	errs := validate.New()
	opts := checkScorerRules(errs, scorerID, s, req, latest)
	b, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), bodyOf(t, errs)
}

func optErr(input, msg string) string {
	return `[{"type":"value_error","loc":["body","answer_options"],"msg":"Value error, ` + msg + `","input":` + input + `,"ctx":{"error":{}}}]`
}

func dupErr(i, label string) string {
	return `[{"type":"value_error","loc":["body","answer_options",` + i + `],"msg":"Value error, answer option '` + label +
		`' is listed twice","input":"` + label + `","ctx":{"error":{}}}]`
}

func TestAnswerOptionsPerOutputType(t *testing.T) {
	prevLabels := &store.ScorerVersion{Decision: &store.DecisionScorer{AnswerOptions: store.AnswerOptions{Labels: []string{"x", "y"}}}}
	for _, tc := range []struct {
		name, outputType, options string // options: the JSON of answer_options, "" for absent
		latest                    *store.ScorerVersion
		stored, problems          string
	}{
		{"categorical two", "categorical", `["yes","no"]`, nil, `["yes","no"]`, `[]`},
		{"categorical one", "categorical", `["yes"]`, nil, `null`, optErr(`["yes"]`, "a categorical scorer needs at least 2 distinct answer options")},
		{"categorical repeated", "categorical", `["a","b","a"]`, nil, `null`, dupErr("2", "a")},
		{"categorical absent, no version", "categorical", ``, nil, `null`, optErr(`null`, "a categorical scorer needs at least 2 distinct answer options")},
		{"categorical absent, latest has them", "categorical", ``, prevLabels, `["x","y"]`, `[]`},
		{"categorical null is absent", "categorical", `null`, prevLabels, `["x","y"]`, `[]`},
		{"multilabel three", "multilabel", `["a","b","c"]`, nil, `["a","b","c"]`, `[]`},
		{"multilabel empty", "multilabel", `[]`, nil, `null`, optErr(`[]`, "a multilabel scorer needs at least 2 distinct answer options")},
		{"multilabel repeated", "multilabel", `["a","a"]`, nil, `null`, dupErr("1", "a")},
		{"discrete levels in order", "discrete", `["low","mid","high"]`, nil,
			`[{"label":"low","value":0},{"label":"mid","value":1},{"label":"high","value":2}]`, `[]`},
		{"discrete one", "discrete", `["only"]`, nil, `null`, optErr(`["only"]`, "a discrete scorer needs at least 2 distinct answer options")},
		{"discrete repeated", "discrete", `["a","b","b"]`, nil, `null`, dupErr("2", "b")},
		{"boolean absent", "boolean", ``, nil, `null`, `[]`},
		{"boolean two", "boolean", `["pass","fail"]`, nil, `["pass","fail"]`, `[]`},
		{"boolean three", "boolean", `["a","b","c"]`, nil, `null`, optErr(`["a","b","c"]`, "a boolean scorer takes exactly 2 distinct answer options")},
		{"boolean one", "boolean", `["a"]`, nil, `null`, optErr(`["a"]`, "a boolean scorer takes exactly 2 distinct answer options")},
		{"boolean same twice", "boolean", `["a","a"]`, nil, `null`, dupErr("1", "a")},
		{"boolean_probability absent", "boolean_probability", ``, nil, `null`, `[]`},
		{"boolean_probability null", "boolean_probability", `null`, nil, `null`, `[]`},
		{"boolean_probability sent", "boolean_probability", `["a","b"]`, nil, `null`, optErr(`["a","b"]`, "a boolean_probability scorer takes no answer options")},
		{"boolean_probability empty list", "boolean_probability", `[]`, nil, `null`, optErr(`[]`, "a boolean_probability scorer takes no answer options")},
		{"count sent", "count", `["a","b"]`, nil, `null`, optErr(`["a","b"]`, "a count scorer takes no answer options")},
		{"freeform sent", "freeform", `["a","b"]`, nil, `null`, optErr(`["a","b"]`, "a freeform scorer takes no answer options")},
		{"percentage sent", "percentage", `["a","b"]`, nil, `null`, optErr(`["a","b"]`, "a percentage scorer takes no answer options")},
		{"retrieved_chunk_list_boolean sent", "retrieved_chunk_list_boolean", `["a","b"]`, nil, `null`,
			optErr(`["a","b"]`, "a retrieved_chunk_list_boolean scorer takes no answer options")},
		{"boolean_multilabel sent", "boolean_multilabel", `["a","b"]`, nil, `null`, optErr(`["a","b"]`, "a boolean_multilabel scorer takes no answer options")},
		{"percentage absent", "percentage", ``, nil, `null`, `[]`},
		{"no output type sent", "", `["a","b"]`, nil, `null`, optErr(`["a","b"]`, "a scorer without an output type takes no answer options")},
		{"no output type absent", "", ``, nil, `null`, `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"question":"q"}`
			if tc.options != "" {
				body = `{"question":"q","answer_options":` + tc.options + `}`
			}
			stored, problems := rulesOf(t, llmScorer(tc.outputType), body, tc.latest)
			apitest.SameJSON(t, problems, `{"detail":`+tc.problems+`}`)
			if problems == `{"detail":[]}` {
				apitest.SameJSON(t, stored, tc.stored)
			}
		})
	}
}

func TestScorerMustMatch(t *testing.T) {
	code := llmScorer("boolean")
	code.ScorerType = "code"
	noTypes := store.Scorer{ID: scorerID, ScorerType: "llm"}
	for _, tc := range []struct {
		name   string
		scorer store.Scorer
		body   string
		want   string
	}{
		{"all equal", llmScorer("boolean"), `{"question":"q","output_type":"boolean","input_type":"basic","scoreable_node_types":["agent","llm"]}`, `[]`},
		{"not an llm scorer", code, `{"question":"q"}`,
			`[{"type":"value_error","loc":["path","scorer_id"],"msg":"Value error, scorer ` + scorerID + ` is a code scorer; decision versions need an llm scorer",
			"input":"` + scorerID + `","ctx":{"error":{}}}]`},
		{"scoreable_node_types differ", llmScorer("boolean"), `{"question":"q","scoreable_node_types":["llm"]}`,
			`[{"type":"value_error","loc":["body","scoreable_node_types"],"msg":"Value error, scoreable_node_types must match the scorer's ['llm', 'agent']",
			"input":["llm"],"ctx":{"error":{}}}]`},
		{"scoreable_node_types when the scorer has none", noTypes, `{"question":"q","scoreable_node_types":["llm"]}`,
			`[{"type":"value_error","loc":["body","scoreable_node_types"],"msg":"Value error, scoreable_node_types must match the scorer's []",
			"input":["llm"],"ctx":{"error":{}}}]`},
		{"output_type differs", llmScorer("boolean"), `{"question":"q","output_type":"categorical"}`,
			`[{"type":"value_error","loc":["body","output_type"],"msg":"Value error, output_type must match the scorer's 'boolean'",
			"input":"categorical","ctx":{"error":{}}}]`},
		{"output_type when the scorer has none", noTypes, `{"question":"q","output_type":"boolean"}`,
			`[{"type":"value_error","loc":["body","output_type"],"msg":"Value error, output_type must not be sent: the scorer has no output_type",
			"input":"boolean","ctx":{"error":{}}}]`},
		{"input_type differs", llmScorer("boolean"), `{"question":"q","input_type":"llm_spans"}`,
			`[{"type":"value_error","loc":["body","input_type"],"msg":"Value error, input_type must match the scorer's 'basic'",
			"input":"llm_spans","ctx":{"error":{}}}]`},
		{"every mismatch at once", code, `{"question":"q","output_type":"count","input_type":"tool_spans","scoreable_node_types":[],"answer_options":["a"]}`,
			`[{"type":"value_error","loc":["path","scorer_id"],"msg":"Value error, scorer ` + scorerID + ` is a code scorer; decision versions need an llm scorer","input":"` + scorerID + `","ctx":{"error":{}}},
			{"type":"value_error","loc":["body","scoreable_node_types"],"msg":"Value error, scoreable_node_types must match the scorer's ['llm', 'agent']","input":[],"ctx":{"error":{}}},
			{"type":"value_error","loc":["body","answer_options"],"msg":"Value error, a boolean scorer takes exactly 2 distinct answer options","input":["a"],"ctx":{"error":{}}},
			{"type":"value_error","loc":["body","output_type"],"msg":"Value error, output_type must match the scorer's 'boolean'","input":"count","ctx":{"error":{}}},
			{"type":"value_error","loc":["body","input_type"],"msg":"Value error, input_type must match the scorer's 'basic'","input":"tool_spans","ctx":{"error":{}}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := rulesOf(t, tc.scorer, tc.body, nil)
			apitest.SameJSON(t, problems, `{"detail":`+tc.want+`}`)
		})
	}
}
