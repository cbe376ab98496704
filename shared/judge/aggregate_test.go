package judge

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

func ptr[T any](v T) *T { return &v }

// The judges' answers, in judge order, read and aggregated by output type.
func TestParseAndAggregate(t *testing.T) {
	for _, tc := range []struct {
		name, outputType string
		options          store.AnswerOptions
		answers          []string
		value            any
		probability      *float64
		explanation      string
	}{
		{"boolean majority", "boolean", store.AnswerOptions{}, []string{`{"rating":true,"explanation":"a"}`, `{"rating":false,"explanation":"b"}`, `{"rating":true,"explanation":"c"}`},
			true, ptr(2.0 / 3), "a"},
		{"boolean tie is false", "boolean", store.AnswerOptions{}, []string{`{"rating":true,"explanation":"a"}`, `{"rating":false,"explanation":"b"}`},
			false, ptr(0.5), "b"},
		{"boolean from yes/no strings and 0/1", "boolean", store.AnswerOptions{}, []string{`{"rating":"yes"}`, `{"rating":1}`, `{"rating":"no"}`},
			true, ptr(2.0 / 3), ""},
		{"boolean with two labels: the first is yes", "boolean", store.AnswerOptions{Labels: []string{"pass", "fail"}},
			[]string{`{"rating":"fail"}`, `{"rating":"FAIL"}`, `{"rating":"pass"}`}, false, ptr(1.0 / 3), ""},
		{"boolean_probability mean", "boolean_probability", store.AnswerOptions{}, []string{`{"rating":0.2}`, `{"rating":0.6}`},
			0.4, ptr(0.4), ""},
		{"categorical majority", "categorical", store.AnswerOptions{Labels: []string{"low", "mid", "high"}},
			[]string{`{"rating":"high","explanation":"h"}`, `{"rating":"mid"}`, `{"rating":" High ","explanation":"h2"}`}, "high", nil, "h"},
		{"categorical tie goes to the option listed first", "categorical", store.AnswerOptions{Labels: []string{"low", "mid", "high"}},
			[]string{`{"rating":"high"}`, `{"rating":"mid","explanation":"m"}`}, "mid", nil, "m"},
		{"discrete mean of levels", "discrete", store.AnswerOptions{Levels: []store.DecisionLevel{{Label: "bad", Value: 0}, {Label: "ok", Value: 1}, {Label: "good", Value: 2}}},
			[]string{`{"rating":"good"}`, `{"rating":"ok"}`, `{"rating":"good"}`}, 5.0 / 3, nil, ""},
		{"count mean", "count", store.AnswerOptions{}, []string{`{"rating":2}`, `{"rating":"4"}`}, 3.0, nil, ""},
		{"percentage mean", "percentage", store.AnswerOptions{}, []string{`{"rating":0.25}`, `{"rating":0.75}`}, 0.5, nil, ""},
		{"multilabel majority per label", "multilabel", store.AnswerOptions{Labels: []string{"a", "b", "c"}},
			[]string{`{"rating":["a","b"]}`, `{"rating":["a"]}`, `{"rating":["A","c"]}`}, []string{"a"}, nil, ""},
		{"freeform most frequent", "freeform", store.AnswerOptions{}, []string{`{"rating":"x"}`, `{"rating":"y"}`, `{"rating":"y"}`}, "y", nil, ""},
		{"answer in a fence", "boolean", store.AnswerOptions{}, []string{"```json\n{\"rating\": true, \"explanation\": \"ok\"}\n```"}, true, ptr(1.0), "ok"},
		{"answer inside prose", "boolean", store.AnswerOptions{}, []string{`Sure. {"rating": true, "explanation": "fine"} Hope this helps.`}, true, ptr(1.0), "fine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPlan(t, tc.outputType, tc.options)
			as := make([]answer, len(tc.answers))
			for i, a := range tc.answers {
				v, ok := p.parse(a)
				if !ok {
					t.Fatalf("answer %d %s not read", i, a)
				}
				as[i].verdict = v
			}
			value, probability, explanation := p.aggregate(as)
			if fmt.Sprint(value) != fmt.Sprint(tc.value) {
				f, ok := value.(float64)
				if !ok || math.Abs(f-tc.value.(float64)) > 1e-9 {
					t.Fatalf("value %v (%T), want %v", value, value, tc.value)
				}
			}
			if (probability == nil) != (tc.probability == nil) || probability != nil && math.Abs(*probability-*tc.probability) > 1e-9 {
				t.Fatalf("probability %v, want %v", probability, tc.probability)
			}
			if tc.explanation != "" && explanation != tc.explanation {
				t.Fatalf("explanation %q, want %q", explanation, tc.explanation)
			}
		})
	}
}

