package scorers

import (
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// maxQuestion bounds the question (SPEC-DECISIONS: question 1..2000, every other string of
// the body 1..255).
const maxQuestion = 2000

// decisionRequest is a decision version body that passed validation of its shape. Pointers
// and nil lists are fields not sent (or sent as null): they default to the latest version.
type decisionRequest struct {
	question           string
	modelName          *string
	numJudges          *int64
	scoreableNodeTypes []string
	cotEnabled         *bool
	answerOptions      []string
	outputType         *string
	inputType          *string

	// raw inputs, echoed by the rules that compare them with the scorer
	rawNodeTypes, rawOptions any
	optionsSent              bool // answer_options present and not null
}

// readDecisionRequest reads the body of operation 8 (§2.7) and checks every rule that does
// not need the scorer: types, enums and length bounds.
func readDecisionRequest(errs *validate.Errors, raw any, present bool) decisionRequest {
	var req decisionRequest
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return req
	}
	short := []validate.Rule{validate.MinLen(1), validate.MaxLen(maxShortText)}
	if s, ok := o.Get("model_name").Nullable().String(short...); ok {
		req.modelName = &s
	}
	req.question, _ = o.Get("question").Required().String(validate.MinLen(1), validate.MaxLen(maxQuestion))
	if n, ok := o.Get("num_judges").Nullable().Int(validate.Ge(1), validate.Le(maxJudges)); ok {
		req.numJudges = &n
	}
	req.rawNodeTypes = o.Get("scoreable_node_types").Raw()
	req.scoreableNodeTypes = readStrings(o.Get("scoreable_node_types"))
	if b, ok := o.Get("cot_enabled").Nullable().Bool(); ok {
		req.cotEnabled = &b
	}
	opts := o.Get("answer_options")
	req.rawOptions, req.optionsSent = opts.Raw(), opts.Present() && !opts.IsNull()
	if items, ok := opts.Nullable().List(); ok {
		req.answerOptions = make([]string, 0, len(items))
		for _, it := range items {
			s, _ := it.String(short...)
			req.answerOptions = append(req.answerOptions, s)
		}
	}
	if s, ok := o.Get("output_type").Nullable().Enum(store.OutputTypes...); ok {
		req.outputType = &s
	}
	if s, ok := o.Get("input_type").Nullable().Enum(store.InputTypes...); ok {
		req.inputType = &s
	}
	return req
}