func TestUnreadableAnswers(t *testing.T) {
	for _, tc := range []struct {
		outputType string
		options    store.AnswerOptions
		answer     string
	}{
		{"boolean", store.AnswerOptions{}, `not json at all`},
		{"boolean", store.AnswerOptions{}, `{"explanation":"no rating field"}`},
		{"boolean", store.AnswerOptions{}, `{"rating":"maybe"}`},
		{"boolean_probability", store.AnswerOptions{}, `{"rating":1.5}`},
		{"categorical", store.AnswerOptions{Labels: []string{"a", "b"}}, `{"rating":"c"}`},
		{"discrete", store.AnswerOptions{Labels: []string{"a", "b"}}, `{"rating":7}`},
		{"multilabel", store.AnswerOptions{Labels: []string{"a", "b"}}, `{"rating":["a","z"]}`},
		{"count", store.AnswerOptions{}, `{"rating":-1}`},
		{"freeform", store.AnswerOptions{}, `{"rating":3}`},
		{"boolean", store.AnswerOptions{}, `{"rating": tru`},
	} {
		p := testPlan(t, tc.outputType, tc.options)
		if v, ok := p.parse(tc.answer); ok {
			t.Errorf("%s %s read as %+v", tc.outputType, tc.answer, v)
		}
	}
}

// A template's own field names are what the answers are read by.
func TestTemplateFieldNames(t *testing.T) {
	v := &store.ScorerVersion{Kind: store.VersionLLM, OutputType: ptr("boolean"), Generated: &store.GeneratedScorer{
		ChainPollTemplate: store.ChainPollTemplate{Template: "Judge {response} to {query}.", ValueFieldName: "verdict", ExplanationFieldName: "why"}}}
	p, perr := planFor(Request{Scorer: store.Scorer{ScorerType: "llm"}, Version: v})
	if perr != nil {
		t.Fatal(perr)
	}
	if got, ok := p.parse(`{"why":"because","verdict":true}`); !ok || !got.b || got.explanation != "because" {
		t.Fatalf("parsed %+v %v", got, ok)
	}
	msgs := p.messages(Content{Input: "Q {output}", Output: "A"})
	user := msgs[len(msgs)-1].Content
	if want := "Judge A to Q {output}."; user[:len(want)] != want {
		t.Fatalf("filled %q", user)
	}
	props := p.schema["properties"].(map[string]any)
	if props["verdict"] == nil || props["why"] == nil {
		t.Fatalf("schema %v", p.schema)
	}
}

func testPlan(t *testing.T, outputType string, options store.AnswerOptions) *plan {
	t.Helper()
	v := &store.ScorerVersion{Kind: store.VersionDecision, OutputType: &outputType,
		Decision: &store.DecisionScorer{Question: "Q?", AnswerOptions: options}}
	p, perr := planFor(Request{Scorer: store.Scorer{ScorerType: "llm"}, Version: v})
	if perr != nil {
		t.Fatal(perr)
	}
	return p
}

// The scorer's input type decides what of the record the judges read.
func TestInputType(t *testing.T) {
	for _, tc := range []struct {
		inputType     string
		input, output bool
	}{{"trace_input_only", true, false}, {"trace_output_only", false, true}, {"trace_io_only", true, true}, {"", true, true}} {
		p := testPlan(t, "boolean", store.AnswerOptions{})
		p.inputType = tc.inputType
		msgs := p.messages(Content{Input: "the-input", Output: "the-output", Context: []string{"doc"}})
		user := msgs[len(msgs)-1].Content
		if strings.Contains(user, "the-input") != tc.input || strings.Contains(user, "the-output") != tc.output {
			t.Errorf("%q: %s", tc.inputType, user)
		}
	}
}
